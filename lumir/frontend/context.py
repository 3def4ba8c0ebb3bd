"""What a converter sees while importing one FX node: values, sizes, dtypes, an op sink."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import fx
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from lumir.dialects import hl
from lumir.frontend.dtypes import element_type
from lumir.frontend.shapes import Bindings, concrete_shape, evaluate, evaluate_scalar


class UnsupportedNodeError(ValueError):
    """A node the importer claimed but cannot express in `hl` (the message says why)."""


class ImportContext:
    """The state of one import: FX values already imported and the ops emitted so far.

    Converters ask it for operand values (`value`), concrete sizes (`shape`, `integer`),
    and hand it the ops they build (`emit`); sizes always come through the bindings of
    this specialisation.
    """

    def __init__(self, bindings: Bindings):
        self.bindings = bindings
        self.values: dict[fx.Node, SSAValue] = {}
        self.ops: list[Operation] = []

    def emit(self, op: Operation) -> SSAValue:
        """Append `op` to the function body; return its (single) result."""
        self.ops.append(op)
        return op.results[0]

    def value(self, arg: object) -> SSAValue:
        """The imported value of a tensor-valued node argument."""
        if not isinstance(arg, fx.Node) or arg not in self.values:
            raise UnsupportedNodeError(f"expected an imported tensor, got {arg!r}")
        return self.values[arg]

    def example(self, node: fx.Node) -> torch.Tensor:
        """The (fake) tensor a node computes, as recorded by tracing."""
        val = node.meta.get("val")
        if isinstance(val, list | tuple):
            val = val[0]
        if not isinstance(val, torch.Tensor):
            raise UnsupportedNodeError(f"node {node.name} has no tensor value")
        return val

    def shape(self, node: fx.Node) -> tuple[int, ...]:
        """The concrete shape of a node's tensor in this specialisation."""
        return concrete_shape(self.example(node), self.bindings)

    def dtype(self, node: fx.Node) -> torch.dtype:
        return self.example(node).dtype

    def tensor_type(self, node: fx.Node) -> TensorType:
        """The hl result type of a node: its dtype and concrete shape."""
        return TensorType(element_type(self.dtype(node)), list(self.shape(node)))

    def integer(self, arg: object) -> int:
        """A concrete int from a literal, a SymInt, or a node computing a SymInt."""
        if isinstance(arg, fx.Node):
            return evaluate(arg.meta["val"], self.bindings)
        return evaluate(arg, self.bindings)

    def scalar(self, arg: object) -> int | float:
        """A concrete number from a literal, a SymInt or SymFloat, or a node computing one."""
        value = arg.meta["val"] if isinstance(arg, fx.Node) else arg
        return evaluate_scalar(value, self.bindings)

    def integers(self, args: Sequence[object]) -> list[int]:
        return [self.integer(a) for a in args]

    def constant(self, value: float, element: Attribute, shape: Sequence[int] = ()) -> SSAValue:
        """An `hl.constant` of `shape` filled with `value` (a 0-d scalar by default)."""
        literal_type = TensorType(element, list(shape))
        return self.emit(hl.ConstantOp(DenseIntOrFPElementsAttr.from_list(literal_type, [value])))

    def cast(self, value: SSAValue, element: Attribute) -> SSAValue:
        """`value` converted to `element` (no op when it already has that element type)."""
        assert isinstance(value.type, TensorType)
        if value.type.element_type == element:
            return value
        return self.emit(hl.CastOp(value, element))

    def reshape(self, value: SSAValue, result_type: TensorType) -> SSAValue:
        """`value` reshaped to `result_type` (no op when the types already agree)."""
        if value.type == result_type:
            return value
        return self.emit(hl.ReshapeOp(operands=[value], result_types=[result_type]))
