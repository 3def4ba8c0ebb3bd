"""Programmatic dependent launch: when lumir asks for it, and the rule its kernels keep.

A kernel launched with `launch_pdl=True` may start while the previous kernel still runs,
so every program must wait (`wait_for_previous_launch(PDL)`) before it reads anything a
kernel writes and before it writes anything. No GPU can check that here; the kernels'
source can: `test_every_pdl_kernel_waits_before_touching_memory` reads each Triton kernel
module of `lumir/runtime` and holds every `@triton.jit` function with a `PDL` parameter
to the rule. The only memory access allowed before the wait is a GEMV's weight prefetch,
inside `if PREFETCH_A:`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lumir.runtime import pdl
from lumir.runtime.pdl import NO_PDL, PdlMode, pdl_supported

KERNEL_MODULES = sorted(Path(pdl.__file__).parent.glob("*_kernel.py"))
MEMORY_OPS = {"load", "store", "atomic_add", "atomic_cas", "atomic_xchg", "atomic_max"}
WAIT = "wait_for_previous_launch"


def test_launch_options_of_each_mode() -> None:
    assert NO_PDL.kernel_options() == {}
    assert PdlMode(dependent=True).kernel_options() == {"PDL": True, "launch_pdl": True}
    prefetch = PdlMode(dependent=True, prefetch_weight=True).kernel_options()
    assert prefetch == {"PREFETCH_A": True, "PDL": True, "launch_pdl": True}
    # Without PDL the prefetch is only an earlier load (the interpreter check's form).
    assert PdlMode(prefetch_weight=True).kernel_options() == {"PREFETCH_A": True}


@pytest.mark.parametrize("variable", [("LUMIR_PDL", "0"), ("TRITON_INTERPRET", "1")])
def test_pdl_is_off_when_the_environment_says_so(
    variable: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decided before any CUDA call, so it holds on machines without a GPU too."""
    monkeypatch.setenv(*variable)
    pdl_supported.cache_clear()
    try:
        assert not pdl_supported(0)
    finally:
        pdl_supported.cache_clear()


def _jit_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    def is_jit(decorator: ast.expr) -> bool:
        return isinstance(decorator, ast.Attribute) and decorator.attr == "jit"

    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and any(map(is_jit, node.decorator_list))
    }


def _called_name(call: ast.Call) -> str | None:
    function = call.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else None


def _touching(functions: dict[str, ast.FunctionDef]) -> set[str]:
    """The jit functions that load or store, themselves or through another."""
    touching: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, function in functions.items():
            calls = {_called_name(n) for n in ast.walk(function) if isinstance(n, ast.Call)}
            if name not in touching and calls & (MEMORY_OPS | touching):
                touching.add(name)
                changed = True
    return touching


def _prefetch_nodes(function: ast.FunctionDef) -> set[int]:
    """ids of the nodes inside `if PREFETCH_A:` blocks."""
    inside: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "PREFETCH_A":
            for statement in node.body:
                inside.update(id(n) for n in ast.walk(statement))
    return inside


def _accesses_before_the_wait(function: ast.FunctionDef, touching: set[str]) -> list[str]:
    calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
    waits = [c.lineno for c in calls if _called_name(c) == WAIT]
    if not waits:
        return ["no wait at all"]
    prefetch = _prefetch_nodes(function)
    early = []
    for call in calls:
        name = _called_name(call)
        memory = name in MEMORY_OPS or name in touching
        if memory and call.lineno < min(waits) and id(call) not in prefetch:
            early.append(f"line {call.lineno}: {ast.unparse(call)[:60]}")
    return early


@pytest.mark.parametrize("path", KERNEL_MODULES, ids=lambda path: path.stem)
def test_every_pdl_kernel_waits_before_touching_memory(path: Path) -> None:
    functions = _jit_functions(ast.parse(path.read_text()))
    touching = _touching(functions)
    for name, function in functions.items():
        if name == WAIT or "PDL" not in [argument.arg for argument in function.args.args]:
            continue
        calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
        waits_itself = any(_called_name(call) == WAIT for call in calls)
        handed_on = [
            _called_name(call)
            for call in calls
            if any(isinstance(a, ast.Name) and a.id == "PDL" for a in call.args)
            and _called_name(call) in functions
        ]
        if waits_itself:
            assert _accesses_before_the_wait(function, touching) == [], (path.name, name)
        else:
            # It must hand PDL to a helper that waits, and touch nothing but through it.
            assert handed_on, f"{path.name}: {name} takes PDL but never waits"
            own = {_called_name(call) for call in calls} & MEMORY_OPS
            assert own == set(), f"{path.name}: {name} touches memory outside its helper"


def test_the_rule_catches_a_store_before_the_wait() -> None:
    """The checker itself: a kernel that stores before waiting is reported."""
    source = """
@triton.jit
def bad(out_ptr, PDL: tl.constexpr = False):
    tl.store(out_ptr, 1.0)
    wait_for_previous_launch(PDL)
"""
    (function,) = _jit_functions(ast.parse(source)).values()
    assert _accesses_before_the_wait(function, set()) == ["line 4: tl.store(out_ptr, 1.0)"]
