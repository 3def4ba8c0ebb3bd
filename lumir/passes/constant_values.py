"""Values an `hl` function computes from constants alone, evaluated at compile time.

Some values of an imported graph do not depend on its arguments at all: with its shapes
fixed, a prefill's attention mask is `arange`s, comparisons and a `where` of constants.
hl-canonicalize asks for such a value to decide what it is (an all-pass mask, a causal
one) and rewrites the op that reads it; the value itself is not written into the IR.

The evaluation runs the value's backward slice on the CPU with the reference
interpreter's kernels (`lumir.runtime.interpreter.run_op`), so a value is what the
program would compute for it. Only pure `hl` ops with one result take part, and the
slice is bounded (`MAX_SLICE_OPS` ops, `MAX_ELEMENTS` elements a value) so compile time
stays small; anything outside those bounds, or that the interpreter cannot run, is "not
known" (None), and the caller leaves the IR as it is.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, ShapedType, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import ConstantLike, Pure

from lumir.diagnostics import copy_location
from lumir.dialects import hl

if TYPE_CHECKING:
    import torch

MAX_SLICE_OPS = 256
"""The most ops one value's backward slice may hold to be evaluated."""

MAX_ELEMENTS = 1 << 22
"""The most elements any value of the slice may hold (a 2048 x 2048 mask)."""


def _evaluable(op: Operation) -> bool:
    if op.dialect_name() != "hl" or len(op.results) != 1 or op.regions:
        return False
    if not (op.has_trait(Pure) or op.has_trait(ConstantLike)):
        return False
    shaped = op.results[0].type
    if not isinstance(shaped, ShapedType):
        return False
    return math.prod(shaped.get_shape()) <= MAX_ELEMENTS


def backward_slice(value: SSAValue) -> list[Operation] | None:
    """The ops that compute `value` from constants alone, in program order; None when it
    reads a block argument, or an op outside the bounds above."""
    found: dict[Operation, None] = {}
    pending = [value]
    while pending:
        owner = pending.pop().owner
        if not isinstance(owner, Operation):
            return None  # a block argument: the value depends on the function's inputs
        if owner in found:
            continue
        if not _evaluable(owner) or len(found) == MAX_SLICE_OPS:
            return None
        found[owner] = None
        pending.extend(owner.operands)
    block = value.owner.parent_block() if isinstance(value.owner, Operation) else None
    if block is None or any(op.parent_block() is not block for op in found):
        return None
    return sorted(found, key=block.get_operation_index)


class ConstantEvaluator:
    """Evaluates values from constants, remembering each answer (a mask read by every
    layer's attention is evaluated once)."""

    def __init__(self) -> None:
        self._known: dict[SSAValue, torch.Tensor | None] = {}

    def value(self, value: SSAValue) -> torch.Tensor | None:
        """`value` as a CPU tensor, or None when it is not known at compile time."""
        if value not in self._known:
            self._known[value] = self._evaluate(value)
        return self._known[value]

    def _evaluate(self, value: SSAValue) -> torch.Tensor | None:
        ops = backward_slice(value)
        if ops is None:
            return None
        from torch.utils._python_dispatch import _disable_current_modes

        from lumir.diagnostics import LumirDiagnosticError
        from lumir.runtime.interpreter import run_op

        results: dict[SSAValue, torch.Tensor] = {}
        # The backend compiles inside Dynamo's fake-tensor mode, where a tensor holds no
        # values; the slice runs on real CPU tensors with every dispatch mode set aside.
        with _disable_current_modes():
            try:
                for op in ops:
                    results[op.results[0]] = run_op(op, [results[v] for v in op.operands])
            except (LumirDiagnosticError, RuntimeError, ValueError, TypeError):
                return None
        return results[value]


MAX_FOLDED_ELEMENTS = 4096
"""The most elements an integer value may hold to be written into the IR as a literal
(`fold_known_integers`): 32 KiB of i64, an index range of a 4096-token prompt."""


def fold_known_integers(func: FuncOp) -> int:
    """Replace each integer or boolean value of `func`'s body that constants alone
    determine (an `arange` of fixed bounds, that `arange + 0`, a comparison of two of
    them) by an `hl.constant` of its value, and erase the ops only it read; returns the
    number of values replaced.

    Such a value is the same at every call, so computing it is work a program should
    do once, when it loads (a `cublaslt_rt.constant`), not in every call: each of
    these ops would otherwise be a launch of its own, ~1.5-2 µs inside a CUDA graph,
    where a decode step's whole layer is ~70 µs. Only integers and booleans are folded:
    their values are exact on every device, where a float op evaluated on the CPU
    (a `cos`) may round otherwise than the device's kernel. A value of more than
    `MAX_FOLDED_ELEMENTS` elements, a view (its launch is free) and an op inside a fused
    kernel's body are left alone. Runs on the body's top level, in program order, so
    the IR it gives depends on nothing but the function.
    """
    evaluator = ConstantEvaluator()
    block = func.body.block
    made_dead: dict[Operation, None] = {}
    folded = 0
    for op in list(block.ops):
        if not _foldable(op):
            continue
        result = op.results[0]
        computed_by = backward_slice(result)
        if computed_by is None:  # reads an argument: nothing to evaluate
            continue
        value = evaluator.value(result)
        if value is None:
            continue
        assert isinstance(result.type, TensorType)
        literal = DenseIntOrFPElementsAttr.from_list(result.type, _elements(value))
        constant = hl.ConstantOp(literal)
        copy_location(op, constant)
        block.insert_op_before(constant, op)
        result.replace_all_uses_with(constant.result)
        made_dead.update(dict.fromkeys(computed_by))
        folded += 1
    for op in reversed(list(block.ops)):  # readers before what they read
        if op in made_dead and not any(r.uses for r in op.results):
            op.detach()
            op.erase()
    return folded


def _elements(value: torch.Tensor) -> list[int]:
    """The tensor's elements in row-major order, as Python integers (booleans as 0/1),
    read outside any dispatch mode: the backend compiles under Dynamo's fake-tensor
    mode, where a real tensor's methods would not run."""
    from torch.utils._python_dispatch import _disable_current_modes

    with _disable_current_modes():
        return [int(v) for v in value.reshape(-1).tolist()]


_VIEW_OPS = ("hl.reshape", "hl.transpose", "hl.expand", "hl.slice")
"""Shape ops, which lowering mostly makes views of their input: nothing to gain."""


def _foldable(op: Operation) -> bool:
    if op.dialect_name() != "hl" or isinstance(op, hl.ConstantOp) or op.name in _VIEW_OPS:
        return False
    if len(op.results) != 1 or op.regions or not op.has_trait(Pure):
        return False
    result_type = op.results[0].type
    return (
        isinstance(result_type, TensorType)
        and isinstance(result_type.element_type, IntegerType)
        and math.prod(result_type.get_shape()) <= MAX_FOLDED_ELEMENTS
    )


__all__ = [
    "MAX_ELEMENTS",
    "MAX_FOLDED_ELEMENTS",
    "MAX_SLICE_OPS",
    "ConstantEvaluator",
    "backward_slice",
    "fold_known_integers",
]
