"""Programmatic dependent launch (PDL) for lumir's Triton kernels.

On Hopper and later GPUs a kernel launched with the programmatic-stream-serialization
attribute (Triton's `launch_pdl=True`) may be scheduled while the kernel before it on the
stream is still running; CUDA-graph capture keeps that as a programmatic edge. At a
decode step's ~240 launches the gap between one kernel's last block and the next
kernel's first loads is a fixed cost per launch; PDL lets the next kernel's blocks be
resident and waiting when the previous one drains.

A kernel may be launched this way only if every program waits (`gdc_wait`) before it
reads anything another kernel writes and before it writes anything: the wait returns
once the previous kernel has finished and its writes are visible, and by induction every
earlier kernel too. lumir's kernels that take a `PDL` flag do exactly that (the GEMV
kernels, the generated fused kernels and the grouped launch kernels); nothing else,
cuBLASLt's and torch's kernels included, is launched with the attribute.

`LUMIR_PDL=0` turns it off (every launch then waits for the one before it to finish).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import torch

MIN_CAPABILITY = (9, 0)
"""Programmatic dependent launch needs compute capability 9.0 (Hopper) or later."""


@dataclass(frozen=True)
class PdlMode:
    """How one Triton launch uses PDL.

    `dependent`: launched with the attribute; its programs wait for the previous kernel
    before touching memory. `prefetch_weight`: a GEMV reads its first block of A before
    that wait, legal only for an A that no kernel writes. The loader
    (`lumir.runtime.loader`) does not use it: on the H200 it saved 0.04-0.1 µs on the
    small projections of a decode layer and cost 2.2 µs on gate+up
    (`bench/gemv_sweep.py --pdl`), so it stays a measured alternative.
    """

    dependent: bool = False
    prefetch_weight: bool = False

    def kernel_options(self) -> dict[str, object]:
        """The Triton launch keywords: for a dependent launch the kernel's `PDL` flag and
        `launch_pdl` (left out otherwise, so the interpreter, which has no PDL, never
        sees them); `PREFETCH_A` for a GEMV that reads its weight first. Without PDL
        the prefetch only moves a load earlier, which the interpreter check uses to
        run the prefetching kernel's arithmetic on the CPU."""
        options: dict[str, object] = {"PREFETCH_A": True} if self.prefetch_weight else {}
        if self.dependent:
            options.update(PDL=True, launch_pdl=True)
        return options


NO_PDL = PdlMode()


@functools.cache
def pdl_supported(device_index: int) -> bool:
    """Whether launches on this CUDA device may use PDL: compute capability 9.0 or later,
    not under Triton's interpreter, and not turned off with `LUMIR_PDL=0`."""
    if os.environ.get("TRITON_INTERPRET") == "1" or os.environ.get("LUMIR_PDL") == "0":
        return False
    return torch.cuda.get_device_capability(device_index) >= MIN_CAPABILITY
