"""The CUDA executor's cuBLASLt plans and CUDA-graph helper, differential against torch.

Every descriptor is built the way lumir lowers a row-major `Y = X W^T (+ ...)`
(docs/conventions.md): A = W, B = X, m = out features, n = rows of X. Results are
compared with a float64 torch reference computed from the same (rounded) inputs, by
relative Frobenius error with a tolerance set by the output type.

The GPU tests carry the `cuda` marker and skip without nvmath-python or a CUDA device;
the few tests at the end need neither and run everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Operand, Order, Transpose
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.runtime.cuda_cublaslt import (
    CublasLtMatmulPlan,
    CublasLtPlanError,
    cublaslt_available,
    cublaslt_handle,
    operand_bytes,
)
from lumir.runtime.cuda_graph import CudaGraphProgram
from lumir.runtime.layouts import MatrixLayout, matrix_layout
from lumir.runtime.padded_output import padded_problem, stage_a, staged_a, unstage

needs_gpu = pytest.mark.skipif(
    not cublaslt_available(), reason="needs nvmath-python and a CUDA device"
)

TORCH_DTYPE = {
    DataType.F32: torch.float32,
    DataType.F16: torch.float16,
    DataType.BF16: torch.bfloat16,
}
# Relative Frobenius error allowed for an output of this type: output rounding dominates
# (f16 eps 2^-11, bf16 eps 2^-8); f32 under COMPUTE_32F accumulates in true fp32.
TOLERANCE = {DataType.F32: 1e-5, DataType.F16: 2e-3, DataType.BF16: 1e-2}
DTYPES = [DataType.F32, DataType.F16, DataType.BF16]

# Deliberately not powers of two; M is n in cuBLASLt's view, so it may be odd.
M, K, N = 37, 192, 160


def linear_descriptor(
    dtype: DataType,
    *,
    rows: int = M,
    k: int = K,
    out_features: int = N,
    out_dtype: DataType | None = None,
    weight: str = "nk",
    batch: int = 1,
    weight_batched: bool = False,
    alpha: float = 1.0,
    beta: float = 0.0,
    epilogue: Epilogue = Epilogue.DEFAULT,
) -> MatmulDescriptor:
    """The descriptor of `Y[.., rows, out] = X[.., rows, k] @ op(W)` with A = W, B = X.

    `weight="nk"` is a Linear weight W[out, k] (transa = T, lda = k); `weight="kn"` is a
    plain right operand W[k, out] (transa = N, lda = out).
    """
    out_dtype = out_dtype or dtype
    batched = batch > 1
    return MatmulDescriptor(
        transa=Transpose.T if weight == "nk" else Transpose.N,
        transb=Transpose.N,
        order_a=Order.COL,
        order_b=Order.COL,
        order_c=Order.COL,
        order_d=Order.COL,
        m=out_features,
        n=rows,
        k=k,
        lda=k if weight == "nk" else out_features,
        ldb=k,
        ldc=out_features,
        ldd=out_features,
        batch_count=batch,
        stride_a=out_features * k if batched and weight_batched else 0,
        stride_b=rows * k if batched else 0,
        stride_c=rows * out_features if batched else 0,
        stride_d=rows * out_features if batched else 0,
        a_dtype=dtype,
        b_dtype=dtype,
        c_dtype=out_dtype,
        d_dtype=out_dtype,
        compute_type=ComputeType.COMPUTE_32F,
        scale_type=DataType.F32,
        alpha=alpha,
        beta=beta,
        epilogue=epilogue,
    )


def as_buffer(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor's bytes as a flat uint8 buffer sharing its memory."""
    return tensor.contiguous().view(-1).view(torch.uint8)


def random(shape: tuple[int, ...], dtype: DataType, scale: float = 1.0) -> torch.Tensor:
    return (torch.randn(shape, device="cuda", dtype=torch.float64) * scale).to(TORCH_DTYPE[dtype])


def reference(
    x: torch.Tensor,
    w: torch.Tensor,
    desc: MatmulDescriptor,
    c: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
) -> torch.Tensor:
    """What cuBLASLt should compute, in float64: act(alpha * X op(W) + beta * C + bias)."""
    w64 = w.double()
    y = x.double() @ (w64.transpose(-1, -2) if desc.transa is Transpose.T else w64)
    y = desc.alpha * y
    if c is not None:
        y = y + desc.beta * c.double()
    if bias is not None:
        y = y + bias.double()
    if desc.epilogue.activation == "relu":
        y = torch.relu(y)
    elif desc.epilogue.activation == "gelu":
        y = torch.nn.functional.gelu(y, approximate="tanh")
    return y


def run_matmul(
    desc: MatmulDescriptor,
    x: torch.Tensor,
    w: torch.Tensor,
    out_shape: tuple[int, ...],
    c: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
) -> torch.Tensor:
    d = torch.empty(operand_bytes(desc, Operand.D), dtype=torch.uint8, device="cuda")
    with CublasLtMatmulPlan(
        desc,
        as_buffer(w),
        as_buffer(x),
        d,
        c=None if c is None else as_buffer(c),
        bias=None if bias is None else as_buffer(bias),
    ) as plan:
        plan.run()
    torch.cuda.synchronize()
    return d.view(TORCH_DTYPE[desc.d_dtype]).view(out_shape)


def assert_close(out: torch.Tensor, ref: torch.Tensor, dtype: DataType) -> None:
    """Relative Frobenius error below the dtype's tolerance.

    With LUMIR_ERR_LOG set, each test's error is appended to that file, so a GPU run
    reports how much headroom every tolerance has.
    """
    tolerance = TOLERANCE[dtype]
    err = ((out.double() - ref).norm() / ref.norm()).item()
    log = os.environ.get("LUMIR_ERR_LOG")
    if log:
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
        with open(log, "a") as file:
            file.write(f"{err:.3e} {tolerance:.0e} {test}\n")
    assert err < tolerance, f"relative error {err:.3e} >= {tolerance:.0e}"


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("weight", ["nk", "kn"], ids=["T/N-linear", "N/N"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_plain(dtype: DataType, weight: str) -> None:
    desc = linear_descriptor(dtype, weight=weight)
    x = random((M, K), dtype)
    w = random((N, K) if weight == "nk" else (K, N), dtype, K**-0.5)
    out = run_matmul(desc, x, w, (M, N))
    assert_close(out, reference(x, w, desc), dtype)


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("rows, k", [(M, K), (64, 32768)], ids=["small", "long-k"])
def test_a_plan_built_with_a_workspace_budget_runs_once_bound(rows: int, k: int) -> None:
    """`workspace_bytes`: the heuristic chooses within the budget, the plan holds no
    workspace until one of at least the algorithm's need is bound (a long k is where
    cuBLASLt picks split-K algorithms that need one)."""
    dtype = DataType.BF16
    desc = linear_descriptor(dtype, rows=rows, k=k, out_features=64)
    x, w = random((rows, k), dtype), random((64, k), dtype, k**-0.5)
    d = torch.empty(operand_bytes(desc, Operand.D), dtype=torch.uint8, device="cuda")
    budget = 1 << 25
    with CublasLtMatmulPlan(desc, as_buffer(w), as_buffer(x), d, workspace_bytes=budget) as plan:
        need = plan.algorithm_workspace_bytes
        assert plan.workspace is None and 0 <= need <= budget
        if need:
            with pytest.raises(RuntimeError, match="before bind_workspace"):
                plan.run()
            short = torch.empty(need - 1, dtype=torch.uint8, device="cuda")
            with pytest.raises(ValueError, match=f"needs {need}"):
                plan.bind_workspace(short)
        plan.bind_workspace(torch.empty(need, dtype=torch.uint8, device="cuda"))
        plan.run()
        torch.cuda.synchronize()
    out = d.view(torch.bfloat16).view(rows, 64)
    assert_close(out, reference(x, w, desc), dtype)


@pytest.mark.cuda
@needs_gpu
def test_a_workspace_budget_excludes_a_workspace() -> None:
    desc = linear_descriptor(DataType.F32)
    x, w = random((M, K), DataType.F32), random((N, K), DataType.F32)
    d = torch.empty(operand_bytes(desc, Operand.D), dtype=torch.uint8, device="cuda")
    workspace = torch.empty(1024, dtype=torch.uint8, device="cuda")
    with pytest.raises(ValueError, match="workspace_bytes replaces a workspace"):
        CublasLtMatmulPlan(
            desc, as_buffer(w), as_buffer(x), d, workspace=workspace, workspace_bytes=1024
        )


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_alpha(dtype: DataType) -> None:
    desc = linear_descriptor(dtype, alpha=-0.375)
    x, w = random((M, K), dtype), random((N, K), dtype, K**-0.5)
    assert_close(run_matmul(desc, x, w, (M, N)), reference(x, w, desc), dtype)


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_residual_beta_one(dtype: DataType) -> None:
    desc = linear_descriptor(dtype, beta=1.0)
    x, w, r = random((M, K), dtype), random((N, K), dtype, K**-0.5), random((M, N), dtype)
    out = run_matmul(desc, x, w, (M, N), c=r)
    assert_close(out, reference(x, w, desc, c=r), dtype)


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize(
    "epilogue",
    [Epilogue.BIAS, Epilogue.RELU, Epilogue.RELU_BIAS, Epilogue.GELU, Epilogue.GELU_BIAS],
    ids=str,
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_epilogue(dtype: DataType, epilogue: Epilogue) -> None:
    desc = linear_descriptor(dtype, epilogue=epilogue)
    x, w = random((M, K), dtype), random((N, K), dtype, K**-0.5)
    bias = random((N,), dtype) if epilogue.reads_bias else None
    out = run_matmul(desc, x, w, (M, N), bias=bias)
    assert_close(out, reference(x, w, desc, bias=bias), dtype)


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("beta", [0.0, 1.0])
def test_bf16_inputs_f32_output(beta: float) -> None:
    desc = linear_descriptor(DataType.BF16, out_dtype=DataType.F32, beta=beta)
    x, w = random((M, K), DataType.BF16), random((N, K), DataType.BF16, K**-0.5)
    c = random((M, N), DataType.F32) if beta else None
    out = run_matmul(desc, x, w, (M, N), c=c)
    assert out.dtype == torch.float32
    assert_close(out, reference(x, w, desc, c=c), DataType.F32)


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("weight_batched", [True, False], ids=["3d-weight", "2d-weight-stride0"])
@pytest.mark.parametrize("dtype", [DataType.F32, DataType.BF16])
def test_batched(dtype: DataType, weight_batched: bool) -> None:
    batch = 3
    desc = linear_descriptor(dtype, batch=batch, weight_batched=weight_batched, beta=1.0)
    x = random((batch, M, K), dtype)
    w = random((batch, N, K) if weight_batched else (N, K), dtype, K**-0.5)
    r = random((batch, M, N), dtype)
    out = run_matmul(desc, x, w, (batch, M, N), c=r)
    assert_close(out, reference(x, w, desc, c=r), dtype)


@pytest.mark.cuda
@needs_gpu
def test_in_place_residual() -> None:
    """C and D may be one buffer: the residual add of a decoder layer done in place."""
    dtype = DataType.BF16
    desc = linear_descriptor(dtype, beta=1.0)
    x, w, r = random((M, K), dtype), random((N, K), dtype, K**-0.5), random((M, N), dtype)
    expected = reference(x, w, desc, c=r)
    buffer = as_buffer(r)
    with CublasLtMatmulPlan(desc, as_buffer(w), as_buffer(x), buffer, c=buffer) as plan:
        plan.run()
    torch.cuda.synchronize()
    assert_close(r, expected, dtype)


@pytest.mark.cuda
@needs_gpu
def test_misaligned_operand_pointer() -> None:
    """A buffer that starts 2 bytes into an allocation must still give the right answer.

    The plan tells the heuristic the real alignment, so it must not pick a kernel that
    assumes cuBLASLt's default of 256 bytes.
    """
    dtype = DataType.BF16
    desc = linear_descriptor(dtype)
    x, w = random((M, K), dtype), random((N, K), dtype, K**-0.5)
    storage = torch.empty(x.numel() * 2 + 2, dtype=torch.uint8, device="cuda")
    x_buffer = storage[2:]
    x_buffer.copy_(as_buffer(x))
    d = torch.empty(operand_bytes(desc, Operand.D), dtype=torch.uint8, device="cuda")
    with CublasLtMatmulPlan(desc, as_buffer(w), x_buffer, d) as plan:
        assert plan.alignments[Operand.B] == 2
        plan.run()
    torch.cuda.synchronize()
    assert_close(d.view(torch.bfloat16).view(M, N), reference(x, w, desc), dtype)


@pytest.mark.cuda
@needs_gpu
def test_row_order_weight() -> None:
    """A Linear weight read in ROW order (N x K row-major, transa = N) equals the T/N form."""
    dtype = DataType.BF16
    desc = replace(linear_descriptor(dtype), order_a=Order.ROW, transa=Transpose.N, lda=K)
    x, w = random((M, K), dtype), random((N, K), dtype, K**-0.5)
    try:
        out = run_matmul(desc, x, w, (M, N))
    except CublasLtPlanError as error:
        pytest.skip(f"this cuBLASLt does not run ROW-order A: {error}")
    assert_close(out, reference(x, w, linear_descriptor(dtype)), dtype)


@pytest.mark.cuda
@needs_gpu
def test_bias_with_f32_output() -> None:
    """bf16 inputs, f32 output: the bias takes D's type (f32), cuBLASLt's default."""
    desc = linear_descriptor(DataType.BF16, out_dtype=DataType.F32, epilogue=Epilogue.BIAS)
    x, w = random((M, K), DataType.BF16), random((N, K), DataType.BF16, K**-0.5)
    bias = random((N,), DataType.F32)
    out = run_matmul(desc, x, w, (M, N), bias=bias)
    assert_close(out, reference(x, w, desc, bias=bias), DataType.F32)


@pytest.mark.cuda
@needs_gpu
def test_bias_of_other_type_than_d_is_rejected() -> None:
    """A bf16 bias with an f32 D is refused (CUBLAS_STATUS_INVALID_VALUE on cuBLASLt
    13.1): outside FP8, the bias must have D's type, so the lowering must cast it."""
    desc = linear_descriptor(DataType.BF16, out_dtype=DataType.F32, epilogue=Epilogue.BIAS)
    d = torch.empty(operand_bytes(desc, Operand.D), dtype=torch.uint8, device="cuda")
    a = torch.empty(operand_bytes(desc, Operand.A), dtype=torch.uint8, device="cuda")
    b = torch.empty(operand_bytes(desc, Operand.B), dtype=torch.uint8, device="cuda")
    bias = torch.empty(N * 2, dtype=torch.uint8, device="cuda")
    with pytest.raises(CublasLtPlanError, match=r"descriptor: MatmulDescriptor\("):
        CublasLtMatmulPlan(desc, a, b, d, bias=bias, bias_dtype=DataType.BF16)


@pytest.mark.cuda
@needs_gpu
def test_unsupported_descriptor_names_it() -> None:
    """COMPUTE_16F over bf16 operands has no kernel: the error must name the descriptor."""
    desc = replace(
        linear_descriptor(DataType.BF16),
        compute_type=ComputeType.COMPUTE_16F,
        scale_type=DataType.F16,
    )
    x, w = random((M, K), DataType.BF16), random((N, K), DataType.BF16)
    d = torch.empty(operand_bytes(desc, Operand.D), dtype=torch.uint8, device="cuda")
    with pytest.raises(CublasLtPlanError, match=r"descriptor: MatmulDescriptor\("):
        CublasLtMatmulPlan(desc, as_buffer(w), as_buffer(x), d)


@pytest.mark.cuda
@needs_gpu
def test_one_handle_per_device() -> None:
    assert cublaslt_handle(0) == cublaslt_handle(torch.device("cuda", 0))


@pytest.mark.cuda
@needs_gpu
def test_cuda_graph_capture_and_replay() -> None:
    """Linear+GELU_BIAS, a torch op, then Linear with an in-graph residual, as one graph.

    Replays with fresh inputs copied into the static input must match the same launches
    run eagerly, bit for bit, and the float64 reference; closing the plans (host-side
    cuBLASLt objects) after capture must not disturb later replays.
    """
    dtype = DataType.BF16
    rows, hidden, inner = 6, 256, 512
    up = linear_descriptor(
        dtype, rows=rows, k=hidden, out_features=inner, epilogue=Epilogue.GELU_BIAS
    )
    down = linear_descriptor(dtype, rows=rows, k=inner, out_features=hidden, beta=1.0)
    w_up, b_up = random((inner, hidden), dtype, hidden**-0.5), random((inner,), dtype)
    w_down = random((hidden, inner), dtype, inner**-0.5)

    x = torch.zeros(rows, hidden, dtype=torch.bfloat16, device="cuda")
    h = torch.empty(rows, inner, dtype=torch.bfloat16, device="cuda")
    h_half = torch.empty_like(h)
    y = torch.empty(rows, hidden, dtype=torch.bfloat16, device="cuda")
    plan_up = CublasLtMatmulPlan(
        up, as_buffer(w_up), as_buffer(x), as_buffer(h), bias=as_buffer(b_up)
    )
    plan_down = CublasLtMatmulPlan(
        down, as_buffer(w_down), as_buffer(h_half), as_buffer(y), c=as_buffer(x)
    )
    launches = [plan_up.run, lambda: torch.mul(h, 0.5, out=h_half), plan_down.run]

    def expected(inp: torch.Tensor) -> torch.Tensor:
        hid = torch.nn.functional.gelu(
            inp.double() @ w_up.double().T + b_up.double(), approximate="tanh"
        )
        return 0.5 * hid @ w_down.double().T + inp.double()

    with CudaGraphProgram(launches, warmup=2) as program:
        for trial in range(3):
            if trial == 2:
                plan_up.close()
                plan_down.close()
            inp = random((rows, hidden), dtype)
            x.copy_(inp)
            program.replay()
            torch.cuda.synchronize()
            replayed = y.clone()
            if trial < 2:
                program.run_eager()
                torch.cuda.synchronize()
                assert torch.equal(replayed, y), "graph replay differs from eager launches"
            assert_close(replayed, expected(inp), DataType.BF16)


# --- No GPU needed -----------------------------------------------------------------


def test_import_does_not_load_nvmath() -> None:
    """lumir must import on machines without CUDA: the CUDA modules load nvmath lazily."""
    root = Path(__file__).resolve().parents[2]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    )
    code = (
        "import sys, lumir.runtime.cuda_cublaslt, lumir.runtime.cuda_graph;"
        "assert 'nvmath' not in sys.modules, sorted(m for m in sys.modules if 'nvmath' in m)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=root)


def test_layouts_follow_conventions() -> None:
    """rows/cols/ld of each layout per docs/conventions.md, and the bytes each reaches."""
    linear = linear_descriptor(DataType.BF16)
    assert matrix_layout(linear, Operand.A) == MatrixLayout(DataType.BF16, K, N, K, Order.COL, 1, 0)
    plain = linear_descriptor(DataType.F32, weight="kn")
    assert (matrix_layout(plain, Operand.A).rows, matrix_layout(plain, Operand.A).cols) == (N, K)
    assert (matrix_layout(plain, Operand.B).rows, matrix_layout(plain, Operand.B).cols) == (K, M)
    assert operand_bytes(linear, Operand.A) == N * K * 2
    assert operand_bytes(linear, Operand.D) == M * N * 2
    batched = linear_descriptor(DataType.F32, batch=3)
    assert operand_bytes(batched, Operand.A) == N * K * 4  # stride 0: one matrix
    assert operand_bytes(batched, Operand.B) == 3 * M * K * 4


def test_rejects_short_and_host_buffers() -> None:
    """Buffer checks run before any CUDA call, so they hold on machines without a GPU."""
    desc = linear_descriptor(DataType.BF16)

    def buffer(operand: Operand, spare: int = 0) -> torch.Tensor:
        return torch.empty(operand_bytes(desc, operand) + spare, dtype=torch.uint8)

    short = buffer(Operand.B)[:-1]
    with pytest.raises(ValueError, match="operand B: the descriptor reaches"):
        CublasLtMatmulPlan(desc, buffer(Operand.A), short, buffer(Operand.D))
    with pytest.raises(ValueError, match="operand A: expected a CUDA buffer"):
        CublasLtMatmulPlan(desc, buffer(Operand.A), buffer(Operand.B), buffer(Operand.D))
    with pytest.raises(ValueError, match="reads C, but no C buffer"):
        CublasLtMatmulPlan(
            replace(desc, beta=1.0), buffer(Operand.A), buffer(Operand.B), buffer(Operand.D)
        )
    with pytest.raises(ValueError, match="needs a bias buffer"):
        CublasLtMatmulPlan(
            replace(desc, epilogue=Epilogue.BIAS),
            buffer(Operand.A),
            buffer(Operand.B),
            buffer(Operand.D),
        )


def test_a_ragged_m_runs_padded_only_where_it_pays() -> None:
    """GPT-2's lm_head (50257 bf16 logits a row) runs as m = 50264 with A staged and D
    copied out; a round m, a small D, a read C, a bias, a transa-N or an f32 A do not."""
    lm_head = linear_descriptor(DataType.BF16, rows=1024, k=64, out_features=50257)
    problem = padded_problem(lm_head, has_c=False, reads_bias=False)
    assert problem is not None
    assert (problem.descriptor.m, problem.descriptor.ldd, problem.descriptor.lda) == (
        50264,
        50264,
        64,
    )
    assert problem.a_bytes == 50257 * 64 * 2
    round_m = replace(lm_head, m=50264, ldc=50264, ldd=50264)
    assert padded_problem(round_m, False, False) is None
    assert padded_problem(replace(lm_head, n=8), False, False) is None  # below MIN_ELEMENTS
    assert padded_problem(replace(lm_head, beta=1.0), True, False) is None
    assert padded_problem(lm_head, has_c=False, reads_bias=True) is None
    plain = linear_descriptor(DataType.BF16, rows=1024, k=64, out_features=50257, weight="kn")
    assert padded_problem(plain, False, False) is None
    f32_out = linear_descriptor(
        DataType.BF16, rows=1024, k=64, out_features=4099, out_dtype=DataType.F32
    )
    assert padded_problem(f32_out, False, False).descriptor.m == 4104  # type: ignore[union-attr]
    f32 = linear_descriptor(DataType.F32, rows=1024, k=64, out_features=4099)
    assert padded_problem(f32, False, False) is None  # not measured: runs as it is


def test_staging_copies_a_in_and_the_first_m_rows_out() -> None:
    desc = linear_descriptor(DataType.BF16, rows=300, k=8, out_features=4099)
    problem = padded_problem(desc, has_c=False, reads_bias=False)
    assert problem is not None
    weight = torch.randn(4099, 8).to(torch.bfloat16)
    staged = staged_a(problem, torch.device("cpu"))
    stage_a(problem, as_buffer(weight), staged)
    staged_rows = staged.view(torch.bfloat16).view(problem.descriptor.m, 8)
    assert torch.equal(staged_rows[:4099], weight) and not staged_rows[4099:].any()
    values = torch.randn(300, problem.descriptor.m).to(torch.bfloat16)
    d = torch.zeros(operand_bytes(desc, Operand.D), dtype=torch.uint8)
    unstage(problem, desc, as_buffer(values), d)
    assert torch.equal(d.view(torch.bfloat16).view(300, 4099), values[:, :4099])


@pytest.mark.cuda
@needs_gpu
def test_a_plan_with_a_ragged_m_computes_through_the_padded_problem() -> None:
    """Into its own D, into a fresh D (run_into) and replayed in a CUDA graph."""
    desc = linear_descriptor(DataType.BF16, rows=512, k=256, out_features=4099)
    x, w = random((512, 256), DataType.BF16), random((4099, 256), DataType.BF16, 256**-0.5)
    d = torch.full((operand_bytes(desc, Operand.D),), 255, dtype=torch.uint8, device="cuda")
    with CublasLtMatmulPlan(desc, as_buffer(w), as_buffer(x), d) as plan:
        assert plan.padded is not None
        plan.run()
        fresh = torch.empty_like(d)
        plan.run_into(fresh)
        graph = torch.cuda.CUDAGraph()
        replayed = torch.empty_like(d)
        with torch.cuda.graph(graph):
            plan.run_into(replayed)
        w.mul_(2)  # A is staged on every run: a replay reads the weight as it is now
        graph.replay()
    torch.cuda.synchronize()
    want = reference(x, w, desc)
    assert_close(replayed.view(torch.bfloat16).view(512, 4099), want, DataType.BF16)
    for out in (d, fresh):
        assert_close(out.view(torch.bfloat16).view(512, 4099), want / 2, DataType.BF16)
