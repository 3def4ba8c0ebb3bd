"""The Triton GEMV kernels (imported lazily: only a GEMV launch on CUDA, or the
interpreter check, needs Triton). See `lumir.runtime.gemv` for what they compute.

`gemv_kernel` runs one call; `grouped_gemv_kernel` runs several calls that read one
activation vector (a `cublaslt_rt.matmul_group`) in one launch. Both hand each program
to `gemv_rows`, so a member of a group is summed by the very code, block shape and
order that its own launch would use.

Programmatic dependent launch (`PDL`, Hopper and later; `lumir.runtime.pdl`): a launch
made with `launch_pdl=True` may start while the kernel before it is still running. Its
programs then wait for that kernel to finish, and for its writes to be visible, before
they read anything a kernel writes or write anything at all (`wait_for_previous_launch`).
With `PREFETCH_A` a program reads the first BLOCK_K columns of its rows of A before
waiting: the weight stream starts while the previous kernel drains. That is only legal
for an A that no kernel of the program writes (a bound weight); the loader does not
ask for it, since it measured slower (`PdlMode`). Neither flag changes a sum: the
products and their order are the same.
"""

from __future__ import annotations

import triton
import triton.language as tl

from lumir.runtime.pdl_kernel import wait_for_previous_launch


@triton.jit
def _a_block(a_ptr, rows, row_ok, cols, col_ok, stride_am, stride_ak):
    """A[rows, cols] (zero outside the matrix)."""
    return tl.load(
        a_ptr + rows[:, None] * stride_am + cols[None, :] * stride_ak,
        mask=row_ok[:, None] & col_ok[None, :],
        other=0.0,
    )


@triton.jit
def _scaled_sums(
    lanes, alpha, beta, c_ptr, bias_ptr, rows, row_ok, stride_c, stride_bias, HAS_C, HAS_BIAS
):
    """alpha * (the lanes' sum per row) + beta * c + bias, in f32, in that order."""
    result = tl.sum(lanes, axis=1) * alpha
    if HAS_C:
        c = tl.load(c_ptr + rows * stride_c, mask=row_ok, other=0.0)
        result += beta * c.to(tl.float32)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + rows * stride_bias, mask=row_ok, other=0.0)
        result += bias.to(tl.float32)
    return result


@triton.jit
def gemv_rows(
    a_ptr,
    x_ptr,
    c_ptr,
    bias_ptr,
    block,
    m,
    k,
    stride_am,
    stride_ak,
    stride_x,
    stride_c,
    stride_bias,
    alpha,
    beta,
    HAS_C: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
    PDL: tl.constexpr,
    PREFETCH_A: tl.constexpr,
):
    """alpha * sum_p a[i, p] x[p] + beta * c[i] + bias[i] in f32, unrounded, for the
    BLOCK_M rows i of row block `block` (rows past m hold garbage; stores mask them).

    The program walks K in BLOCK_K columns, accumulating the products in f32 lanes with
    explicit fused multiply-adds; one sum over the lanes at the end. The kernels are
    compiled with floating-point contraction off (`lumir.runtime.fused_kernels.FP_FUSION`),
    so every other operation rounds where it is written, whichever kernel calls this:
    the GEMV, the grouped GEMV and a generated epilogue kernel
    (`lumir.runtime.gemv_epilogue`) compute the same bits for the same call. No atomics:
    every output is written by one program, in one order, so the result does not depend
    on scheduling. With PREFETCH_A the first block of columns is peeled off the loop, so
    that its A is read before the PDL wait (module docstring); otherwise the loop is left
    whole (the H200 ran a peeled loop ~8% slower without the prefetch to pay for it).
    """
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < m
    lanes = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    if PREFETCH_A:
        cols = tl.arange(0, BLOCK_K)
        col_ok = cols < k
        first_a = _a_block(a_ptr, rows, row_ok, cols, col_ok, stride_am, stride_ak)
        wait_for_previous_launch(PDL)
        first_x = tl.load(x_ptr + cols * stride_x, mask=col_ok, other=0.0)
        lanes = tl.fma(first_a.to(tl.float32), first_x.to(tl.float32)[None, :], lanes)
        first_column = BLOCK_K
    else:
        wait_for_previous_launch(PDL)
        first_column = 0
    for start in range(first_column, k, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        col_ok = cols < k
        a = _a_block(a_ptr, rows, row_ok, cols, col_ok, stride_am, stride_ak)
        x = tl.load(x_ptr + cols * stride_x, mask=col_ok, other=0.0)
        lanes = tl.fma(a.to(tl.float32), x.to(tl.float32)[None, :], lanes)
    return _scaled_sums(
        lanes, alpha, beta, c_ptr, bias_ptr, rows, row_ok, stride_c, stride_bias, HAS_C, HAS_BIAS
    )


@triton.jit
def gemv_rows_of_vector(
    a_ptr,
    h,
    c_ptr,
    bias_ptr,
    block,
    m,
    k,
    stride_am,
    stride_ak,
    stride_c,
    stride_bias,
    alpha,
    beta,
    HAS_C: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """`gemv_rows` for a vector already in registers: `h`, BLOCK_K f32 lanes, zero past
    k, where k <= BLOCK_K (a GEMV group's prologue computed it, `gemv_prologue`). The
    products and their order are those of `gemv_rows` when its one block holds the row:
    one fused multiply-add per lane into zero, one sum over the lanes."""
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < m
    cols = tl.arange(0, BLOCK_K)
    a = _a_block(a_ptr, rows, row_ok, cols, cols < k, stride_am, stride_ak)
    lanes = tl.fma(a.to(tl.float32), h[None, :], tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32))
    return _scaled_sums(
        lanes, alpha, beta, c_ptr, bias_ptr, rows, row_ok, stride_c, stride_bias, HAS_C, HAS_BIAS
    )


@triton.jit
def store_rows(d_ptr, stride_d, block, m, result, BLOCK_M: tl.constexpr):
    """Row block `block` of d: `result` (f32) rounded once to d's type."""
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(d_ptr + rows * stride_d, result.to(d_ptr.dtype.element_ty), mask=rows < m)


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
    PDL: tl.constexpr = False,
    PREFETCH_A: tl.constexpr = False,
):
    """One GEMV: program i computes row block i of d (`gemv_rows`), rounded once to d's
    type."""
    block = tl.program_id(0)
    result = gemv_rows(
        a_ptr,
        x_ptr,
        c_ptr,
        bias_ptr,
        block,
        m,
        k,
        stride_am,
        stride_ak,
        stride_x,
        stride_c,
        stride_bias,
        alpha,
        beta,
        HAS_C,
        HAS_BIAS,
        BLOCK_M,
        BLOCK_K,
        PDL,
        PREFETCH_A,
    )
    store_rows(d_ptr, stride_d, block, m, result, BLOCK_M)


@triton.jit
def grouped_gemv_kernel(
    x_ptr,
    k,
    stride_x,
    a_ptrs,
    c_ptrs,
    bias_ptrs,
    d_ptrs,
    ms,
    strides_am,
    strides_ak,
    strides_c,
    strides_bias,
    strides_d,
    alphas,
    betas,
    starts,
    ends,
    MEMBERS: tl.constexpr,
    C_MEMBERS: tl.constexpr,
    BIAS_MEMBERS: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
    PDL: tl.constexpr = False,
    PREFETCH_A: tl.constexpr = False,
):
    """MEMBERS GEMVs over one vector x, each with its own matrix, output, C and bias.

    Every per-member argument is a tuple with one entry per member (a pointer or a
    scalar each: no pointer table to load first). Member i owns programs
    [starts[i], ends[i]), one per row block of its own d, so a program finds its member
    by comparing its id with them. Bit i of C_MEMBERS (BIAS_MEMBERS) says whether
    member i reads C (a bias).
    """
    pid = tl.program_id(0)
    for i in tl.static_range(MEMBERS):
        if (pid >= starts[i]) & (pid < ends[i]):
            block = pid - starts[i]
            result = gemv_rows(
                a_ptrs[i],
                x_ptr,
                c_ptrs[i],
                bias_ptrs[i],
                block,
                ms[i],
                k,
                strides_am[i],
                strides_ak[i],
                stride_x,
                strides_c[i],
                strides_bias[i],
                alphas[i],
                betas[i],
                (C_MEMBERS >> i) & 1,
                (BIAS_MEMBERS >> i) & 1,
                BLOCK_M,
                BLOCK_K,
                PDL,
                PREFETCH_A,
            )
            store_rows(d_ptrs[i], strides_d[i], block, ms[i], result, BLOCK_M)
