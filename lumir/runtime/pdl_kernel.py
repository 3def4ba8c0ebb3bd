"""The Triton side of programmatic dependent launch (see `lumir.runtime.pdl`): the one
wait every kernel that lumir may launch with `launch_pdl=True` calls first. Imported
lazily with the kernels (Triton is needed only on CUDA and by the interpreter check)."""

from __future__ import annotations

import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait


@triton.jit
def wait_for_previous_launch(PDL: tl.constexpr):
    """Under PDL: wait until the previous kernel has finished and its writes are visible,
    then let the next launch start (so at most one launch waits at a time). Nothing
    otherwise, which is also all Triton's interpreter runs (it has no PDL)."""
    if PDL:
        gdc_wait()
        gdc_launch_dependents()
