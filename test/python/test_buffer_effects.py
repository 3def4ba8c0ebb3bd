"""Every runtime op's `buffer_access` names every buffer it touches, and only those.

The grouping passes move ops across each other, and the grouped GEMV's checks walk a
program's later ops, by what each op says it reads and writes
(`lumir.dialects.cublaslt_rt.access`). An op that touched a buffer it does not name
would let a pass move a write across a read of the same bytes: a wrong result on CUDA,
silently. So this test takes every program of the runtime lit tests and checks, op by
op, that the answer covers every buffer operand of the op and of its steps (a group's
members, prologue and epilogue; a read of bytes a step of the group wrote before is the
group's own, no read), that what it writes is among those, and that the ops
done at load time (`alloc`, `constant`, `view`) touch nothing at run time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from lumir.context import lumir_context
from lumir.diagnostics import LumirDiagnosticError
from lumir.dialects.cublaslt_rt import AllocOp, BufferOp, ConstantOp, ViewOp, access, byte_range
from lumir.parsing import parse_module_text
from lumir.passes.group_fused import GroupFusedPass
from lumir.passes.group_gemv import GroupGemvPass
from lumir.passes.group_launches import GroupLaunchesPass

LIT = Path(__file__).resolve().parents[1] / "lit"
RUNTIME_LIT_DIRS = (
    "cublaslt_rt",
    "group-gemv",
    "gemv-epilogue",
    "gemv-prologue",
    "group-fused",
    "group-launches",
    "share-buffers",
    "chunk-rows",
)


def _programs() -> list[tuple[str, ModuleOp]]:
    """Every chunk of the runtime lit tests that parses and verifies, named by file:chunk."""
    found: list[tuple[str, ModuleOp]] = []
    for folder in RUNTIME_LIT_DIRS:
        for path in sorted((LIT / folder).glob("*.mlir")):
            for index, text in enumerate(path.read_text(encoding="utf-8").split("// -----")):
                try:
                    module = parse_module_text(text, path.name)
                    module.verify()
                except (LumirDiagnosticError, VerifyException):  # the invalid cases
                    continue
                found.append((f"{folder}/{path.name}:{index}", module))
                grouped = module.clone()
                for grouping in (GroupGemvPass(), GroupLaunchesPass(), GroupFusedPass()):
                    grouping.apply(lumir_context(), grouped)
                if str(grouped) != str(module):  # the groups the passes make, too
                    found.append((f"{folder}/{path.name}:{index}:grouped", grouped))
    return found


PROGRAMS = _programs()


def _buffers(op: Operation) -> set[SSAValue]:
    """The buffer operands of `op` and of every op nested in it that it does not define."""
    inner = {result for nested in op.walk() for result in nested.results}
    inner |= {
        arg
        for nested in op.walk()
        for region in nested.regions
        for block in region.blocks
        for arg in block.args
    }
    return {
        value
        for nested in op.walk()
        for value in nested.operands
        if isinstance(value.type, MemRefType) and value not in inner
    }


def _written(value: SSAValue, writes: tuple[SSAValue, ...]) -> bool:
    """Whether the op writes every byte of `value` (a group reading what one of its own
    steps wrote, through another view of those bytes: no read of older bytes)."""
    root, start, end = byte_range(value)
    return any(
        found is root and first <= start and end <= last
        for found, first, last in map(byte_range, writes)
    )


def _body_ops(module: ModuleOp) -> list[Operation]:
    functions = [op for op in module.ops if isinstance(op, FuncOp) and op.body.blocks]
    return [op for func in functions for op in func.body.block.ops]


def test_the_corpus_holds_every_runtime_op() -> None:
    """The check below sees every kind of op it is about (else it checks less than it says)."""
    names = {op.name for _, module in PROGRAMS for top in _body_ops(module) for op in top.walk()}
    for expected in (
        "cublaslt_rt.alloc",
        "cublaslt_rt.constant",
        "cublaslt_rt.view",
        "cublaslt_rt.matmul",
        "cublaslt_rt.matmul_group",
        "cublaslt_rt.launch",
        "cublaslt_rt.launch_group",
        "cublaslt_rt.fused_launch",
        "cublaslt_rt.fused_group",
    ):
        assert expected in names, expected


@pytest.mark.parametrize(("name", "module"), PROGRAMS, ids=[name for name, _ in PROGRAMS])
def test_an_op_names_every_buffer_it_touches(name: str, module: ModuleOp) -> None:
    for top in _body_ops(module):
        effects = access(top)
        if not isinstance(top, BufferOp):
            assert effects.everything, f"{name}: {top.name} does not say, so it may touch anything"
            continue
        assert not effects.everything, f"{name}: {top.name}"
        if isinstance(top, (AllocOp, ConstantOp, ViewOp)):
            assert effects.reads == effects.writes == (), f"{name}: {top.name} runs at load time"
            continue
        named = set(effects.reads) | set(effects.writes)
        missing = {v for v in _buffers(top) - named if not _written(v, effects.writes)}
        assert not missing, f"{name}: {top.name} touches {len(missing)} buffer(s) it does not name"
        assert set(effects.writes) <= _buffers(top), f"{name}: {top.name} writes a stranger"
        assert effects.writes, f"{name}: {top.name} runs and writes nothing"
