"""Independent fused launches as one launch: group-fused and `cublaslt_rt.fused_group`.

What a user relies on: a program computes what it computed before, bit for bit. On the
CPU the members run one after the other as they did ungrouped; on CUDA the group is one
generated kernel whose programs run each member's own kernel text, checked here under
Triton's CPU interpreter against the members' own kernels (every kernel form: one row
per program, column tiles, a ragged last tile), compiled for sm_90 on the CPU, and,
marked `cuda`, on a GPU. The pass only groups what may run at once (lit tests in
test/lit/group-fused and the verifier's in test/lit/cublaslt_rt).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lumir.dialects.cublaslt_rt import FusedGroupOp
from lumir.parsing import parse_module_text
from lumir.runtime import load
from lumir.testing.fused_check import triton_interpreter_available
from lumir.testing.interpreter_child import run_check
from lumir.testing.programs import seeded_inputs

LIT = Path(__file__).resolve().parents[1] / "lit" / "group-fused"


def _chunks(name: str) -> list[str]:
    """The `// -----` pieces of a lit file of group-fused."""
    return (LIT / name).read_text().split("// -----")


def _lumir_opt(text: str, *passes: str, tmp_path: Path) -> str:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "lumir.tools.lumir_opt", str(path), "-p", ",".join(passes)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _groups(text: str) -> list[FusedGroupOp]:
    module = parse_module_text(text, "<grouped>")
    return [op for op in module.walk() if isinstance(op, FusedGroupOp)]


@pytest.mark.parametrize("chunk", [0, 1, 3], ids=["rotaries", "forms", "views"])
def test_on_the_cpu_the_grouped_program_is_the_program_without_groups(
    chunk: int, tmp_path: Path
) -> None:
    text = _chunks("independent.mlir")[chunk]
    grouped = _lumir_opt(text, "group-fused", tmp_path=tmp_path)
    assert _groups(grouped)
    inputs = seeded_inputs(text, 0)
    alone, together = load(text)(*inputs), load(grouped)(*inputs)
    alone = alone if isinstance(alone, tuple) else (alone,)
    together = together if isinstance(together, tuple) else (together,)
    for want, got in zip(alone, together, strict=True):
        assert torch.equal(want.view(torch.uint8), got.view(torch.uint8))


@pytest.mark.skipif(
    triton_interpreter_available() is not None, reason=str(triton_interpreter_available())
)
def test_the_one_kernel_writes_the_members_bits_under_the_interpreter(tmp_path: Path) -> None:
    grouped = "\n".join(
        _lumir_opt(chunk, "group-fused", tmp_path=tmp_path)
        for chunk in _chunks("independent.mlir")
        if "@dependent" not in chunk and "@views" not in chunk
    )
    path = tmp_path / "grouped.mlir"
    path.write_text(grouped)
    done = run_check("lumir.testing.fused_group_check", str(path), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    # the rotaries (tiled, one program each) and the three forms: one row per program
    # (a softmax, so 4 warps), column tiles (5000 lanes) and a ragged tile of 37 rows
    assert [(r["members"], r["programs"], r["num_warps"]) for r in reports] == [
        (2, 2, 1),
        (3, 5 + 3 * 3 + 1, 4),
    ]
    assert all(r["bit_identical"] for r in reports)


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
def test_the_one_kernel_compiles_for_hopper(tmp_path: Path) -> None:
    """The interpreter runs Python, not Triton's compiler: the group's kernel (member
    functions called under a branch on the program id) must compile for the GPU too,
    with the wait for the previous launch."""
    from test_gemv_epilogue import _compile_for_hopper

    from lumir.runtime.fused_kernels import compile_text
    from lumir.runtime.triton_codegen import generate_group

    (group,) = _groups(_lumir_opt(_chunks("independent.mlir")[1], "group-fused", tmp_path=tmp_path))
    members = group.members()
    kernel = compile_text(generate_group([m.body.block for m in members]).text)
    types = {"f32": "*fp32", "bf16": "*bf16"}
    signature = {}
    for index, member in enumerate(members):
        values = [*member.inputs, *member.outputs]
        names = [f"in{i}" for i in range(len(member.inputs))]
        names += [f"out{i}" for i in range(len(member.outputs))]
        for name, value in zip(names, values, strict=True):
            signature[f"m{index}_{name}"] = types[value.type.element_type.name]  # type: ignore[attr-defined]
    ptx = _compile_for_hopper(kernel, signature, {"PDL": True})
    assert ptx is None or "griddepcontrol.wait" in ptx


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("chunk", [0, 1, 3], ids=["rotaries", "forms", "views"])
def test_on_cuda_the_one_kernel_gives_the_separate_launches_bits(
    chunk: int, tmp_path: Path
) -> None:
    pytest.importorskip("triton")
    text = _chunks("independent.mlir")[chunk]
    grouped = _lumir_opt(text, "group-fused", tmp_path=tmp_path)
    together, alone = load(grouped, device="cuda"), load(text, device="cuda")
    assert len(together.launches) < len(alone.launches)
    for seed in (0, 1):  # the first call captures the graphs, the second replays them
        inputs = [t.cuda() for t in seeded_inputs(text, seed)]
        got, want = together(*inputs), alone(*inputs)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want, strict=True):
            assert torch.equal(g.view(torch.uint8), w.view(torch.uint8))
    together.close()
    alone.close()
