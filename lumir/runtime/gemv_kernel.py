"""The Triton GEMV kernel (imported lazily: only a GEMV launch on CUDA, or the
interpreter check, needs Triton). See `lumir.runtime.gemv` for what it computes."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def gemv_kernel(
    a_ptr,
    x_ptr,
    c_ptr,
    bias_ptr,
    d_ptr,
    m,
    k,
    stride_am,
    stride_ak,
    stride_x,
    stride_c,
    stride_bias,
    stride_d,
    alpha,
    beta,
    HAS_C: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """d[i] = alpha * sum_p a[i, p] x[p] + beta * c[i] + bias[i], for BLOCK_M rows i.

    Each program owns BLOCK_M rows and walks K in BLOCK_K columns, accumulating the
    products in f32 lanes; one sum over the lanes at the end, one rounding to d's type.
    No atomics: every output is written by one program, in one order, so the result
    does not depend on scheduling.
    """
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < m
    lanes = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for start in range(0, k, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        col_ok = cols < k
        a = tl.load(
            a_ptr + rows[:, None] * stride_am + cols[None, :] * stride_ak,
            mask=row_ok[:, None] & col_ok[None, :],
            other=0.0,
        )
        x = tl.load(x_ptr + cols * stride_x, mask=col_ok, other=0.0)
        lanes += a.to(tl.float32) * x.to(tl.float32)[None, :]
    result = tl.sum(lanes, axis=1) * alpha
    if HAS_C:
        c = tl.load(c_ptr + rows * stride_c, mask=row_ok, other=0.0)
        result += beta * c.to(tl.float32)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + rows * stride_bias, mask=row_ok, other=0.0)
        result += bias.to(tl.float32)
    tl.store(d_ptr + rows * stride_d, result.to(d_ptr.dtype.element_ty), mask=row_ok)
