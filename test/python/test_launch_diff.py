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
from lumir.testing import launch_diff
from lumir.testing.programs import compile_text, seeded_inputs


@pytest.fixture(scope="module")
def layer() -> str:
    return compile_text(llama_layer_hl(6, LLAMA_SHAPES["tiny"]), True)


def test_the_cpu_executor_agrees_with_itself(layer: str) -> None:
    rows = launch_diff.launch_differences(layer, seeded_inputs(layer, 0), device="cpu")
    assert len(rows) == layer.count("cublaslt_rt.matmul") + layer.count("launch")
    assert all(row.max_abs == 0.0 and row.mismatched == 0 for row in rows)


class _OffByOne:
    """A matmul plan whose result is its reference result plus 1."""

    def __init__(self, desc, a, b, d, extras):
        self.plan, self.d = launch_diff._cpu_plan(desc, a, b, d, extras), d

    def run(self) -> None:
        self.plan.run()
        self.d.add_(1)


@pytest.mark.parametrize("isolate", [True, False])
def test_a_wrong_matmul_is_named(layer: str, isolate: bool, monkeypatch) -> None:
    def wrong_plans(device, module):
        return _OffByOne, device

    monkeypatch.setattr(launch_diff, "_plan_factory", wrong_plans)
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
