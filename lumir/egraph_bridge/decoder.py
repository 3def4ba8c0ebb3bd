"""Write an extraction back into the block as xDSL ops.

Every op the pass did not encode stays where it is. Before each such op, the values it
reads that were terms are materialised from the chosen e-nodes (once per class, so
sharing survives), children first. An hl e-node written in the input is the input op
again (cloned, attributes and name kept); any other node becomes a new op with the
location and name of the op whose value its class computes. Every call is built afresh
from `descriptors.call_descriptor`, so each `cublaslt.matmul` the pass emits carries a
recomputed, consistent descriptor and prints in one canonical form. The replaced ops are
then erased, and pure ops that only fed them (a scalar constant folded into alpha) go
with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import LocationAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import Pure

from lumir.cublaslt_enums import DataType
from lumir.dialects import hl
from lumir.dialects.cublaslt import MatmulOp
from lumir.egraph_bridge.descriptors import call_descriptor
from lumir.egraph_bridge.egraph_view import EGraphView, ENode
from lumir.egraph_bridge.encoder import EncodedBlock, TermOp


@dataclass(frozen=True)
class _Signature:
    kind: str
    fields: tuple[object, ...]
    children: tuple[int | None, ...]


def input_nodes(view: EGraphView, encoded: EncodedBlock) -> dict[tuple[int, str], TermOp]:
    """(class id, node key) -> the input op that e-node was encoded from."""
    by_signature: dict[_Signature, TermOp] = {}
    for term in encoded.term_ops:
        children = tuple(None if i is None else view.class_of_value[i] for i in term.operands)
        by_signature.setdefault(_Signature(term.kind, term.fields, children), term)
    found: dict[tuple[int, str], TermOp] = {}
    for eclass in view.classes:
        for node in eclass.nodes:
            term = by_signature.get(_Signature(node.kind, node.fields, node.children))
            if term is not None and view.class_of_value[term.index] == eclass.id:
                found[(eclass.id, node.key)] = term
    return found


def home_ops(view: EGraphView, encoded: EncodedBlock) -> dict[int, Operation]:
    """Class id -> the input op whose value it computes (its first, by value index)."""
    term_of_value = {term.index: term.op for term in encoded.term_ops}
    homes: dict[int, Operation] = {}
    for eclass in view.classes:
        for index in eclass.values:
            if index in term_of_value:
                homes[eclass.id] = term_of_value[index]
                break
    return homes


def _term_values(encoded: EncodedBlock) -> dict[SSAValue, int]:
    return {term.op.results[0]: term.index for term in encoded.term_ops}


def needed_classes(view: EGraphView, encoded: EncodedBlock) -> list[int]:
    """Classes whose values ops outside the terms read, in the order they are read."""
    term_values = _term_values(encoded)
    term_ops = {term.op for term in encoded.term_ops}
    roots: list[int] = []
    seen: set[int] = set()
    for op in encoded.block.ops:
        if op in term_ops:
            continue
        for inner in op.walk():
            for operand in inner.operands:
                index = term_values.get(operand)
                if index is not None and view.class_of_value[index] not in seen:
                    seen.add(view.class_of_value[index])
                    roots.append(view.class_of_value[index])
    for term in encoded.term_ops:
        for use in term.op.results[0].uses:
            if use.operation not in term_ops and _top_level(use.operation, encoded.block) is None:
                cls = view.class_of_value[term.index]
                if cls not in seen:
                    seen.add(cls)
                    roots.append(cls)
    return roots


def _top_level(op: Operation, block: Block) -> Operation | None:
    """The op of `block` that is `op` or contains it, or None if `op` is elsewhere."""
    current: Operation | None = op
    while current is not None:
        if current.parent_block() is block:
            return current
        current = current.parent_op()
    return None


class CyclicSelectionError(Exception):
    """The chosen nodes of a class depend on the class itself (an extractor bug)."""

    def __init__(self, key: str):
        super().__init__(f"the selection for class {key} depends on itself")


class _Builder:
    """Materialises chosen e-nodes as ops, once per class."""

    def __init__(
        self,
        view: EGraphView,
        encoded: EncodedBlock,
        choice: dict[int, ENode],
    ):
        self.view = view
        self.encoded = encoded
        self.choice = choice
        self.inputs = input_nodes(view, encoded)
        self.homes = home_ops(view, encoded)
        self.values: dict[int, SSAValue] = {}

    def value(self, cls: int, anchor: Operation) -> SSAValue:
        """The SSA value of class `cls`, building missing ops before `anchor`."""
        stack: list[tuple[int, LocationAttr, bool]] = [(cls, anchor.location, False)]
        open_classes: set[int] = set()
        while stack:
            current, location, expanded = stack.pop()
            if current in self.values:
                continue
            node = self.choice[current]
            if node.kind == "Leaf":
                self.values[current] = self.encoded.leaves[str(node.fields[0])]
                continue
            home = self.homes.get(current)
            here = home.location if home is not None else location
            if not expanded:
                if current in open_classes:
                    raise CyclicSelectionError(self.view.classes[current].key)
                open_classes.add(current)
                stack.append((current, location, True))
                for child in reversed(node.operands):
                    if child not in self.values:
                        stack.append((child, here, False))
                continue
            op = self.build(current, node, here)
            anchor.parent_block().insert_op_before(op, anchor)  # type: ignore[union-attr]
            self.values[current] = op.results[0]
            open_classes.discard(current)
        return self.values[cls]

    def operand(self, cls: int | None) -> SSAValue | None:
        return None if cls is None else self.values[cls]

    def build(self, cls: int, node: ENode, location: LocationAttr) -> Operation:
        """One op for `node`: the input op again when the node came from it, else a new one."""
        term = self.inputs.get((cls, node.key))
        operands = [self.operand(c) for c in node.children]
        if term is not None and node.kind != "Matmul":
            op = term.op.clone()
            op.operands = [v for v in operands if v is not None]
            return op
        result = self.view.classes[cls].tensor_type
        assert result is not None, "a selected node's class has a type"
        op = self._new_op(node, operands, result)
        origin = term.op if term is not None else self.homes.get(cls)
        op.location = origin.location if origin is not None else location
        if origin is not None and origin.results[0].name_hint is not None:
            op.results[0].name_hint = origin.results[0].name_hint
        return op

    def _new_op(
        self,
        node: ENode,
        operands: Sequence[SSAValue | None],
        result: TensorType[Attribute],
    ) -> Operation:
        if node.kind == "Matmul":
            a, b, c, bias = operands
            assert a is not None and b is not None
            c_type = _tensor(c) if c is not None else None
            desc = call_descriptor(node.call, _tensor(a), _tensor(b), c_type, result)
            return MatmulOp(desc, a, b, result, c=c, bias=bias)
        values = [v for v in operands if v is not None]
        if node.kind == "Add":
            return hl.AddOp(values[0], values[1], result)
        if node.kind == "Mul":
            return hl.MulOp(values[0], values[1], result)
        if node.kind == "Relu":
            return hl.ReluOp(values[0])
        if node.kind == "Gelu":
            return hl.GeluOp(values[0], str(node.fields[0]))
        if node.kind == "Cast":
            return hl.CastOp(values[0], DataType(str(node.fields[0])).element_type())
        if node.kind == "Transpose":
            permutation = [int(p) for p in str(node.fields[0]).split(",")]
            return hl.TransposeOp(values[0], permutation)
        if node.kind == "Reshape":
            return hl.ReshapeOp(operands=[values[0]], result_types=[result])
        raise AssertionError(f"no op for e-node kind {node.kind}")


def decode(view: EGraphView, encoded: EncodedBlock, choice: dict[int, ENode]) -> None:
    """Rewrite the block so every non-term op reads the chosen terms' values."""
    block = encoded.block
    builder = _Builder(view, encoded, choice)
    term_values = _term_values(encoded)
    term_ops = {term.op for term in encoded.term_ops}
    was_used = [op for op in block.ops if op not in term_ops and _has_uses(op)]
    for op in list(block.ops):
        if op in term_ops:
            continue
        for inner in op.walk():
            for position, operand in enumerate(inner.operands):
                index = term_values.get(operand)
                if index is not None:
                    cls = view.class_of_value[index]
                    inner.operands[position] = builder.value(cls, op)
    anchor = block.last_op
    for term in encoded.term_ops:
        result = term.op.results[0]
        for use in list(result.uses):
            if use.operation not in term_ops:
                assert anchor is not None
                cls = view.class_of_value[term.index]
                use.operation.operands[use.index] = builder.value(cls, anchor)
    for term in reversed(encoded.term_ops):
        block.erase_op(term.op)
    for op in reversed(was_used):
        if not _has_uses(op) and op.has_trait(Pure) and not op.regions:
            block.erase_op(op)


def _tensor(value: SSAValue) -> TensorType[Attribute]:
    assert isinstance(value.type, TensorType), "call operands are tensors"
    return value.type


def _has_uses(op: Operation) -> bool:
    return any(result.first_use is not None for result in op.results)
