"""A matmul whose output rows are not 16-byte aligned runs padded, then copies out.

cuBLASLt's fast kernels (`nvjet` on the H200) move D in 16-byte vectors along m, so
they need m (D's rows in cuBLASLt's column-major view, a Linear's output features) to
fill whole vectors. GPT-2's vocabulary has 50257 entries: its lm_head writes [S, 50257]
bf16 logits, and for that m the heuristic answers with a kernel that moves one element
at a time. At sequence 1024 on the H200 (`bench.profile_lumir --family gpt2`) it was
one `cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1` launch of 1117 µs, a
third of the forward; torch's `F.linear` picks the same kernel (1108 µs,
`bench.padded_gemm`), and inductor pads the weight to a round m (47 µs) and runs
`nvjet` (152 µs). Padding D's leading dimension alone does not change the choice.

So a plan for such a problem runs a padded one (`padded_problem`): m rounded up to a
multiple of 16 bytes of the narrower of A's and D's types. A, a Linear's weight read
transposed with its rows dense (`transa` T, lda = k), becomes a staged copy with zero
rows appended (the zeros written once when the plan is built, A's bytes copied in on
every run, a device-to-device memcpy); D is computed into a staging buffer with the
padded leading dimension and its first m rows of every column are copied into D
(`unstage`). The extra output rows are zeros times B and never read. Every value of D
is the same dot product it was (the summation order is the kernel's, as for any
algorithm the heuristic picks). It applies only where the copies are worth it and
nothing else changes:

- A is f16 or bf16 (what was measured; f32 and FP8 problems run as they are) and m is
  not a whole number of 16-byte vectors of A's or D's type;
- A is `transa` T with lda = k, D is dense (ldd = m), every layout column-major, one
  matrix (no batches), and D holds at least `MIN_ELEMENTS` elements (below that the
  slow kernel costs less than the copies' launches);
- beta is 0, no C buffer is given, and the epilogue reads no bias (each would need
  padding too).

Every plan on a device shares one D staging buffer (`shared_staging`), as they share
the cuBLASLt workspace: their calls are ordered on one stream or one CUDA graph. The
staged A is the plan's own, since its zero rows must stay zero.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

import torch

from lumir.cublaslt_enums import DataType, Operand, Order, Transpose
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import MatrixLayout, matrix_layout

VECTOR_BYTES = 16
"""The bytes cuBLASLt's vectorised kernels move at once along m."""

MIN_ELEMENTS = 1 << 20
"""The smallest D (elements) computed through a padded problem (module docstring)."""

PADDED_A_TYPES = (DataType.F16, DataType.BF16)
"""A's types whose ragged-m problems run padded (the measured ones)."""

_staging: dict[int, torch.Tensor] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class PaddedProblem:
    """The problem a plan runs instead of `descriptor` (module docstring)."""

    descriptor: MatmulDescriptor
    """The padded problem: m, ldc and ldd rounded up."""
    a_bytes: int
    """A's bytes as given, copied into the staged A on every run."""

    @property
    def a_layout(self) -> MatrixLayout:
        return matrix_layout(self.descriptor, Operand.A)

    @property
    def d_layout(self) -> MatrixLayout:
        return matrix_layout(self.descriptor, Operand.D)


def padded_problem(
    descriptor: MatmulDescriptor, has_c: bool, reads_bias: bool
) -> PaddedProblem | None:
    """The padded problem to run instead of `descriptor`, or None to run it as it is."""
    desc = descriptor
    if desc.a_dtype not in PADDED_A_TYPES:
        return None
    a_width, d_width = desc.a_dtype.byte_width, desc.d_dtype.byte_width
    step = VECTOR_BYTES // min(a_width, d_width)
    if VECTOR_BYTES % a_width or VECTOR_BYTES % d_width or desc.m % step == 0:
        return None
    orders = (desc.order_a, desc.order_b, desc.order_c, desc.order_d)
    if (
        has_c
        or reads_bias
        or desc.beta != 0
        or desc.batch_count != 1
        or any(order is not Order.COL for order in orders)
        or desc.transa is not Transpose.T
        or desc.lda != desc.k
        or desc.ldd != desc.m
        or desc.m * desc.n < MIN_ELEMENTS
    ):
        return None
    m = -(-desc.m // step) * step
    padded = replace(desc, m=m, ldc=m, ldd=m)
    return PaddedProblem(padded, matrix_layout(desc, Operand.A).byte_extent())


def staged_a(problem: PaddedProblem, device: torch.device) -> torch.Tensor:
    """A fresh staged A for `problem`: zeros, A's bytes to be copied in by `stage_a`."""
    return torch.zeros(problem.a_layout.byte_extent(), dtype=torch.uint8, device=device)


def stage_a(problem: PaddedProblem, a: torch.Tensor, staged: torch.Tensor) -> None:
    """Copy A's bytes into the front of its staged copy (on the current stream)."""
    staged[: problem.a_bytes].copy_(a[: problem.a_bytes])


def shared_staging(device: torch.device, nbytes: int) -> torch.Tensor:
    """A flat uint8 buffer of at least `nbytes` on `device` that plans share. A larger
    request replaces it; plans built earlier keep the old one through their reference."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    with _lock:
        staging = _staging.get(index)
        if staging is None or staging.numel() < nbytes:
            staging = torch.empty(nbytes, dtype=torch.uint8, device=device)
            _staging[index] = staging
        return staging


def unstage(
    problem: PaddedProblem, original: MatmulDescriptor, staging: torch.Tensor, d: torch.Tensor
) -> None:
    """Copy the first `original.m` rows of every column of the padded D held in
    `staging` into `d`, a flat uint8 buffer holding D densely (on the current stream)."""
    padded = problem.d_layout
    dtype = padded.dtype.row.torch_dtype()
    columns, rows = original.n, original.m
    source = staging[: padded.byte_extent()].view(dtype).view(columns, padded.ld)[:, :rows]
    d[: columns * rows * padded.dtype.byte_width].view(dtype).view(columns, rows).copy_(source)


__all__ = [
    "MIN_ELEMENTS",
    "PADDED_A_TYPES",
    "VECTOR_BYTES",
    "PaddedProblem",
    "padded_problem",
    "shared_staging",
    "stage_a",
    "staged_a",
    "unstage",
]
