"""The hl verifiers accept exactly the element types the CPU executor can run.

Every elementwise `hl` op runs as its torch call (`lumir.runtime.hl_torch`), and torch's
CPU kernels leave some types out (`"abs_cpu" not implemented for 'Bool'`, nearly
everything on f8). A program the verifier accepts must run, so for every elementwise op
and every element type lumir stores (`lumir.dtypes`), the verifier refuses the op
exactly when the unfused reference interpreter, the same torch table the executors
use, cannot run it. When torch gains or drops a kernel this test names the cell, and
`lumir.dialects.hl.elementwise.NO_CPU_KERNEL` is updated to match.
"""

from __future__ import annotations

import pytest
import torch

from lumir.diagnostics import LumirDiagnosticError, verify_module
from lumir.dtypes import ELEMENT_DTYPES
from lumir.parsing import parse_module_text
from lumir.runtime.interpreter import interpret

UNARY = [
    "neg",
    "rsqrt",
    "sqrt",
    "exp",
    "log",
    "erf",
    "log1p",
    "expm1",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "atan",
    "tan",
    "abs",
    "cos",
    "sin",
    "relu",
    "silu",
    "sigmoid",
    "tanh",
]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]
FLOATING_BINARY = ["fmod"]
"""Binary ops whose type takes floating-point operands only: on the other element types
the verifier refuses them whatever torch can run."""
OPS = (
    *UNARY,
    "gelu:none",
    "gelu:tanh",
    *BINARY,
    *FLOATING_BINARY,
    *(f"compare:{p}" for p in ("eq", "ne", "lt", "le", "gt", "ge")),
    "where",
)


def _program(op: str, element: str) -> tuple[str, int]:
    """A one-op function of `op` on tensor<4x`element`>, and its number of arguments."""
    t = f"tensor<4x{element}>"
    name, _, option = op.partition(":")
    if name in UNARY:
        body, args, result = f"hl.{name} %x : {t} -> {t}", f"%x: {t}", t
    elif name == "gelu":
        body, args, result = f'hl.gelu %x {{approximate = "{option}"}} : {t} -> {t}', f"%x: {t}", t
    elif name == "compare":
        result = "tensor<4xi1>"
        body = f'hl.compare %x, %y {{predicate = "{option}"}} : ({t}, {t}) -> {result}'
        args = f"%x: {t}, %y: {t}"
    elif name == "where":
        mask = "tensor<4xi1>"
        body = f"hl.where %c, %x, %y : ({mask}, {t}, {t}) -> {t}"
        args, result = f"%c: {mask}, %x: {t}, %y: {t}", t
    else:
        body, args, result = f"hl.{name} %x, %y : ({t}, {t}) -> {t}", f"%x: {t}, %y: {t}", t
    text = f"func.func @f({args}) -> {result} {{\n  %r = {body}\n  func.return %r : {result}\n}}\n"
    return text, args.count("%")


@pytest.mark.parametrize("element", ELEMENT_DTYPES, ids=[row.name for row in ELEMENT_DTYPES])
@pytest.mark.parametrize("op", OPS)
def test_verifier_refuses_exactly_what_torch_cannot_run(op: str, element) -> None:
    text, arity = _program(op, element.name)
    module = parse_module_text(text, "<test>")
    problems = verify_module(module)
    if op in FLOATING_BINARY and not element.torch_dtype().is_floating_point:
        assert problems and "needs a floating-point input" in str(problems[0]), problems
        return
    inputs = [torch.ones(4).to(element.torch_dtype()) for _ in range(arity)]
    if op == "where":
        inputs[0] = torch.tensor([True, False, True, False])
    try:
        interpret(module, inputs)
        ran = True
    except LumirDiagnosticError as error:
        assert "torch cannot run" in str(error.diagnostics[0]), error.diagnostics
        ran = False
    refused = [str(p) for p in problems]
    assert ran == (not refused), (
        f"{op} on {element.name}: the verifier "
        f"{'refuses' if refused else 'accepts'} it, torch {'runs' if ran else 'cannot run'} it"
        f"{': ' + refused[0] if refused else ''}"
    )
    if refused:
        assert (
            f"cannot run on {element.name}: torch's CPU kernel does not implement it"
            in (refused[0])
        )
