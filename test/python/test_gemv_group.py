"""The grouped GEMV: GEMV calls reading one activation, run as one launch.

group-gemv puts such calls into a `cublaslt_rt.matmul_group`. On the CPU the members
run one by one as the reference GEMM, so a grouped program's bytes are the ungrouped
program's. On CUDA the group is one launch of the grouped Triton kernel, which must give
each member exactly the D of its own GEMV launch: that is checked here under Triton's
CPU interpreter (`lumir.testing.gemv_check`, in a child process) and, marked `cuda`, on
a GPU for a decode layer's shapes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch

from lumir.context import lumir_context
from lumir.cublaslt_enums import DataType
from lumir.dialects.cublaslt_rt import MatmulGroupOp
from lumir.parsing import parse_module_text
from lumir.passes.pipeline import LumirPipelinePass
from lumir.runtime import load
from lumir.testing.fused_check import triton_interpreter_available
from lumir.testing.gemv_check import gemv_groups, run_in_interpreter
from lumir.testing.processes import lumir_opt_outputs
from lumir.testing.programs import seeded_inputs

MIXED = """
func.func @f(%x: tensor<1x64xbf16>, %wq: tensor<96x64xbf16>, %bq: tensor<96xbf16>,
             %wk: tensor<32x64xbf16>, %wv: tensor<48x64xbf16>, %r: tensor<1x48xbf16>)
    -> (tensor<1x96xbf16>, tensor<1x32xf32>, tensor<1x48xbf16>) {
  %q = hl.linear %x, %wq bias(%bq : tensor<96xbf16>)
      : tensor<1x64xbf16>, tensor<96x64xbf16> -> tensor<1x96xbf16>
  %k0 = hl.linear %x, %wk : tensor<1x64xbf16>, tensor<32x64xbf16> -> tensor<1x32xbf16>
  %k = hl.cast %k0 : tensor<1x32xbf16> -> tensor<1x32xf32>
  %v0 = hl.linear %x, %wv : tensor<1x64xbf16>, tensor<48x64xbf16> -> tensor<1x48xbf16>
  %v = hl.add %v0, %r : (tensor<1x48xbf16>, tensor<1x48xbf16>) -> tensor<1x48xbf16>
  func.return %q, %k, %v : tensor<1x96xbf16>, tensor<1x32xf32>, tensor<1x48xbf16>
}"""
"""Members of different m, one with a bias, one writing f32, one adding beta * C."""

PARTIAL_BLOCKS = """
func.func @f(%x: tensor<1x1100xbf16>, %w1: tensor<1031x1100xbf16>, %w2: tensor<1027x1100xbf16>)
    -> (tensor<1x1031xbf16>, tensor<1x1027xbf16>) {
  %y1 = hl.linear %x, %w1 : tensor<1x1100xbf16>, tensor<1031x1100xbf16> -> tensor<1x1031xbf16>
  %y2 = hl.linear %x, %w2 : tensor<1x1100xbf16>, tensor<1027x1100xbf16> -> tensor<1x1027xbf16>
  func.return %y1, %y2 : tensor<1x1031xbf16>, tensor<1x1027xbf16>
}"""
"""Two rows per program (gemv_config (2, 1024, 4)) over odd m, and a K of two blocks:
member 1's first program follows member 0's half-empty last one."""

DECODE = """
func.func @layer(%x: tensor<1x2048xbf16>, %wq: tensor<2048x2048xbf16>,
                 %wk: tensor<512x2048xbf16>, %wv: tensor<512x2048xbf16>,
                 %h: tensor<1x2048xbf16>, %wg: tensor<8192x2048xbf16>,
                 %wu: tensor<8192x2048xbf16>)
    -> (tensor<1x2048xbf16>, tensor<1x512xbf16>, tensor<1x512xbf16>,
        tensor<1x8192xbf16>, tensor<1x8192xbf16>) {
  %q = hl.linear %x, %wq : tensor<1x2048xbf16>, tensor<2048x2048xbf16> -> tensor<1x2048xbf16>
  %k = hl.linear %x, %wk : tensor<1x2048xbf16>, tensor<512x2048xbf16> -> tensor<1x512xbf16>
  %v = hl.linear %x, %wv : tensor<1x2048xbf16>, tensor<512x2048xbf16> -> tensor<1x512xbf16>
  %g = hl.linear %h, %wg : tensor<1x2048xbf16>, tensor<8192x2048xbf16> -> tensor<1x8192xbf16>
  %u = hl.linear %h, %wu : tensor<1x2048xbf16>, tensor<8192x2048xbf16> -> tensor<1x8192xbf16>
  func.return %q, %k, %v, %g, %u : tensor<1x2048xbf16>, tensor<1x512xbf16>,
      tensor<1x512xbf16>, tensor<1x8192xbf16>, tensor<1x8192xbf16>
}"""
"""A Llama-1B decode layer's projections: q, k and v of one vector, gate and up of
another."""


def _lowered(text: str, group_gemv: bool = True) -> str:
    module = parse_module_text(text, "<test>")
    LumirPipelinePass(fuse_kernels=False, group_gemv=group_gemv).apply(lumir_context(), module)
    return str(module)


def _groups(text: str) -> list[list[str]]:
    return [[str(m.plan) for m in group.members()] for group in gemv_groups(text)]


def test_the_pipeline_groups_the_calls_that_read_one_vector_with_one_block_shape() -> None:
    assert _groups(MIXED) == [["@plan0", "@plan1", "@plan2"]]
    assert _groups(PARTIAL_BLOCKS) == [["@plan0", "@plan1"]]
    assert _groups(DECODE) == [["@plan0", "@plan1", "@plan2"], ["@plan3", "@plan4"]]
    assert "cublaslt_rt.matmul_group" not in _lowered(DECODE, group_gemv=False)


def test_the_bench_times_the_groups_the_pass_makes() -> None:
    """bench.gemv_groups groups a decode layer as the pass does: q with k and v, gate
    with up, at most four calls a launch, and a call whose block shape differs apart."""
    from bench.gemv_groups import SETS, gemv_groups

    assert _groups(DECODE) == [["@plan0", "@plan1", "@plan2"], ["@plan3", "@plan4"]]
    assert gemv_groups(*SETS["q+k+v"]) == [[0, 1, 2]]
    assert gemv_groups((2048, 128, 512), 2048) == [[0, 2], [1]]  # 128 rows: one per program
    assert gemv_groups(*SETS["gate+up"]) == [[0, 1]]
    assert gemv_groups((32,) * 5, 64) == [[0, 1, 2, 3], [4]]  # four member slots


def test_a_grouped_program_on_the_cpu_is_the_ungrouped_program_bit_for_bit() -> None:
    grouped, plain = _lowered(MIXED), _lowered(MIXED, group_gemv=False)
    program = load(grouped)
    assert len(program.launches) == 1  # the group, whose members run one by one
    inputs = seeded_inputs(grouped, 0)
    for got, want in zip(program(*inputs), load(plain)(*inputs), strict=True):
        assert torch.equal(got, want)


def test_launch_diff_judges_a_group_as_one_launch_writing_every_member() -> None:
    from lumir.testing.launch_diff import launch_differences

    grouped = _lowered(MIXED)
    (row,) = launch_differences(grouped, seeded_inputs(grouped, 0), device="cpu")
    assert row.op == "matmul_group @plan0, @plan1, @plan2"
    assert row.elements == 96 + 32 + 48 and row.max_abs == 0.0


@pytest.mark.skipif(
    triton_interpreter_available() is not None, reason=str(triton_interpreter_available())
)
@pytest.mark.parametrize(("name", "text"), [("mixed", MIXED), ("partial", PARTIAL_BLOCKS)])
def test_grouped_kernel_gives_each_member_its_own_launch_bits_under_the_interpreter(
    name: str, text: str, tmp_path: Path
) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    done = run_in_interpreter(path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    groups = [line for line in lines if "group" in line]
    assert len(groups) == 1 and len(lines) == 1 + len(groups[0]["group"])
    assert groups[0]["bit_identical"] and groups[0]["ok"], groups


def _operands(m: int, k: int, x: torch.Tensor | None = None):
    from lumir.runtime.gemv import GemvOperands

    x = torch.zeros(k, dtype=torch.bfloat16) if x is None else x
    return GemvOperands(torch.zeros(m, k, dtype=torch.bfloat16), x, torch.zeros(m))


def test_grouped_plan_refuses_what_its_one_launch_cannot_run_bit_for_bit() -> None:
    from lumir.runtime.gemv import GemvPlanError, GroupedGemvPlan

    x = torch.zeros(2048, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"different block shapes alone: \[\(1, 2048, 2\), "):
        GroupedGemvPlan([_operands(128, 2048, x), _operands(2048, 2048, x)])
    with pytest.raises(GemvPlanError, match="member 1 reads another vector than member 0"):
        GroupedGemvPlan([_operands(32, 64), _operands(32, 64)])
    with pytest.raises(GemvPlanError, match="a group runs 2 to 4 GEMVs in one launch, not 1"):
        GroupedGemvPlan([_operands(32, 64)])


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_decode_groups_on_cuda_equal_ungrouped_gemv_launches_bit_for_bit() -> None:
    from lumir.runtime.cuda_cublaslt import cublaslt_available
    from lumir.runtime.gemv import GemvPlan, GroupedGemvPlan
    from lumir.testing.gemv_check import tolerance

    if not cublaslt_available():
        pytest.skip("needs nvmath-python")
    pytest.importorskip("triton")
    grouped, plain = _lowered(DECODE), _lowered(DECODE, group_gemv=False)
    on, off = load(grouped, device="cuda"), load(plain, device="cuda")
    assert [type(p) for p in on.plans] == [GroupedGemvPlan, GroupedGemvPlan]  # q+k+v, g+u
    assert [type(p) for p in off.plans] == [GemvPlan] * 5
    cpu = load(plain)
    atol, rtol = tolerance(DataType.BF16)
    for seed in (0, 1):  # the first call captures the graphs, the second replays them
        inputs = seeded_inputs(plain, seed)
        on_gpu = [t.cuda() for t in inputs]
        got, want = on(*on_gpu), off(*on_gpu)
        for grouped_d, alone_d, reference in zip(got, want, cpu(*inputs), strict=True):
            assert torch.equal(grouped_d, alone_d)
            torch.testing.assert_close(
                grouped_d.cpu().double(), reference.double(), atol=atol, rtol=rtol
            )
    on.close()
    off.close()


def test_groups_are_the_same_in_every_process(tmp_path: Path) -> None:
    path = tmp_path / "decode.mlir"
    path.write_text(DECODE)
    pipeline = "lumir-pipeline{fuse_kernels=false}"
    (text,) = lumir_opt_outputs([str(path), "-p", pipeline], ("1", "2"))
    assert text.count("cublaslt_rt.matmul_group") == 2


ONE_CALL = """
func.func @f(%x: tensor<1x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<1x32xbf16> {
  %y = hl.linear %x, %w : tensor<1x64xbf16>, tensor<32x64xbf16> -> tensor<1x32xbf16>
  func.return %y : tensor<1x32xbf16>
}"""


def _random_level3(seed: int, plan: str, steps: int = 12) -> str:
    """A level-3 function of one-row GEMV calls on two activations and four weights,
    interleaved with launches that read their results and write buffers in place
    (activations, weight rows through views, earlier results), some calls writing an
    earlier call's D again: every kind of dependence group-gemv must respect."""
    rng = random.Random(f"group-gemv/{seed}")
    body, results = [], []
    buffers = {"x": "memref<1x64xbf16>", "y": "memref<1x64xbf16>"}
    for index in range(steps):
        kind = rng.choice(["call", "call", "call", "write", "read"])
        if kind == "call" or not results:
            if results and rng.random() < 0.25:
                d = rng.choice(results)  # writes an earlier D again
            else:
                d = f"%d{index}"
                body.append(f"{d} = cublaslt_rt.alloc : memref<1x32xbf16>")
                results.append(d)
            b, w = rng.choice("xy"), rng.randrange(4)
            body.append(
                f"cublaslt_rt.matmul @k a(%w{w} : memref<32x64xbf16>) b(%{b} : memref<1x64xbf16>)"
                f" d({d} : memref<1x32xbf16>)"
            )
        elif kind == "write":
            target = rng.choice(["%x", "%y", "row", *results])
            if target == "row":
                w, offset = rng.randrange(4), 128 * rng.randrange(32)
                body.append(
                    f"%r{index} = cublaslt_rt.view %w{w} {{byte_offset = {offset} "
                    f": i64}} : memref<32x64xbf16> -> memref<64xbf16>"
                )
                target, typ = f"%r{index}", "memref<64xbf16>"
            else:
                typ = buffers.get(target[1:], "memref<1x32xbf16>")
            body.append(f'cublaslt_rt.launch "hl.neg" ins({target} : {typ}) outs({target} : {typ})')
        else:
            source, out = rng.choice(results), f"%n{index}"
            body.append(f"{out} = cublaslt_rt.alloc : memref<1x32xbf16>")
            body.append(
                f'cublaslt_rt.launch "hl.neg" ins({source} : memref<1x32xbf16>) '
                f"outs({out} : memref<1x32xbf16>)"
            )
            results.append(out)
    outs = ["%x", "%y", *results]
    types = [buffers.get(v[1:], "memref<1x32xbf16>") for v in outs]
    weights = ", ".join(f"%w{i}: memref<32x64xbf16>" for i in range(4))
    lines = "\n  ".join(body)
    return (
        f"{plan}\nfunc.func @f(%x: memref<1x64xbf16>, %y: memref<1x64xbf16>, {weights}) -> "
        f"({', '.join(types)}) {{\n  {lines}\n  func.return {', '.join(outs)} : "
        f"{', '.join(types)}\n}}\n"
    )


def test_grouping_never_changes_what_a_program_computes() -> None:
    """Random programs full of dependences (seeded, the same every run): after group-gemv
    each computes, on the CPU, exactly what it computed before, and groups do form."""
    from lumir.passes.group_gemv import GroupGemvPass

    lowered = parse_module_text(_lowered(ONE_CALL, group_gemv=False), "<t>")
    plan = str(next(iter(lowered.ops))).replace("@plan0", "@k")
    grouped_calls = 0
    for seed in range(40):
        text = _random_level3(seed, plan)
        module = parse_module_text(text, "<t>")
        GroupGemvPass().apply(lumir_context(), module)
        groups = [op for op in module.walk() if isinstance(op, MatmulGroupOp)]
        grouped_calls += sum(len(group.members()) for group in groups)
        inputs = seeded_inputs(text, seed)
        for got, want in zip(load(module)(*inputs), load(text)(*inputs), strict=True):
            assert torch.equal(got, want), f"seed {seed}:\n{text}\n{module}"
    assert grouped_calls >= 40
