"""`lumir.runtime.load`: the program API, its errors, determinism, and the CUDA path.

The CUDA tests carry the `cuda` marker and skip without nvmath-python or a GPU; they
run the same lowered programs on cuBLASLt (eagerly and replayed from a CUDA graph) and
compare them with the CPU reference executor.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from lumir.diagnostics import LumirDiagnosticError
from lumir.dialects.hl import HL
from lumir.runtime import DeviceUnavailableError, load
from lumir.runtime.cuda_cublaslt import cublaslt_available
from lumir.runtime.hl_torch import KERNELS
from lumir.testing.processes import lumir_opt_outputs

REPO = Path(__file__).resolve().parents[2]

needs_gpu = pytest.mark.skipif(
    not cublaslt_available(), reason="needs nvmath-python and a CUDA device"
)

MLP = """
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
  order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
  order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
  m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64,
  ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64,
  stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
  a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
  c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
  compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
  alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue gelu_bias>,
  workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype f32>}
func.func @mlp(%x: memref<8x16xf32>, %w: memref<32x16xf32>, %b: memref<32xf32>,
               %r: memref<8x32xf32>) -> (memref<8x32xf32>, memref<8xf32>, memref<8x16xf32>) {
  %y = cublaslt_rt.alloc : memref<8x32xf32>
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xf32>) b(%x : memref<8x16xf32>)
      c(%r : memref<8x32xf32>) bias(%b : memref<32xf32>) d(%y : memref<8x32xf32>)
  %half = cublaslt_rt.constant {value = dense<0.5> : tensor<f32>} : memref<f32>
  %s = cublaslt_rt.alloc : memref<8x32xf32>
  cublaslt_rt.launch "hl.mul" ins(%y, %half : memref<8x32xf32>, memref<f32>)
      outs(%s : memref<8x32xf32>)
  %m = cublaslt_rt.alloc : memref<8xf32>
  cublaslt_rt.launch "hl.amax" {dims = array<i64: 1>} ins(%s : memref<8x32xf32>)
      outs(%m : memref<8xf32>)
  func.return %s, %m, %x : memref<8x32xf32>, memref<8xf32>, memref<8x16xf32>
}
"""


def mlp_inputs(seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    shapes = [(8, 16), (32, 16), (32,), (8, 32)]
    return [torch.randn(shape, generator=generator) for shape in shapes]


def mlp_expected(
    x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, r: torch.Tensor
) -> tuple[torch.Tensor, ...]:
    """gelu_tanh(X W^T + R + b) / 2, its row maxima, and X itself."""
    y = torch.nn.functional.gelu(x @ w.T + r + b, approximate="tanh") * 0.5
    return y, y.amax(dim=1), x


def test_program_runs_plans_launches_and_constants() -> None:
    program = load(MLP)
    inputs = mlp_inputs(0)
    results = program(*inputs)
    assert isinstance(results, tuple) and len(results) == 3
    for got, want in zip(results, mlp_expected(*inputs), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert program.name == "mlp" and len(program.plans) == 1 and len(program.launches) == 3


def test_program_is_reusable_and_returns_copies() -> None:
    program = load(MLP)
    first_inputs, second_inputs = mlp_inputs(1), mlp_inputs(2)
    first = program(*first_inputs)
    kept = [t.clone() for t in first]
    second = program(*second_inputs)
    for got, want in zip(first, kept, strict=True):
        assert torch.equal(got, want)  # the second call did not overwrite the first's results
    for got, want in zip(second, mlp_expected(*second_inputs), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_a_closed_program_refuses_to_run() -> None:
    program = load(MLP)
    program.close()
    program.close()
    with pytest.raises(RuntimeError, match="program @mlp was closed"):
        program(*mlp_inputs(0))


def test_inputs_must_match_the_signature() -> None:
    program = load(MLP)
    x, w, b, r = mlp_inputs(0)
    with pytest.raises(ValueError, match="takes 4 inputs, got 3"):
        program(x, w, b)
    with pytest.raises(ValueError, match=r"input 0 must be torch.float32 of shape \[8, 16\]"):
        program(x.double(), w, b, r)
    with pytest.raises(ValueError, match=r"input 3 must be torch.float32 of shape \[8, 32\]"):
        program(x, w, b, r.T)


def test_unlowered_module_is_refused_with_a_hint() -> None:
    text = """
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = hl.relu %x : tensor<4xf32> -> tensor<4xf32>
      func.return %y : tensor<4xf32>
    }
    """
    with pytest.raises(LumirDiagnosticError, match="run lower-to-cublaslt-rt"):
        load(text)


def test_verifier_errors_are_located() -> None:
    text = MLP.replace('"hl.amax" {dims = array<i64: 1>}', '"hl.amax" {dims = array<i64: 2>}')
    with pytest.raises(LumirDiagnosticError) as caught:
        load(text)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.location is not None and diagnostic.location.line == 23
    assert "dimension 2 is out of range for rank 2" in diagnostic.message


def test_an_embedding_index_out_of_range_is_located_at_run_time() -> None:
    """The indices are data, so only the run can see one outside the table."""
    text = """
    func.func @f(%w: memref<4x2xf32>, %i: memref<2xi64>) -> memref<2x2xf32> {
      %e = cublaslt_rt.alloc : memref<2x2xf32>
      cublaslt_rt.launch "hl.embedding" ins(%w, %i : memref<4x2xf32>, memref<2xi64>)
          outs(%e : memref<2x2xf32>)
      func.return %e : memref<2x2xf32>
    }
    """
    program = load(text)
    table = torch.randn(4, 2)
    assert torch.equal(program(table, torch.tensor([3, 0])), table[[3, 0]])
    with pytest.raises(LumirDiagnosticError) as caught:
        program(table, torch.tensor([1, 9]))
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.location is not None and diagnostic.location.line == 4
    assert "index out of range" in diagnostic.message


def test_unknown_device_is_refused() -> None:
    with pytest.raises(DeviceUnavailableError, match="'cpu' or 'cuda', not 'meta'"):
        load(MLP, device="meta")


@pytest.mark.skipif(cublaslt_available(), reason="checks the message on machines without CUDA")
def test_cuda_without_gpu_says_so() -> None:
    with pytest.raises(DeviceUnavailableError, match="needs an NVIDIA GPU"):
        load(MLP, device="cuda")


def test_every_hl_op_has_a_kernel() -> None:
    """The hl dialect and the torch kernel table stay in step.

    Constants are data; hl.fused / hl.yield are structure (fused_reference runs a body).
    """
    kernels = {op.name for op in HL.operations} - {"hl.constant", "hl.fused", "hl.yield"}
    assert kernels == set(KERNELS)


def test_lowering_is_byte_identical_across_processes() -> None:
    """Plan names, order and printing do not depend on hashing or dict order."""
    source = REPO / "test" / "lit" / "lower-to-cublaslt-rt" / "plans.mlir"
    arguments = [str(source), "-p", "lower-to-cublaslt-rt", "--split-input-file"]
    outputs = lumir_opt_outputs(arguments, ("0", "1", "12345"), cwd=REPO)
    assert len(outputs) == 1
    assert "cublaslt_rt.plan @plan0" in outputs.pop()


# --- CUDA ------------------------------------------------------------------------------


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("cuda_graph", [False, True], ids=["eager", "graph"])
def test_cuda_program_matches_cpu(cuda_graph: bool) -> None:
    cpu = load(MLP)
    gpu = load(MLP, device="cuda", cuda_graph=cuda_graph)
    for seed in (0, 1):  # a second call replays with new inputs
        inputs = mlp_inputs(seed)
        want = cpu(*inputs)
        got = gpu(*[t.cuda() for t in inputs])
        for g, w in zip(got, want, strict=True):
            assert g.is_cuda
            torch.testing.assert_close(g.cpu(), w, rtol=1e-4, atol=1e-4)
    gpu.close()


@pytest.mark.cuda
@needs_gpu
def test_cuda_bug_is_refused_when_the_plan_is_built() -> None:
    """C declared f32 over a bf16 buffer: the CUDA plan sees C's layout overrun its buffer."""
    text = MLP.replace("%r: memref<8x32xf32>", "%r: memref<8x32xbf16>").replace(
        "c(%r : memref<8x32xf32>)", "c(%r : memref<8x32xbf16>)"
    )
    with pytest.raises(LumirDiagnosticError, match=r"'cublaslt_rt\.matmul' @plan0: operand C"):
        load(text, device="cuda", verify=False)


@pytest.mark.cuda
@needs_gpu
def test_cuda_programs_share_one_workspace() -> None:
    """Two programs (say, two partitions of one model) hold one cuBLASLt workspace."""
    first = load(MLP, device="cuda", cuda_graph=False)
    second = load(MLP, device="cuda", cuda_graph=False)
    pointers = {plan.workspace.data_ptr() for plan in (*first.plans, *second.plans)}
    assert len(pointers) == 1
    inputs = [t.cuda() for t in mlp_inputs(0)]
    for got, want in zip(first(*inputs), second(*inputs), strict=True):
        assert torch.equal(got, want)
    first.close()
    second.close()


@pytest.mark.cuda
@needs_gpu
def test_a_cuda_program_holds_the_workspace_its_algorithms_need(monkeypatch) -> None:
    """The process's workspace grows to the largest need of the chosen algorithms, not
    to the 32 MiB each plan may use: it is memory every call holds."""
    from lumir.runtime import cuda_cublaslt

    monkeypatch.setattr(cuda_cublaslt, "_workspaces", {})  # as in a fresh process
    program = load(MLP, device="cuda", cuda_graph=False)
    plans = [plan for plan in program.plans if isinstance(plan, cuda_cublaslt.CublasLtMatmulPlan)]
    assert plans
    needed = max(plan.algorithm_workspace_bytes for plan in plans)
    assert {plan.workspace.numel() for plan in plans} == {needed}
    inputs = mlp_inputs(0)
    for got, want in zip(program(*[t.cuda() for t in inputs]), load(MLP)(*inputs), strict=True):
        torch.testing.assert_close(got.cpu(), want, rtol=1e-4, atol=1e-4)
    program.close()


CACHE_AND_COUNTER = """
func.func @step(%cache: memref<1x2x8x4xbf16>, %pos: memref<1xi64>, %kv: memref<1x2x1x4xbf16>,
                %count: memref<1xi64>, %one: memref<1xi64>)
    -> (memref<1x2x8x4xbf16>, memref<1xi64>) {
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64}
      ins(%cache, %pos, %kv : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>)
      outs(%cache : memref<1x2x8x4xbf16>)
  cublaslt_rt.launch "hl.add" ins(%count, %one : memref<1xi64>, memref<1xi64>)
      outs(%count : memref<1xi64>)
  func.return %cache, %count : memref<1x2x8x4xbf16>, memref<1xi64>
}
"""


@pytest.mark.cuda
@needs_gpu
def test_a_program_updating_bound_tensors_in_place_runs_once_per_call() -> None:
    """A KV cache and a length counter bound by address and updated in place: loading
    runs nothing (the input buffers hold no call's values yet), and the call that
    captures the CUDA graph updates them once, as every replay after it does."""
    cache = torch.zeros(1, 2, 8, 4, dtype=torch.bfloat16, device="cuda")
    count = torch.zeros(1, dtype=torch.int64, device="cuda")
    program = load(CACHE_AND_COUNTER, device="cuda", static_inputs={0: cache, 3: count})
    torch.cuda.synchronize()
    assert not program.captured
    assert not cache.any() and count.item() == 0
    expected = torch.zeros_like(cache)
    for position in (5, 2, 7):
        kv = torch.full((1, 2, 1, 4), float(position), dtype=torch.bfloat16, device="cuda")
        one = torch.ones(1, dtype=torch.int64, device="cuda")
        program(torch.tensor([position], device="cuda"), kv, one)
        expected[:, :, position] = position
        assert program.captured
        assert torch.equal(cache, expected)
        assert count.item() == (5, 2, 7).index(position) + 1
    program.close()
