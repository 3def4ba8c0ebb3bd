"""Fresh outputs: a result written by a trailing matmul and nothing else is computed
into a tensor allocated for the call and handed over without a copy
(`lumir.runtime.fresh_outputs`).

The CPU tests check which results qualify (and that every doubtful one keeps its
buffer), that a fresh output is bit for bit what the buffer-and-copy path returns, and
that calls never share or overwrite one another's results, through `load` and through
the torch.compile backend. The `cuda` tests check the same on cuBLASLt and the GEMV,
and that the program holds no buffer for a large fresh output: a call's peak memory
rises by one output, not two.
"""

from __future__ import annotations

import functools

import pytest
import torch
from xdsl.dialects.func import FuncOp

from lumir.backend import partition as partition_module
from lumir.backend import stats
from lumir.parsing import parse_module_text
from lumir.runtime import fresh_outputs, load
from lumir.runtime.cuda_cublaslt import cublaslt_available
from lumir.runtime.fresh_outputs import find_fresh_outputs
from lumir.runtime.plans import TailLaunch
from lumir.testing.programs import compile_text, seeded_inputs

needs_gpu = pytest.mark.skipif(
    not cublaslt_available(), reason="needs nvmath-python and a CUDA device"
)


def _plan(name: str, m: int, n: int, k: int, beta: float = 0.0) -> str:
    """A f32 plan computing D (n x m, row-major) = B (n x k) W^T (W: m x k)."""
    return f"""
cublaslt_rt.plan {name} {{transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
  order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
  order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
  m = {m} : i64, n = {n} : i64, k = {k} : i64, lda = {k} : i64, ldb = {k} : i64,
  ldc = {m} : i64, ldd = {m} : i64, batch_count = 1 : i64, stride_a = 0 : i64,
  stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
  a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
  c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
  compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
  alpha = 1.0 : f64, beta = {beta} : f64, epilogue = #cublaslt<epilogue default>,
  workspace_size = 0 : i64, algorithm = "heuristic"}}"""


PLANS = _plan("@p", 16, 4, 8) + _plan("@q", 16, 4, 16)
ARGS = "%x: memref<4x8xf32>, %w: memref<16x8xf32>"

ELIGIBLE = (
    PLANS
    + f"""
func.func @f({ARGS}) -> memref<1x4x16xf32> {{
  %r = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.launch "hl.relu" ins(%x : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  %y = cublaslt_rt.alloc : memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%r : memref<4x8xf32>) d(%y : memref<4x16xf32>)
  %v = cublaslt_rt.view %y {{byte_offset = 0 : i64}} : memref<4x16xf32> -> memref<1x4x16xf32>
  func.return %v : memref<1x4x16xf32>
}}"""
)
"""The lm_head's shape: a launch, then the matmul, its D returned through a reshape."""

NOT_ELIGIBLE = {
    "d-read-by-a-later-launch": PLANS
    + f"""
func.func @f({ARGS}) -> (memref<4x16xf32>, memref<4x16xf32>) {{
  %y = cublaslt_rt.alloc : memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%x : memref<4x8xf32>) d(%y : memref<4x16xf32>)
  %z = cublaslt_rt.alloc : memref<4x16xf32>
  cublaslt_rt.launch "hl.relu" ins(%y : memref<4x16xf32>) outs(%z : memref<4x16xf32>)
  func.return %y, %z : memref<4x16xf32>, memref<4x16xf32>
}}""",
    "buffer-shared-with-another-value": PLANS
    + f"""
func.func @f({ARGS}) -> memref<4x16xf32> {{
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %r = cublaslt_rt.view %arena {{byte_offset = 0 : i64}} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.launch "hl.relu" ins(%x : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  %s = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.launch "hl.neg" ins(%r : memref<4x8xf32>) outs(%s : memref<4x8xf32>)
  %y = cublaslt_rt.view %arena {{byte_offset = 0 : i64}} : memref<256xi8> -> memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%s : memref<4x8xf32>) d(%y : memref<4x16xf32>)
  func.return %y : memref<4x16xf32>
}}""",
    "view-of-a-larger-buffer": PLANS
    + f"""
func.func @f({ARGS}) -> memref<4x16xf32> {{
  %big = cublaslt_rt.alloc : memref<8x16xf32>
  %y = cublaslt_rt.view %big {{byte_offset = 0 : i64}} : memref<8x16xf32> -> memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%x : memref<4x8xf32>) d(%y : memref<4x16xf32>)
  func.return %y : memref<4x16xf32>
}}""",
    "view-with-an-offset": PLANS
    + f"""
func.func @f({ARGS}) -> memref<4x16xf32> {{
  %big = cublaslt_rt.alloc : memref<8x16xf32>
  %y = cublaslt_rt.view %big {{byte_offset = 256 : i64}} : memref<8x16xf32> -> memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%x : memref<4x8xf32>) d(%y : memref<4x16xf32>)
  func.return %y : memref<4x16xf32>
}}""",
    "output-is-an-input": PLANS
    + f"""
func.func @f({ARGS}, %out: memref<4x16xf32>) -> memref<4x16xf32> {{
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%x : memref<4x8xf32>)
      d(%out : memref<4x16xf32>)
  func.return %out : memref<4x16xf32>
}}""",
    "returned-twice": PLANS
    + f"""
func.func @f({ARGS}) -> (memref<4x16xf32>, memref<4x16xf32>) {{
  %y = cublaslt_rt.alloc : memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%x : memref<4x8xf32>) d(%y : memref<4x16xf32>)
  func.return %y, %y : memref<4x16xf32>, memref<4x16xf32>
}}""",
    "c-is-d": _plan("@p", 16, 4, 8, beta=1.0)
    + f"""
func.func @f({ARGS}) -> memref<4x16xf32> {{
  %y = cublaslt_rt.alloc : memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%x : memref<4x8xf32>)
      c(%y : memref<4x16xf32>) d(%y : memref<4x16xf32>)
  func.return %y : memref<4x16xf32>
}}""",
}
"""Results that keep their buffer: each breaks one condition of the module docstring."""

CHAINED = (
    PLANS
    + f"""
func.func @f({ARGS}, %v: memref<16x16xf32>) -> (memref<4x16xf32>, memref<4x16xf32>) {{
  %y = cublaslt_rt.alloc : memref<4x16xf32>
  cublaslt_rt.matmul @p a(%w : memref<16x8xf32>) b(%x : memref<4x8xf32>) d(%y : memref<4x16xf32>)
  %z = cublaslt_rt.alloc : memref<4x16xf32>
  cublaslt_rt.matmul @q a(%v : memref<16x16xf32>) b(%y : memref<4x16xf32>) d(%z : memref<4x16xf32>)
  func.return %y, %z : memref<4x16xf32>, memref<4x16xf32>
}}"""
)
"""Two trailing matmuls; the second reads the first's D, so only the second qualifies."""

HEAD = """
func.func @head(%h: tensor<1x6x32xbf16>, %w: tensor<48x32xbf16>, %b: tensor<48xbf16>)
    -> (tensor<1x6x32xbf16>, tensor<1x6x48xbf16>) {
  %r = hl.relu %h : tensor<1x6x32xbf16> -> tensor<1x6x32xbf16>
  %y = hl.linear %r, %w bias(%b : tensor<48xbf16>)
      : tensor<1x6x32xbf16>, tensor<48x32xbf16> -> tensor<1x6x48xbf16>
  func.return %r, %y : tensor<1x6x32xbf16>, tensor<1x6x48xbf16>
}"""
"""A norm-like launch whose result is returned too (it keeps its buffer and its copy),
then the logits (a fresh output)."""

TWO_HEADS = """
func.func @heads(%h: tensor<6x32xf32>, %w1: tensor<48x32xf32>, %w2: tensor<40x32xf32>)
    -> (tensor<6x48xf32>, tensor<6x40xf32>) {
  %a = hl.linear %h, %w1 : tensor<6x32xf32>, tensor<48x32xf32> -> tensor<6x48xf32>
  %b = hl.linear %h, %w2 : tensor<6x32xf32>, tensor<40x32xf32> -> tensor<6x40xf32>
  func.return %a, %b : tensor<6x48xf32>, tensor<6x40xf32>
}"""


DEFAULT_MIN_BYTES = fresh_outputs.MIN_BYTES


@pytest.fixture(autouse=True)
def _every_size_qualifies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests below use small programs: let results of any size qualify, except where
    a test restores the size floor it is about."""
    monkeypatch.setattr(fresh_outputs, "MIN_BYTES", 0)


def test_a_result_below_the_size_floor_keeps_its_buffer_and_its_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fresh_outputs, "MIN_BYTES", DEFAULT_MIN_BYTES)
    assert _fresh(compile_text(HEAD, fuse_kernels=True)) == []  # the copy costs less
    assert _fresh(compile_text(LM_HEAD, fuse_kernels=True)) == [0]  # 65.5 MB of logits
    program = load(compile_text(HEAD, fuse_kernels=True))
    assert not program.tail and not program.fresh_outputs


def _function(text: str) -> FuncOp:
    module = parse_module_text(text, "<test>")
    return next(op for op in module.ops if isinstance(op, FuncOp))


def _fresh(text: str) -> list[int]:
    return [output.result for output in find_fresh_outputs(_function(text))]


def _assert_same_results(got: tuple[torch.Tensor, ...], want: tuple[torch.Tensor, ...]) -> None:
    """Bit for bit, and the same shape, strides, dtype and device."""
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert (a.shape, a.stride(), a.dtype, a.device) == (b.shape, b.stride(), b.dtype, b.device)
        assert torch.equal(a, b)


def _as_tuple(results: torch.Tensor | tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    return results if isinstance(results, tuple) else (results,)


# --- which results qualify -----------------------------------------------------------


def test_a_trailing_matmul_returned_through_a_reshape_is_a_fresh_output() -> None:
    assert _fresh(ELIGIBLE) == [0]
    program = load(ELIGIBLE)
    assert program.fresh_outputs == {0}
    assert len(program.launches) == 1 and len(program.tail) == 1  # relu; the matmul


@pytest.mark.parametrize("name", sorted(NOT_ELIGIBLE))
def test_a_doubtful_result_keeps_its_buffer_and_its_copy(name: str) -> None:
    text = NOT_ELIGIBLE[name]
    assert _fresh(text) == []
    program = load(text)
    assert program.fresh_outputs == frozenset() and program.tail == ()
    inputs = seeded_inputs(text, 0)
    _assert_same_results(_as_tuple(program(*inputs)), _as_tuple(load(text)(*inputs)))


def test_only_the_matmuls_after_every_reader_of_their_d_qualify() -> None:
    assert _fresh(CHAINED) == [1]
    inputs = seeded_inputs(CHAINED, 0)
    want = load(CHAINED, fresh_outputs=False)(*inputs)
    _assert_same_results(load(CHAINED)(*inputs), want)


def test_the_lowered_pipeline_gives_the_logits_as_a_fresh_output() -> None:
    assert _fresh(compile_text(HEAD, fuse_kernels=True)) == [1]
    assert _fresh(compile_text(TWO_HEADS, fuse_kernels=True)) == [0, 1]


def test_load_with_buffers_keeps_a_buffer_for_every_result() -> None:
    from lumir.runtime import load_with_buffers

    module = parse_module_text(ELIGIBLE, "<test>")
    program, buffers = load_with_buffers(module)
    assert program.tail == () and len(program.launches) == 2
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    assert all(value in buffers for value in func.body.block.last_op.operands)  # type: ignore[union-attr]


# --- what a call returns -------------------------------------------------------------


@pytest.mark.parametrize("text", [HEAD, TWO_HEADS], ids=["head", "two-heads"])
def test_fresh_outputs_are_the_copied_buffers_bit_for_bit(text: str) -> None:
    lowered = compile_text(text, fuse_kernels=True)
    fresh, copied = load(lowered), load(lowered, fresh_outputs=False)
    assert fresh.fresh_outputs and not copied.fresh_outputs
    for seed in (0, 1, 2):
        inputs = seeded_inputs(lowered, seed)
        _assert_same_results(fresh(*inputs), copied(*inputs))


def test_a_second_call_neither_reuses_nor_overwrites_the_first_calls_results() -> None:
    lowered = compile_text(HEAD, fuse_kernels=True)
    program, reference = load(lowered), load(lowered, fresh_outputs=False)
    first_inputs, second_inputs = seeded_inputs(lowered, 0), seeded_inputs(lowered, 1)
    first = program(*first_inputs)
    kept = [t.clone() for t in first]
    second = program(*second_inputs)
    for a, b in zip(first, second, strict=True):
        assert a.data_ptr() != b.data_ptr()
    _assert_same_results(first, tuple(kept))
    _assert_same_results(first, reference(*first_inputs))
    _assert_same_results(second, reference(*second_inputs))


def test_run_unchecked_hands_over_fresh_outputs_and_still_returns_the_other_buffers() -> None:
    lowered = compile_text(HEAD, fuse_kernels=True)
    program = load(lowered)
    first = program.run_unchecked(seeded_inputs(lowered, 0))
    kept = first[1].clone()
    second = program.run_unchecked(seeded_inputs(lowered, 1))
    assert first[0] is second[0]  # the relu's buffer: the caller copies it out
    assert first[1] is not second[1] and first[1].data_ptr() != second[1].data_ptr()
    assert torch.equal(first[1], kept)


def _recording_tail(monkeypatch: pytest.MonkeyPatch) -> list[torch.Tensor]:
    """Every tensor a tail step allocates and writes, in order."""
    made: list[torch.Tensor] = []
    original = TailLaunch.__call__

    def record(step: TailLaunch) -> torch.Tensor:
        made.append(original(step))
        return made[-1]

    monkeypatch.setattr(TailLaunch, "__call__", record)
    return made


def test_a_call_returns_the_tensor_the_tail_wrote_not_a_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = _recording_tail(monkeypatch)
    lowered = compile_text(HEAD, fuse_kernels=True)
    program = load(lowered)
    relu, logits = program(*seeded_inputs(lowered, 0))
    assert logits is made[0]
    (unchecked_relu, unchecked_logits) = program.run_unchecked(seeded_inputs(lowered, 0))
    assert unchecked_logits is made[1]
    assert relu.data_ptr() != unchecked_relu.data_ptr()  # the relu: a copy of its buffer


def test_the_program_holds_no_buffer_for_a_fresh_output() -> None:
    program = load(compile_text(HEAD, fuse_kernels=True))
    (step,) = program.tail
    assert step.plan.buffers["d"] is None  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="D was unbound"):
        step.plan.run()


def test_run_into_refuses_a_buffer_smaller_than_d() -> None:
    from lumir.runtime.reference_gemm import GemmBufferError

    program = load(ELIGIBLE)
    (step,) = program.tail
    with pytest.raises(GemmBufferError, match="needs 256 bytes"):
        step.plan.run_into(torch.empty(255, dtype=torch.uint8))


# --- through the torch.compile backend -------------------------------------------------


class Head(torch.nn.Module):
    """A last block and the lm_head: the model's last op is a Linear."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.up = torch.nn.Linear(32, 32)
        self.head = torch.nn.Linear(32, 100, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.up(x)))


def _partitions() -> list[stats.PartitionStats]:
    return [p for g in stats.GRAPHS for p in g.partitions]


def _compiled_calls(model: torch.nn.Module, inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    """The results of calling the compiled model on each input in turn; each is checked
    to be unchanged by the calls after it (the copy taken right after its call)."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(model, backend="lumir")
    results, kept = [], []
    for x in inputs:
        results.append(compiled(x))
        kept.append(results[-1].clone())
    assert len({t.data_ptr() for t in results}) == len(results)
    _assert_same_results(tuple(results), tuple(kept))
    return results


@torch.no_grad()
def test_the_backend_returns_the_logits_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    model = Head().eval()
    generator = torch.Generator().manual_seed(0)
    inputs = [torch.randn(1, 6, 32, generator=generator) for _ in range(3)]
    results = _compiled_calls(model, inputs)
    (partition,) = _partitions()
    assert partition.fresh_outputs == 1
    for got, x in zip(results, inputs, strict=True):
        torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)

    made = _recording_tail(monkeypatch)
    assert _compiled_calls(model, inputs[:1])[0] is made[-1]  # handed over, not cloned

    monkeypatch.setattr(partition_module, "load", functools.partial(load, fresh_outputs=False))
    copied = _compiled_calls(model, inputs)
    assert _partitions()[0].fresh_outputs == 0
    _assert_same_results(tuple(results), tuple(copied))


def test_a_fresh_output_returned_twice_by_the_graph_is_copied_the_second_time() -> None:
    """Two graph outputs of one program result never alias: the first is the fresh
    tensor, the second a copy, as both were copies before."""
    from lumir.backend.calls import _output_builder
    from lumir.frontend.importer import GraphOutput, ImportedGraph

    outputs = (GraphOutput(result=0), GraphOutput(result=0), GraphOutput(result=1))
    imported = ImportedGraph(parse_module_text("", "<test>"), (), outputs)
    cpu = torch.device("cpu")
    build = _output_builder(imported, {}, cpu, cpu, True, frozenset(), frozenset({0}))
    fresh, buffer = torch.ones(3), torch.zeros(3)
    first, second, third = build([fresh, buffer], ())  # type: ignore[misc]
    assert first is fresh
    assert second is not fresh and torch.equal(second, fresh)
    assert third is not buffer and torch.equal(third, buffer)


# --- CUDA -------------------------------------------------------------------------------

LM_HEAD = """
func.func @lm_head(%h: tensor<1024x256xbf16>, %w: tensor<32000x256xbf16>)
    -> tensor<1x1024x32000xbf16> {
  %y = hl.linear %h, %w : tensor<1024x256xbf16>, tensor<32000x256xbf16>
      -> tensor<1024x32000xbf16>
  %v = hl.reshape %y : tensor<1024x32000xbf16> -> tensor<1x1024x32000xbf16>
  func.return %v : tensor<1x1024x32000xbf16>
}"""
"""A [1024, 32000] bf16 output (65.5 MB): large enough to see in the peak memory."""

GEMV = """
func.func @f(%x: tensor<1x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<1x512xbf16> {
  %y = hl.linear %x, %w : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  func.return %y : tensor<1x512xbf16>
}"""


def _cuda_calls(
    program, inputs: list[list[torch.Tensor]]
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """One call per input list (the first captures, the rest replay): the results, and
    a copy of each taken right after its call."""
    results, kept = [], []
    for each in inputs:
        results.append(program(*[t.cuda() for t in each]))
        kept.append(results[-1].clone())
    return results, kept


def _check_on_cuda(text: str, plan_type: type) -> None:
    lowered = compile_text(text, fuse_kernels=True)
    fresh, copied = load(lowered, "cuda"), load(lowered, "cuda", fresh_outputs=False)
    assert fresh.fresh_outputs == {0}
    assert isinstance(fresh.tail[0].plan, plan_type)
    inputs = [seeded_inputs(lowered, seed) for seed in range(3)]
    got, kept = _cuda_calls(fresh, inputs)
    want, _ = _cuda_calls(copied, inputs)
    torch.cuda.synchronize()
    assert len({t.data_ptr() for t in got}) == len(got)
    _assert_same_results(tuple(got), tuple(want))
    _assert_same_results(tuple(got), tuple(kept))
    fresh.close()
    copied.close()


@pytest.mark.cuda
@needs_gpu
def test_a_cublaslt_fresh_output_on_cuda_is_the_copied_buffer_bit_for_bit() -> None:
    from lumir.runtime.cuda_cublaslt import CublasLtMatmulPlan

    _check_on_cuda(LM_HEAD, CublasLtMatmulPlan)


@pytest.mark.cuda
@needs_gpu
def test_a_gemv_fresh_output_on_cuda_is_the_copied_buffer_bit_for_bit() -> None:
    from lumir.runtime.gemv import GemvPlan

    _check_on_cuda(GEMV, GemvPlan)


def _memory_of_calls(fresh_outputs: bool) -> tuple[int, int]:
    """(bytes the loaded program holds between calls, peak rise during one call) for
    LM_HEAD on CUDA, over what was allocated before it was loaded."""
    from lumir.runtime.cuda_cublaslt import DEFAULT_WORKSPACE_BYTES, shared_workspace

    device = torch.device("cuda", torch.cuda.current_device())
    shared_workspace(device, DEFAULT_WORKSPACE_BYTES)  # the process's, not the program's
    lowered = compile_text(LM_HEAD, fuse_kernels=True)
    h, w = (t.to(device) for t in seeded_inputs(lowered, 0))
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    program = load(lowered, "cuda", static_inputs={1: w}, fresh_outputs=fresh_outputs)
    program(h)  # the first call captures the graph (its result is dropped at once)
    torch.cuda.synchronize()
    held = torch.cuda.memory_allocated() - base
    torch.cuda.reset_peak_memory_stats()
    result = program(h)
    torch.cuda.synchronize()
    rise = torch.cuda.max_memory_allocated() - base - held
    del result
    program.close()
    return held, rise


@pytest.mark.cuda
@needs_gpu
def test_a_call_holds_one_copy_of_a_large_output_not_two() -> None:
    output = 1024 * 32000 * 2
    held, rise = _memory_of_calls(fresh_outputs=True)
    assert held < output // 8  # the input buffer, no output buffer
    assert output <= rise < output * 9 // 8  # the caller's output, allocated by the call
    held_before, rise_before = _memory_of_calls(fresh_outputs=False)
    assert held_before >= output  # what this change removes: the program's own copy
    assert held + rise <= held_before + rise_before - output * 7 // 8


@pytest.mark.cuda
@needs_gpu
@torch.no_grad()
def test_the_backend_on_cuda_returns_distinct_logits_per_call() -> None:
    model = Head().eval().cuda()
    generator = torch.Generator().manual_seed(0)
    inputs = [torch.randn(1, 6, 32, generator=generator).cuda() for _ in range(3)]
    results = _compiled_calls(model, inputs)
    (partition,) = _partitions()
    assert partition.fresh_outputs == 1
    for got, x in zip(results, inputs, strict=True):
        torch.testing.assert_close(got, model(x), atol=1e-3, rtol=1e-3)
