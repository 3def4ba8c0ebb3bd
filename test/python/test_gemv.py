"""lumir's GEMV: which calls the lowering gives it, and its kernel against the reference.

On the CPU a plan with `algorithm = "gemv"` runs the reference GEMM like any other, so
the kernel itself is checked under Triton's CPU interpreter (`lumir.testing.gemv_check`,
in a child process): over the same operand bytes it must agree with the reference
within one rounding step of D's type, for every form of one-column call lumir lowers to
it (a weight stored [out, in], bias, residual beta * C, alpha, f32 output, f16).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from lumir.cublaslt_enums import DataType
from lumir.dialects.cublaslt_rt import PlanOp
from lumir.parsing import parse_module_text
from lumir.plan_algorithms import gemv_problems
from lumir.testing.fused_check import triton_interpreter_available
from lumir.testing.gemv_check import gemv_plans, run_in_interpreter
from lumir.testing.programs import compile_text

CASES = {
    "linear": """
func.func @f(%x: tensor<1x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<1x512xbf16> {
  %y = hl.linear %x, %w : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  func.return %y : tensor<1x512xbf16>
}""",
    "bias-and-residual": """
func.func @f(%x: tensor<1x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>,
             %r: tensor<1x512xbf16>) -> tensor<1x512xbf16> {
  %h = hl.linear %x, %w bias(%b : tensor<512xbf16>)
      : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %y = hl.add %h, %r : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  func.return %y : tensor<1x512xbf16>
}""",
    "alpha": """
func.func @f(%x: tensor<1x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<1x512xbf16> {
  %h = hl.linear %x, %w : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %s = hl.constant {value = dense<5.000000e-01> : tensor<bf16>} : tensor<bf16>
  %y = hl.mul %h, %s : (tensor<1x512xbf16>, tensor<bf16>) -> tensor<1x512xbf16>
  func.return %y : tensor<1x512xbf16>
}""",
    "f32-output": """
func.func @f(%x: tensor<1x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<1x512xf32> {
  %h = hl.linear %x, %w : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %y = hl.cast %h : tensor<1x512xbf16> -> tensor<1x512xf32>
  func.return %y : tensor<1x512xf32>
}""",
    "long-k": """
func.func @f(%x: tensor<1x2600xbf16>, %w: tensor<40x2600xbf16>) -> tensor<1x40xbf16> {
  %y = hl.linear %x, %w : tensor<1x2600xbf16>, tensor<40x2600xbf16> -> tensor<1x40xbf16>
  func.return %y : tensor<1x40xbf16>
}""",
    "f16": """
func.func @f(%x: tensor<1x300xf16>, %w: tensor<200x300xf16>) -> tensor<1x200xf16> {
  %y = hl.linear %x, %w : tensor<1x300xf16>, tensor<200x300xf16> -> tensor<1x200xf16>
  func.return %y : tensor<1x200xf16>
}""",
}


def _plans(text: str, **options: bool) -> list[PlanOp]:
    from lumir.context import lumir_context
    from lumir.passes.pipeline import LumirPipelinePass

    module = parse_module_text(text, "<test>")
    LumirPipelinePass(fuse_kernels=False, **options).apply(lumir_context(), module)
    return [op for op in module.ops if isinstance(op, PlanOp)]


def test_every_case_lowers_to_the_gemv_with_the_fusion_it_names() -> None:
    expected = {
        "linear": lambda d: d.epilogue.value == "default",
        "bias-and-residual": lambda d: d.epilogue.value == "bias" and d.beta == 1.0,
        "alpha": lambda d: d.alpha == 0.5,
        "f32-output": lambda d: d.d_dtype is DataType.F32,
        "long-k": lambda d: d.k == 2600,  # two blocks of columns, the last ragged
        "f16": lambda d: d.a_dtype is DataType.F16,
    }
    for name, text in CASES.items():
        (plan,) = gemv_plans(text)
        assert expected[name](plan.descriptor()), name


def test_gemv_off_keeps_every_plan_on_cublaslt() -> None:
    for text in CASES.values():
        assert [p.algorithm.data for p in _plans(text, gemv=False)] == ["heuristic"]


def test_calls_the_gemv_cannot_run_or_would_run_slower_stay_on_cublaslt() -> None:
    four_rows = CASES["linear"].replace("1x256", "4x256").replace("1x512", "4x512")
    f32 = CASES["linear"].replace("bf16", "f32")
    for text in (four_rows, f32):
        assert [p.algorithm.data for p in _plans(text)] == ["heuristic"]


PLAIN_WEIGHT = """
func.func @f(%x: tensor<1x256xbf16>, %w: tensor<256x512xbf16>) -> tensor<1x512xbf16> {
  %y = hl.matmul %x, %w : (tensor<1x256xbf16>, tensor<256x512xbf16>) -> tensor<1x512xbf16>
  func.return %y : tensor<1x512xbf16>
}"""
"""x @ W with W stored [in, out] (GPT-2's Conv1D): op(A) steps m elements along k."""


def test_a_weight_stored_in_by_out_stays_on_cublaslt() -> None:
    """The GEMV reads each row of op(A) contiguously; an [in, out] weight would be read
    with a stride of the row count (three times cuBLASLt's time measured on GPT-2-medium's
    one-row projections on the H200), so the lowering keeps such calls on cuBLASLt and
    the plan verifier says why a GEMV plan of one is refused."""
    (plan,) = _plans(PLAIN_WEIGHT)
    assert plan.algorithm.data == "heuristic"
    problems = gemv_problems(plan.descriptor())
    assert len(problems) == 1 and "along k" in problems[0]


def test_the_choice_is_the_same_in_every_lowering() -> None:
    texts = {compile_text(CASES["bias-and-residual"], fuse_kernels=False) for _ in range(3)}
    assert len(texts) == 1


@pytest.mark.skipif(
    triton_interpreter_available() is not None, reason=str(triton_interpreter_available())
)
@pytest.mark.parametrize("name", sorted(CASES))
def test_gemv_kernel_matches_the_reference_gemm_under_the_interpreter(
    name: str, tmp_path: Path
) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(CASES[name])
    done = run_in_interpreter(path)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = done.stdout.splitlines()
    result = json.loads(line)
    assert result["ok"] and result["into"] and result["prefetch"]


def test_gemv_plan_refuses_a_call_it_cannot_run() -> None:
    from lumir.runtime.gemv import GemvPlan, GemvPlanError

    (plan,) = _plans(CASES["linear"].replace("1x256", "4x256").replace("1x512", "4x512"))
    buffer = torch.zeros(1 << 20, dtype=torch.uint8)
    with pytest.raises(GemvPlanError, match="n = 4, but the GEMV computes one column"):
        GemvPlan(plan.descriptor(), buffer, buffer, buffer)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gemv_plans_on_cuda_match_the_cpu_reference(name: str) -> None:
    from lumir.runtime import load
    from lumir.runtime.cuda_cublaslt import cublaslt_available
    from lumir.runtime.gemv import GemvPlan
    from lumir.testing.gemv_check import tolerance
    from lumir.testing.programs import seeded_inputs

    if not cublaslt_available():
        pytest.skip("needs nvmath-python")
    lowered = compile_text(CASES[name], fuse_kernels=False)
    (plan,) = gemv_plans(CASES[name])
    cpu, gpu = load(lowered), load(lowered, device="cuda")
    assert [type(p) for p in gpu.plans] == [GemvPlan]
    atol, rtol = tolerance(plan.descriptor().d_dtype)
    for seed in (0, 1):  # the first call captures the graph, the second replays it
        inputs = seeded_inputs(lowered, seed)
        want = cpu(*inputs)
        got = gpu(*[t.cuda() for t in inputs])
        torch.testing.assert_close(got.cpu().double(), want.double(), atol=atol, rtol=rtol)
    gpu.close()
