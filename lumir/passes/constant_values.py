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

from xdsl.dialects.builtin import ShapedType
from xdsl.ir import Operation, SSAValue
from xdsl.traits import ConstantLike, Pure

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


__all__ = ["MAX_ELEMENTS", "MAX_SLICE_OPS", "ConstantEvaluator", "backward_slice"]
