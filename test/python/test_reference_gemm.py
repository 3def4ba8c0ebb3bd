"""The CPU reference GEMM reads and writes bytes exactly as its descriptor says.

Operands are placed in byte buffers with `torch.as_strided` (torch's own stride
arithmetic, independent of the reference's index computation), padding is filled with
NaN so that any read outside a layout poisons the result, and D is compared with the
same call computed in float64 on the logical matrices.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Operand, Order, Transpose
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.runtime import (
    GemmBufferError,
    GemmDescriptorError,
    ReferenceGemmPlan,
    reference_matmul,
)
from lumir.runtime.buffers import data_type_dtype
from lumir.runtime.layouts import MatrixLayout, matrix_layout

FLOAT_TYPES = (DataType.F32, DataType.F16, DataType.BF16)
FORWARD_EPILOGUES = (
    Epilogue.DEFAULT,
    Epilogue.RELU,
    Epilogue.GELU,
    Epilogue.BIAS,
    Epilogue.RELU_BIAS,
    Epilogue.GELU_BIAS,
)


def extent(layout: MatrixLayout) -> int:
    """Elements from the first to one past the last one the layout reaches."""
    if layout.order is Order.COL:
        span = layout.ld * (layout.cols - 1) + layout.rows
    else:
        span = layout.ld * (layout.rows - 1) + layout.cols
    return (layout.batch_count - 1) * layout.stride + span


def strided(typed: torch.Tensor, layout: MatrixLayout, batches: int) -> torch.Tensor:
    """The layout's matrices as a [batches, rows, cols] view of a typed buffer."""
    if layout.order is Order.COL:
        strides = (layout.stride, 1, layout.ld)
    else:
        strides = (layout.stride, layout.ld, 1)
    return typed.as_strided((batches, layout.rows, layout.cols), strides)


def place(values: torch.Tensor, layout: MatrixLayout, fill: float = math.nan) -> torch.Tensor:
    """A byte buffer holding `values` ([batch, rows, cols]) through `layout`, NaN elsewhere."""
    dtype = data_type_dtype(layout.dtype)
    typed = torch.full((extent(layout),), fill, dtype=dtype)
    # A stride-0 operand is one matrix shared by every batch: write it once.
    batches = 1 if layout.stride == 0 else layout.batch_count
    strided(typed, layout, batches).copy_(values[:batches])
    return typed.view(torch.uint8)


def read(buffer: torch.Tensor, layout: MatrixLayout) -> torch.Tensor:
    typed = buffer.view(data_type_dtype(layout.dtype))
    return strided(typed, layout, layout.batch_count).to(torch.float64)


def random_matrix(
    generator: torch.Generator, batches: int, rows: int, cols: int, dtype: DataType
) -> torch.Tensor:
    """Random values already representable in `dtype`, as float64."""
    values = torch.randn((batches, rows, cols), generator=generator, dtype=torch.float64)
    return values.to(data_type_dtype(dtype)).to(torch.float64)


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def descriptor(**fields: object) -> MatmulDescriptor:
    """A dense column-major f32 descriptor for m x n x k, with `fields` overriding it."""
    m, n, k = (int(fields.get(name, 4)) for name in ("m", "n", "k"))  # type: ignore[call-overload]
    base: dict[str, object] = {
        "transa": Transpose.N,
        "transb": Transpose.N,
        "order_a": Order.COL,
        "order_b": Order.COL,
        "order_c": Order.COL,
        "order_d": Order.COL,
        "m": m,
        "n": n,
        "k": k,
        "lda": m,
        "ldb": k,
        "ldc": m,
        "ldd": m,
        "batch_count": 1,
        "stride_a": 0,
        "stride_b": 0,
        "stride_c": 0,
        "stride_d": 0,
        "a_dtype": DataType.F32,
        "b_dtype": DataType.F32,
        "c_dtype": DataType.F32,
        "d_dtype": DataType.F32,
        "compute_type": ComputeType.COMPUTE_32F,
        "scale_type": DataType.F32,
        "alpha": 1.0,
        "beta": 0.0,
        "epilogue": Epilogue.DEFAULT,
    }
    base.update(fields)
    return MatmulDescriptor(**base)  # type: ignore[arg-type]


@st.composite
def gemm_calls(draw: st.DrawFn) -> tuple[MatmulDescriptor, int]:
    """A random forward cuBLASLt call with padded leading dimensions and batch strides."""
    dtype = draw(st.sampled_from(FLOAT_TYPES))
    m, n, k = (draw(st.integers(1, 9)) for _ in range(3))
    batch = draw(st.integers(1, 3))
    transa, transb = (draw(st.sampled_from(list(Transpose))) for _ in range(2))
    orders = [draw(st.sampled_from(list(Order))) for _ in range(4)]
    dims = {
        "a": (m, k) if transa is Transpose.N else (k, m),
        "b": (k, n) if transb is Transpose.N else (n, k),
        "c": (m, n),
        "d": (m, n),
    }
    fields: dict[str, object] = {}
    for role, order in zip("abcd", orders, strict=True):
        rows, cols = dims[role]
        contiguous, other = (rows, cols) if order is Order.COL else (cols, rows)
        ld = contiguous + draw(st.integers(0, 2))
        shared = role in "ab" and batch > 1 and draw(st.booleans())
        stride = 0 if batch == 1 or shared else ld * other + draw(st.integers(0, 5))
        fields[f"order_{role}"] = order
        fields[f"ld{role}"] = ld
        fields[f"stride_{role}"] = stride
    call = descriptor(
        m=m,
        n=n,
        k=k,
        transa=transa,
        transb=transb,
        batch_count=batch,
        a_dtype=dtype,
        b_dtype=dtype,
        c_dtype=dtype,
        d_dtype=dtype,
        alpha=draw(st.sampled_from([1.0, 0.5, -2.0])),
        beta=draw(st.sampled_from([0.0, 1.0, -0.5])),
        epilogue=draw(st.sampled_from(FORWARD_EPILOGUES)),
        **fields,
    )
    return call, draw(st.integers(0, 2**31 - 1))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(gemm_calls())
def test_index_arithmetic_matches_strided_torch(case: tuple[MatmulDescriptor, int]) -> None:
    desc, seed = case
    generator = torch.Generator().manual_seed(seed)
    layouts = {operand: matrix_layout(desc, operand) for operand in Operand}
    values = {
        operand: random_matrix(generator, desc.batch_count, layout.rows, layout.cols, layout.dtype)
        for operand, layout in layouts.items()
        if operand is not Operand.D
    }
    for operand in (Operand.A, Operand.B):
        if layouts[operand].stride == 0:  # shared: the same matrix in every batch
            values[operand] = values[operand][:1].expand_as(values[operand])
    buffers = {operand: place(values[operand], layouts[operand]) for operand in values}
    d = place(torch.zeros(desc.batch_count, desc.m, desc.n), layouts[Operand.D])
    bias_values = random_matrix(generator, 1, 1, desc.m, desc.d_dtype).reshape(desc.m)
    bias = bias_values.to(data_type_dtype(desc.d_dtype)).view(torch.uint8)
    reference_matmul(
        desc,
        buffers[Operand.A],
        buffers[Operand.B],
        d,
        c=buffers[Operand.C],
        bias=bias if desc.epilogue.reads_bias else None,
    )

    op_a, op_b = values[Operand.A], values[Operand.B]
    if desc.transa is Transpose.T:
        op_a = op_a.transpose(1, 2)
    if desc.transb is Transpose.T:
        op_b = op_b.transpose(1, 2)
    expected = desc.alpha * op_a @ op_b
    if desc.beta != 0:
        expected = expected + desc.beta * values[Operand.C]
    if desc.epilogue.reads_bias:
        expected = expected + bias_values[None, :, None]
    if desc.epilogue.activation == "relu":
        expected = expected.relu()
    elif desc.epilogue.activation == "gelu":
        expected = gelu_tanh(expected)
    expected = expected.to(data_type_dtype(desc.d_dtype)).to(torch.float64)

    got = read(d, layouts[Operand.D])
    eps = torch.finfo(data_type_dtype(desc.d_dtype)).eps
    scale = float(expected.abs().max())
    torch.testing.assert_close(got, expected, rtol=2 * eps, atol=2 * eps * scale)
    # Only D's layout was written: the padding between its elements is still NaN.
    typed = d.view(data_type_dtype(desc.d_dtype))
    written = torch.zeros(typed.numel(), dtype=torch.bool)
    strided(written, layouts[Operand.D], desc.batch_count).fill_(True)
    assert torch.isnan(typed[~written]).all()


def dense(values: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return values.to(dtype).contiguous().view(-1).view(torch.uint8)


def test_col_order_reads_row_major_tensor_as_its_transpose() -> None:
    """docs/conventions.md: Y = X @ W is A = W, B = X, m = N, n = M in the COL view."""
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(3, 5, generator=generator)
    w = torch.randn(5, 7, generator=generator)
    desc = descriptor(m=7, n=3, k=5, lda=7, ldb=5, ldc=7, ldd=7)
    d = torch.zeros(3 * 7 * 4, dtype=torch.uint8)
    reference_matmul(desc, dense(w, torch.float32), dense(x, torch.float32), d)
    torch.testing.assert_close(d.view(torch.float32).view(3, 7), x @ w)


def test_gelu_is_the_tanh_form_not_erf() -> None:
    values = torch.linspace(-3, 3, 16, dtype=torch.float64).reshape(16, 1)
    one = torch.ones(1, 1, dtype=torch.float64)
    desc = descriptor(
        m=16, n=1, k=1, lda=16, ldb=1, ldc=16, ldd=16, epilogue=Epilogue.GELU,
        a_dtype=DataType.F64, b_dtype=DataType.F64, c_dtype=DataType.F64,
        d_dtype=DataType.F64, compute_type=ComputeType.COMPUTE_64F, scale_type=DataType.F64,
    )  # fmt: skip
    d = torch.zeros(16 * 8, dtype=torch.uint8)
    reference_matmul(desc, dense(values, torch.float64), dense(one, torch.float64), d)
    got = d.view(torch.float64)
    torch.testing.assert_close(got, gelu_tanh(values.reshape(16)), rtol=0, atol=1e-15)
    erf_form = torch.nn.functional.gelu(values.reshape(16))
    assert (got - erf_form).abs().max() > 1e-5


def test_bias_is_added_along_m_before_the_activation() -> None:
    a = torch.eye(3, dtype=torch.float32)  # m = k = 3
    b = -torch.ones(3, 2, dtype=torch.float32)  # k x n, so AB = -1 everywhere
    bias = torch.tensor([0.5, 1.5, 2.5])
    desc = descriptor(m=3, n=2, k=3, lda=3, ldb=3, ldc=3, ldd=3, epilogue=Epilogue.RELU_BIAS)
    d = torch.zeros(6 * 4, dtype=torch.uint8)
    reference_matmul(
        desc, dense(a, torch.float32), dense(b.T, torch.float32), d,
        bias=dense(bias, torch.float32),
    )  # fmt: skip
    # relu(-1 + bias[row]) per row of D (column-major, so rows are the fast index).
    expected = torch.tensor([[0.0, 0.5, 1.5], [0.0, 0.5, 1.5]])
    torch.testing.assert_close(d.view(torch.float32).view(2, 3), expected)


def test_activation_applies_to_the_residual_sum() -> None:
    """docs/design.md: with beta = 1 and RELU, D = relu(AB + C), not relu(AB) + C."""
    a = torch.ones(2, 1)
    b = torch.ones(1, 2)
    c = torch.full((2, 2), -3.0)
    desc = descriptor(m=2, n=2, k=1, lda=2, ldb=1, ldc=2, ldd=2, beta=1.0, epilogue=Epilogue.RELU)
    d = torch.zeros(16, dtype=torch.uint8)
    reference_matmul(
        desc, dense(a, torch.float32), dense(b, torch.float32), d, c=dense(c, torch.float32)
    )
    assert torch.equal(d.view(torch.float32), torch.zeros(4))


def test_beta_zero_never_reads_c() -> None:
    desc = descriptor(m=2, n=2, k=2, lda=2, ldb=2, ldc=2, ldd=2)
    ones = dense(torch.ones(2, 2), torch.float32)
    poison = dense(torch.full((2, 2), math.nan), torch.float32)
    d = torch.zeros(16, dtype=torch.uint8)
    reference_matmul(desc, ones, ones, d, c=poison)
    assert torch.equal(d.view(torch.float32), torch.full((4,), 2.0))
    # Nor does it need C at all: the plan is complete without one.
    reference_matmul(desc, ones, ones, d)
    assert torch.equal(d.view(torch.float32), torch.full((4,), 2.0))


def test_a_product_beyond_f32_is_infinite_before_alpha_and_beta() -> None:
    """An f32 accumulator cannot hold 4e39: alpha 0.01 scales an infinity (eager's
    `(x @ w) * 0.01` is inf too), and beta * C of -inf added to it is NaN; a product in
    range keeps its exact value."""
    big = dense(torch.full((2, 2), 1e38), torch.float32)
    ten = dense(torch.full((2, 2), 10.0), torch.float32)
    d = torch.zeros(16, dtype=torch.uint8)
    scaled = descriptor(m=2, n=2, k=2, lda=2, ldb=2, ldc=2, ldd=2, alpha=0.01)
    reference_matmul(scaled, big, ten, d)
    assert torch.equal(d.view(torch.float32), torch.full((4,), math.inf))
    summed = descriptor(m=2, n=2, k=2, lda=2, ldb=2, ldc=2, ldd=2, beta=1.0)
    reference_matmul(summed, big, ten, d, c=dense(torch.full((2, 2), -math.inf), torch.float32))
    assert d.view(torch.float32).isnan().all()
    # Just inside the range: 2 * 1e37 * 10 = 2e38 stays finite and exact after alpha.
    reference_matmul(scaled, dense(torch.full((2, 2), 1e37), torch.float32), ten, d)
    assert torch.equal(d.view(torch.float32), torch.full((4,), torch.tensor(2e38 * 0.01).item()))


def test_c_may_be_d_in_place() -> None:
    desc = descriptor(m=2, n=2, k=2, lda=2, ldb=2, ldc=2, ldd=2, beta=1.0)
    ones = dense(torch.ones(2, 2), torch.float32)
    d = dense(torch.full((2, 2), 10.0), torch.float32)
    reference_matmul(desc, ones, ones, d, c=d)
    assert torch.equal(d.view(torch.float32), torch.full((4,), 12.0))


def test_alpha_and_beta_are_read_in_the_scale_type() -> None:
    """compute_16f reads alpha as an f16 host scalar: 0.1 becomes 0.0999755859375."""
    desc = descriptor(
        m=1, n=1, k=1, lda=1, ldb=1, ldc=1, ldd=1, alpha=0.1,
        a_dtype=DataType.F16, b_dtype=DataType.F16, c_dtype=DataType.F16, d_dtype=DataType.F16,
        compute_type=ComputeType.COMPUTE_16F, scale_type=DataType.F16,
    )  # fmt: skip
    plan = ReferenceGemmPlan(
        desc, dense(torch.ones(1), torch.float16), dense(torch.ones(1), torch.float16),
        torch.zeros(2, dtype=torch.uint8),
    )  # fmt: skip
    assert plan.alpha == float(torch.tensor(0.1, dtype=torch.float16))
    assert plan.alpha != 0.1


def test_fast_tf32_rounds_the_inputs() -> None:
    x = torch.tensor([1.0 + 2.0**-20], dtype=torch.float32)  # below TF32's 10-bit mantissa
    one = torch.ones(1, dtype=torch.float32)
    out = torch.zeros(4, dtype=torch.uint8)
    exact = descriptor(m=1, n=1, k=1, lda=1, ldb=1, ldc=1, ldd=1)
    reference_matmul(exact, dense(x, torch.float32), dense(one, torch.float32), out)
    assert out.view(torch.float32).item() == x.item()
    fast = descriptor(
        m=1, n=1, k=1, lda=1, ldb=1, ldc=1, ldd=1,
        compute_type=ComputeType.COMPUTE_32F_FAST_TF32,
    )  # fmt: skip
    reference_matmul(fast, dense(x, torch.float32), dense(one, torch.float32), out)
    assert out.view(torch.float32).item() == 1.0


def test_int8_inputs_accumulate_exactly_into_int32() -> None:
    generator = torch.Generator().manual_seed(3)
    a = torch.randint(-128, 128, (16, 64), generator=generator, dtype=torch.int8)
    b = torch.randint(-128, 128, (64, 8), generator=generator, dtype=torch.int8)
    desc = descriptor(
        m=8, n=16, k=64, lda=8, ldb=64, ldc=8, ldd=8,
        a_dtype=DataType.I8, b_dtype=DataType.I8, c_dtype=DataType.I32, d_dtype=DataType.I32,
        compute_type=ComputeType.COMPUTE_32I, scale_type=DataType.I32,
    )  # fmt: skip
    d = torch.zeros(16 * 8 * 4, dtype=torch.uint8)
    reference_matmul(desc, dense(b, torch.int8), dense(a, torch.int8), d)
    expected = a.to(torch.int64) @ b.to(torch.int64)
    assert torch.equal(d.view(torch.int32).view(16, 8).to(torch.int64), expected)


def test_a_read_past_the_buffer_end_is_an_error_naming_the_operand() -> None:
    desc = descriptor(m=4, n=4, k=4, beta=1.0)
    ones = dense(torch.ones(4, 4), torch.float32)
    short_c = dense(torch.ones(4, 2), torch.float32)  # 32 bytes; C needs 64
    with pytest.raises(
        GemmBufferError, match=r"operand C .* reaches byte 64, but its buffer holds 32"
    ):
        ReferenceGemmPlan(desc, ones, ones, torch.zeros(64, dtype=torch.uint8), c=short_c)


def test_a_short_bias_is_an_error_naming_it_as_a_vector() -> None:
    desc = descriptor(m=4, n=4, k=4, epilogue=Epilogue.BIAS)
    ones = dense(torch.ones(4, 4), torch.float32)
    short_bias = dense(torch.ones(2), torch.float32)  # 8 bytes; the bias needs 16
    with pytest.raises(
        GemmBufferError,
        match=r"operand bias is read as a f32 vector of 4, which reaches byte 16, but its "
        r"buffer holds 8 bytes",
    ):
        ReferenceGemmPlan(desc, ones, ones, torch.zeros(64, dtype=torch.uint8), bias=short_bias)


def test_d_written_twice_is_an_error() -> None:
    desc = descriptor(m=2, n=2, k=2, lda=2, ldb=2, ldc=2, ldd=2, batch_count=2)  # stride_d 0
    ones = dense(torch.ones(2, 2), torch.float32)
    with pytest.raises(GemmBufferError, match="writes some elements more than once"):
        ReferenceGemmPlan(desc, ones, ones, torch.zeros(16, dtype=torch.uint8))


def test_aux_epilogues_are_refused() -> None:
    desc = descriptor(epilogue=Epilogue.GELU_AUX)
    ones = dense(torch.ones(4, 4), torch.float32)
    with pytest.raises(GemmDescriptorError, match="gelu_aux"):
        ReferenceGemmPlan(desc, ones, ones, torch.zeros(64, dtype=torch.uint8))


def test_missing_c_or_bias_is_refused() -> None:
    ones = dense(torch.ones(4, 4), torch.float32)
    d = torch.zeros(64, dtype=torch.uint8)
    with pytest.raises(ValueError, match="reads C"):
        ReferenceGemmPlan(descriptor(beta=1.0), ones, ones, d)
    with pytest.raises(ValueError, match="needs a bias"):
        ReferenceGemmPlan(descriptor(epilogue=Epilogue.BIAS), ones, ones, d)
    with pytest.raises(ValueError, match="takes no bias"):
        ReferenceGemmPlan(descriptor(), ones, ones, d, bias=ones)


# --- docs/design.md's bug: C declared f32 over a bf16 buffer --------------------------------


def bug_case(c_arena_bytes: int | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Y = X W + R in bf16 with the output cast to f32, fused with and without the bug.

    Returns (legal D, buggy D, the exact answer), all f32 [M, N]. The buggy call declares
    `c_dtype = f32` over R's bf16 bytes; `c_arena_bytes` is the size of the allocation
    R sits at the start of (None: exactly R's size).
    """
    m_rows, n_cols, k = 8, 16, 32
    generator = torch.Generator().manual_seed(7)
    x = torch.randn(m_rows, k, generator=generator).bfloat16()
    w = torch.randn(k, n_cols, generator=generator).bfloat16()
    r = (4 * torch.randn(m_rows, n_cols, generator=generator)).bfloat16()
    desc = descriptor(
        m=n_cols, n=m_rows, k=k, lda=n_cols, ldb=k, ldc=n_cols, ldd=n_cols, beta=1.0,
        a_dtype=DataType.BF16, b_dtype=DataType.BF16, c_dtype=DataType.F32, d_dtype=DataType.F32,
    )  # fmt: skip
    exact = x.double() @ w.double() + r.double()
    legal = torch.zeros(m_rows * n_cols * 4, dtype=torch.uint8)
    reference_matmul(
        desc, dense(w, torch.bfloat16), dense(x, torch.bfloat16), legal,
        c=dense(r.float(), torch.float32),  # C cast to f32 first: the legal program
    )  # fmt: skip
    r_bytes = dense(r, torch.bfloat16)
    arena = torch.zeros(c_arena_bytes or r_bytes.numel(), dtype=torch.uint8)
    arena[: r_bytes.numel()] = r_bytes
    buggy = torch.zeros_like(legal)
    reference_matmul(desc, dense(w, torch.bfloat16), dense(x, torch.bfloat16), buggy, c=arena)
    shape = (m_rows, n_cols)
    return legal.view(torch.float32).view(shape), buggy.view(torch.float32).view(shape), exact


def test_bug_c_f32_over_bf16_runs_past_the_buffer() -> None:
    with pytest.raises(GemmBufferError, match=r"operand C is read as a f32 16 x 8 col-order"):
        bug_case(None)


def test_bug_c_f32_over_bf16_in_a_larger_allocation_gives_wrong_numbers() -> None:
    legal, buggy, exact = bug_case(c_arena_bytes=1 << 16)
    torch.testing.assert_close(legal.double(), exact, rtol=1e-5, atol=1e-4)
    # Pairs of bf16 residuals read as one f32, then zeros past R's bytes: not the sum.
    wrong = (buggy.double() - exact).abs()
    assert float(wrong.max()) > 1.0
    assert float(wrong.mean()) > 0.5
