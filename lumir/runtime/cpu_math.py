"""Settle torch's CPU vector math before lumir computes anything with it.

torch computes exp, log, sin, tanh and erf of f32 CPU tensors through MKL's vector math
library (ATen's `at::vml`), in chunks of 2048 elements spread over the intra-op
threads. Where a process's first such call spreads over two threads, the library is
initialised while both use it, and the thread that loses that race can compute its
whole chunk less accurately. Seen with torch 2.13.0+cpu on a 2-core machine: in 7 of 48
fresh processes, the first `exp` of 20000 f32 values differed from the second call in
the elements of the second thread, by up to 1.5e-4 of their value (exp(5.7455378) gave
312.81543 once and 312.79178, the correctly rounded value, ever after). f64, f16, bf16,
sigmoid and sqrt were not affected, and no call after the first ever was.

So the bytes a CPU program or the reference gave on its first call depended on the
race, which breaks lumir's promise of the same bytes in every process (an interpreter
check of a generated kernel against the reference failed in 2 of 6 CI runs through
it). One call on one thread first makes every later call accurate: 0 of 48
processes differed with it. `settle_cpu_math` makes that call, once per process; the
module every CPU computation of lumir goes through (`lumir.runtime.hl_torch`) calls it
when imported, before it can compute anything, which also settles the eager torch
calls a process makes after importing lumir.
"""

from __future__ import annotations

import torch

_settled = False


def settle_cpu_math() -> None:
    """Initialise torch's CPU vector math on this thread alone (idempotent, ~10 µs)."""
    global _settled
    if not _settled:
        # 16 elements: one chunk, so one thread; CPU and f32 whatever a user set as
        # torch's defaults (a default CUDA device would initialise CUDA at import).
        torch.exp(torch.zeros(16, dtype=torch.float32, device="cpu"))
        _settled = True


__all__ = ["settle_cpu_math"]
