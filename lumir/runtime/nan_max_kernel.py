"""The row maximum that NaN wins, as `torch.amax`'s does.

`tl.max` combines with IEEE `maxNum`, which returns the number when one side is NaN: a
row holding a NaN would reduce to its largest number, where torch gives NaN. Generated
kernels reduce with `tl.reduce(x, axis, max_keeping_nan)` instead. Imported lazily
with the kernels that use it (Triton is needed only on CUDA and by the interpreter check).
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def max_keeping_nan(a, b):
    """The larger of `a` and `b`, or NaN when either is NaN."""
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)
