"""A one-column matmul (a decode step's GEMM) as a generated Triton GEMV.

A GEMM whose activation has one row reads every weight once and does two flops per
weight: it is bound by memory, and its floor is the weight's bytes at the copy rate.
cuBLASLt's kernels for that case were measured on the H200 well below it (docs/perf-
notes.md), so lumir can run such a call as this GEMV instead, when the IR says so
(`algorithm = "gemv"` on its `cublaslt_rt.plan`; `lumir.plan_algorithms`).

    d = alpha * op(A) b + beta * c + bias      (one column: n = 1)

computed in f32 (products and sums), rounded once to d's type, like cuBLASLt's
`compute_32f` call it replaces; only the order of the sum differs.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from lumir.cublaslt_enums import DataType, Operand, Order, Transpose
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import OPERAND_FIELDS, matrix_layout
from lumir.plan_algorithms import gemv_problems
from lumir.runtime.buffers import data_type_dtype
from lumir.runtime.reference_gemm import scale_as_read


class GemvPlanError(ValueError):
    """The call is not one the GEMV runs, or an operand's layout overruns its buffer."""


class GemvPlan:
    """A `cublaslt_rt.plan` with `algorithm = "gemv"`, ready to run on CUDA buffers.

    Same arguments as `CublasLtMatmulPlan` (flat `torch.uint8` buffers, read through
    the descriptor's layouts): A, B and D, C when beta != 0, the bias for the BIAS
    epilogue (read as `bias_dtype`, default D's type). Construction checks the call
    (`gemv_problems`) and that every layout fits its buffer, and fixes the strided
    views, so `run()` is one kernel launch.
    """

    def __init__(
        self,
        descriptor: MatmulDescriptor,
        a: torch.Tensor,
        b: torch.Tensor,
        d: torch.Tensor,
        *,
        c: torch.Tensor | None = None,
        bias: torch.Tensor | None = None,
        bias_dtype: DataType | None = None,
    ) -> None:
        desc = descriptor
        problems = gemv_problems(desc)
        if problems:
            raise GemvPlanError("; ".join(problems))
        self.descriptor = desc
        matrix = _op_matrix(a, desc, Operand.A)
        vector = _op_matrix(b, desc, Operand.B)[:, 0]
        out = _op_matrix(d, desc, Operand.D)[:, 0]
        reads_c = desc.beta != 0.0
        if reads_c and c is None:
            raise GemvPlanError(f"beta = {desc.beta} reads C, but no C buffer was given")
        addend = _op_matrix(c, desc, Operand.C)[:, 0] if reads_c and c is not None else None
        if (bias is not None) != desc.epilogue.reads_bias:
            raise GemvPlanError(f"epilogue {desc.epilogue}: bias buffer given = {bias is not None}")
        offset = None
        if bias is not None:
            dtype = data_type_dtype(bias_dtype or desc.d_dtype)
            offset = _fitting(bias, dtype, (desc.m,), (1,), "bias")
        self.buffers = {"a": a, "b": b, "c": c, "d": d, "bias": bias}
        self._launch = gemv_launch(
            matrix,
            vector,
            out,
            c=addend,
            bias=offset,
            alpha=scale_as_read(desc.alpha, desc.scale_type),
            beta=scale_as_read(desc.beta, desc.scale_type),
        )

    def run(self) -> None:
        """Compute D from the buffers' current contents (on torch's current stream)."""
        self._launch()

    def close(self) -> None:
        """Nothing to release (no cuBLASLt objects); for the plan interface."""


def _op_matrix(buffer: torch.Tensor, desc: MatmulDescriptor, operand: Operand) -> torch.Tensor:
    """op(X) of the call as a strided view of `buffer` (rows x cols of op(X))."""
    layout = matrix_layout(desc, operand)
    steps = (1, layout.ld) if layout.order is Order.COL else (layout.ld, 1)
    stored = _fitting(
        buffer, data_type_dtype(layout.dtype), (layout.rows, layout.cols), steps, operand.value
    )
    transposed = OPERAND_FIELDS[operand].transpose(desc) is Transpose.T
    return stored.t() if transposed else stored


def _fitting(
    buffer: torch.Tensor,
    dtype: torch.dtype,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    name: str,
) -> torch.Tensor:
    """`buffer`'s bytes as a strided `dtype` tensor, refusing one that reaches past it."""
    flat = buffer.view(dtype)
    reach = 1 + sum((size - 1) * step for size, step in zip(shape, strides, strict=True))
    if reach > flat.numel():
        raise GemvPlanError(
            f"operand {name} reaches {reach} elements of {dtype}, its buffer holds {flat.numel()}"
        )
    return flat.as_strided(shape, strides)


def gemv_config(m: int, k: int) -> tuple[int, int, int]:
    """(BLOCK_M, BLOCK_K, num_warps) for an m x k GEMV: a pure function of the shape, so
    every process runs the same kernel and sums in the same order.

    From `bench/gemv_sweep.py` on the H200 (the best of 26 block shapes per Llama-1B
    projection, µs inside a CUDA graph): 512 x 2048 (1, 1024, 8) 2.9; 2048 x 2048 and
    3072 x 2048 (2, 1024, 4) 4.2 / 5.1; 2048 x 8192 (1, 1024, 4) 10.3; 8192 x 2048 and
    10240 x 2048 (16, 256, 8 / 4) 10.2 / 12.0. Many rows: few, wide programs; long rows
    or few rows: one or two rows per program, so enough programs stream at once.
    """
    if m >= 8192 and k <= 4096:
        block_m, block_k, warps = 16, 256, 8
    elif k >= 2 * m or m <= 1024:
        block_m, block_k, warps = 1, 1024, 8 if m <= 1024 else 4
    else:
        block_m, block_k, warps = 2, 1024, 4
    if k < block_k:  # a short row: one block covers it
        block_k = max(16, 1 << (k - 1).bit_length())
    return block_m, block_k, warps


def gemv_launch(
    a: torch.Tensor,
    x: torch.Tensor,
    d: torch.Tensor,
    *,
    c: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    block_m: int | None = None,
    block_k: int | None = None,
    num_warps: int | None = None,
) -> Callable[[], None]:
    """A zero-argument launch of the GEMV over these fixed tensors (captured into the
    program's CUDA graph like any other launch)."""
    from lumir.runtime.gemv_kernel import gemv_kernel

    m, k = a.shape
    if x.shape != (k,) or d.shape != (m,):
        raise ValueError(f"gemv: a {tuple(a.shape)}, x {tuple(x.shape)}, d {tuple(d.shape)}")
    default = gemv_config(m, k)
    block_m = block_m or default[0]
    block_k = block_k or default[1]
    num_warps = num_warps or default[2]
    has_c = c is not None and beta != 0.0
    c_arg = c if has_c else d
    bias_arg = bias if bias is not None else d
    grid = (-(-m // block_m),)
    arguments = (
        a,
        x,
        c_arg,
        bias_arg,
        d,
        m,
        k,
        a.stride(0),
        a.stride(1),
        x.stride(0),
        c_arg.stride(0),
        bias_arg.stride(0),
        d.stride(0),
        float(alpha),
        float(beta),
    )

    def launch() -> None:
        gemv_kernel[grid](
            *arguments,
            HAS_C=has_c,
            HAS_BIAS=bias is not None,
            BLOCK_M=block_m,
            BLOCK_K=block_k,
            num_warps=num_warps,
        )

    return launch


__all__ = ["GemvPlan", "GemvPlanError", "gemv_config", "gemv_launch"]
