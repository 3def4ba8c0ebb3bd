"""The per-launch differential tool names the launch that computes wrongly, and only it.

`lumir.testing.launch_diff` is how a CUDA-vs-CPU disagreement is located (and how the
CUDA differential tests judge each kernel on identical inputs). Here the device under
test is the CPU executor itself, once as it is (every row zero) and once with matmul
plans that add 1 to their result: isolated, exactly the matmul rows are flagged; left to
compound, the launches after the first wrong matmul differ too.
"""

from __future__ import annotations

import pytest

from bench.workloads import LLAMA_SHAPES, llama_layer_hl
from lumir.dialects.cublaslt_rt import FusedGroupOp, FusedLaunchOp, LaunchOp, MatmulOp
from lumir.parsing import parse_module_text
from lumir.runtime import load_with_buffers
from lumir.runtime.buffers import shaped_type_parts, typed_view
from lumir.runtime.interpreter import find_function
from lumir.testing import launch_diff
from lumir.testing.programs import compile_text, seeded_inputs


@pytest.fixture(scope="module")
def layer() -> str:
    return compile_text(llama_layer_hl(6, LLAMA_SHAPES["tiny"]), True)


def test_the_cpu_executor_agrees_with_itself(layer: str) -> None:
    rows = launch_diff.launch_differences(layer, seeded_inputs(layer, 0), device="cpu")
    ops = find_function(parse_module_text(layer, "<layer>")).body.block.ops
    assert len(rows) == sum(isinstance(op, (*RUN_OPS, FusedGroupOp)) for op in ops)
    assert all(row.max_abs == 0.0 and row.mismatched == 0 for row in rows)


RUN_OPS = (MatmulOp, LaunchOp, FusedLaunchOp)


def _off_by_one(module, device):
    """The program loaded as usual, then every matmul's launch adds 1 to its result."""
    program, buffers = load_with_buffers(module, device)
    ops = [
        op
        for op in find_function(module).body.block.ops
        if isinstance(op, (*RUN_OPS, FusedGroupOp))
    ]
    launches = []
    for op, launch in zip(ops, program.launches, strict=True):
        if isinstance(op, MatmulOp):
            shape, dtype = shaped_type_parts(op.d.type)
            result = typed_view(buffers[op.d], shape, dtype)
            launches.append(lambda launch=launch, result=result: (launch(), result.add_(1)))
        else:
            launches.append(launch)
    program.launches = tuple(launches)
    return program, buffers


@pytest.mark.parametrize("isolate", [True, False])
def test_a_wrong_matmul_is_named(layer: str, isolate: bool, monkeypatch) -> None:
    monkeypatch.setattr(launch_diff, "load_under_test", _off_by_one)
    rows = launch_diff.launch_differences(
        layer, seeded_inputs(layer, 0), device="cpu", isolate=isolate
    )
    flagged = [row.op.startswith("matmul") for row in rows if row.mismatched]
    matmuls = [row for row in rows if row.op.startswith("matmul")]
    assert all(row.mismatched > 0 for row in matmuls)
    if isolate:
        assert all(flagged) and len(flagged) == len(matmuls)
    else:
        assert not all(flagged)  # a wrong result reaches the launches after it
