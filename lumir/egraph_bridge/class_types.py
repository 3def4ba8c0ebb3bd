"""After saturation, every e-class must hold one tensor type; a rule that broke that is named.

A rule that forgets a broadcast or a view can declare equal two values of different
types, or build a node (an ill-sized reshape) that computes no value of its class's type.
Extraction would then pick among nodes that do not compute the same thing, and the
decoder would build ill-typed IR or fail far from the cause. So the saturated e-graph is
checked before extraction: the program values a class holds share one type, and every
node the rules built computes its class's type from its children's. The error names the
rules recorded as building the node (or merging classes into this one, provenance.py).
Calls are left to the verifier, which checks their types fully (V8, V9).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from lumir.cublaslt_enums import DataType
from lumir.egraph_bridge.egraph_view import EClass, EGraphView, ENode
from lumir.egraph_bridge.encoder import EncodedBlock, tensor_type
from lumir.egraph_bridge.terms import parse_shape


class MistypedClassError(Exception):
    """An e-class holds values or nodes of different types; `rules` are the suspects."""

    def __init__(self, message: str, class_id: int, rules: tuple[str, ...]):
        super().__init__(message)
        self.class_id = class_id
        self.rules = rules


def _broadcast(lhs: Sequence[int], rhs: Sequence[int]) -> list[int] | None:
    """The broadcast shape of two shapes (trailing dimensions aligned), None if none."""
    rank = max(len(lhs), len(rhs))
    left = [1] * (rank - len(lhs)) + list(lhs)
    right = [1] * (rank - len(rhs)) + list(rhs)
    shape = []
    for a, b in zip(left, right, strict=True):
        if a != b and 1 not in (a, b):
            return None
        shape.append(b if a == 1 else a)
    return shape


def _permuted(shape: Sequence[int], permutation: str) -> list[int] | None:
    order = [int(p) for p in permutation.split(",")]
    if sorted(order) != list(range(len(shape))):
        return None
    return [shape[p] for p in order]


def node_type(
    node: ENode, children: Sequence[TensorType[Attribute]]
) -> TensorType[Attribute] | None:
    """The type a non-call node computes from its children's types, None if ill-typed."""
    first = children[0]
    shape = list(first.get_shape())
    element = first.element_type
    if node.kind in ("Add", "Mul"):
        other = children[1]
        if other.element_type != element:
            return None
        broadcast = _broadcast(shape, other.get_shape())
        return None if broadcast is None else TensorType(element, broadcast)
    if node.kind in ("Relu", "Gelu"):
        return first
    (text,) = node.fields
    assert isinstance(text, str)
    if node.kind == "Cast":
        return TensorType(DataType(text).element_type(), shape)
    if node.kind == "Transpose":
        permuted = _permuted(shape, text)
        return None if permuted is None else TensorType(element, permuted)
    target = list(parse_shape(text))
    if math.prod(target) != math.prod(shape):
        return None
    return TensorType(element, target)


def _suspects(eclass: EClass, node: ENode | None) -> tuple[str, ...]:
    rules = tuple(node.made_by) if node is not None else ()
    return rules or eclass.merged_by


def _error(eclass: EClass, node: ENode | None, what: str) -> MistypedClassError:
    rules = _suspects(eclass, node)
    named = ", ".join(f"'{rule}'" for rule in rules)
    who = f"rule {named}" if rules else "no recorded rule"
    return MistypedClassError(
        f"{who} merged two tensor types into e-class {eclass.key}: {eclass.tensor_type} and {what}",
        eclass.id,
        rules,
    )


def check_class_types(view: EGraphView, encoded: EncodedBlock) -> None:
    """Raise `MistypedClassError` for the first class (in stable order) holding two types."""
    for eclass in view.classes:
        expected = eclass.tensor_type
        if expected is None:
            continue
        for value in eclass.values:
            found = tensor_type(encoded.values[value])
            if found != expected:
                raise _error(eclass, None, f"program value %{value} of type {found}")
        for node in eclass.nodes:
            if node.kind in ("Leaf", "Matmul"):
                continue
            children = [view.classes[c].tensor_type for c in node.operands]
            if any(child is None for child in children):
                continue
            computed = node_type(node, children)  # type: ignore[arg-type]
            if computed != expected:
                shown = "no valid type" if computed is None else str(computed)
                raise _error(eclass, node, f"a {node.kind} node computing {shown}")
