"""Read a saturated e-graph into plain Python: classes, e-nodes and stable keys.

egglog's `EGraph.freeze()` (present in egglog-python 13.2 and 14) lists every function's
rows. This module turns the Tensor rows into `EClass`es of `ENode`s, flattening the
helper sorts a call is built from (Call, Layout, Types, OptTensor) into each call node,
and attaching the rules that built each node (`made-by` for calls, the generated
`built-by-*` and `merged-by` facts for the rest, see provenance.py).

egglog's class ids are internal and could differ between runs, so nothing downstream
sees them. Every class gets a stable key instead: a class holding program values is
keyed by the smallest encoder index among them (`%12`), any other class by the smallest
key of its e-nodes, and an e-node's key is its constructor, fields and children's keys.
Classes are then numbered in key order, so every later loop over classes or nodes runs
in an order that depends only on the input program.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from egglog.bindings import EGraph
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from lumir.cublaslt_enums import DataType
from lumir.egraph_bridge.encoder import EncodedBlock, tensor_type
from lumir.egraph_bridge.provenance import TRACKED_CONSTRUCTORS, built_by_relation
from lumir.egraph_bridge.sorts import DTYPE, ENUM_SORTS, SORT_OF_ENUM
from lumir.egraph_bridge.terms import (
    CALL_OPERANDS,
    GROUP_SORTS,
    TENSOR_CONSTRUCTORS,
    TENSOR_SIGNATURES,
    UNARY_WITH_FIELD,
    CallFields,
    parse_shape,
)
from lumir.matmul_descriptor import GROUPS, DescriptorField, fields_in


@dataclass(frozen=True)
class ENode:
    """One e-node: constructor, fields, child classes (None = an absent C or bias)."""

    kind: str
    fields: tuple[object, ...]
    children: tuple[int | None, ...]
    key: str
    made_by: tuple[str, ...] = ()
    operands: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The child classes this node reads, absent operands left out."""

    def __post_init__(self) -> None:
        operands = tuple(child for child in self.children if child is not None)
        object.__setattr__(self, "operands", operands)

    @property
    def call(self) -> CallFields:
        """The call fields of a Matmul node."""
        (call,) = self.fields
        assert isinstance(call, CallFields)
        return call


@dataclass
class EClass:
    """One e-class: its stable key, type, program values and e-nodes (in key order)."""

    id: int
    key: str
    tensor_type: TensorType[Attribute] | None
    values: tuple[int, ...]
    nodes: list[ENode] = field(default_factory=list)
    merged_by: tuple[str, ...] = ()
    """Rules that merged an existing class into this one (`merged-by`)."""


@dataclass
class EGraphView:
    """The Tensor part of a saturated e-graph, numbered in stable-key order."""

    classes: list[EClass]
    class_of_value: list[int]
    """Encoder value index -> class id."""


@dataclass(frozen=True)
class _RawNode:
    kind: str
    fields: tuple[object, ...]
    children: tuple[object | None, ...]
    made_by: tuple[str, ...]


class _Reader:
    """Decodes egglog values of the frozen e-graph into Python."""

    def __init__(self, egraph: EGraph):
        self.egraph = egraph
        self.functions = egraph.freeze().functions

    def rows(self, name: str) -> list[object]:
        function = self.functions.get(name)
        if function is None:
            return []
        return [row for row in function.rows if not row.subsumed]

    def string(self, value: object) -> str:
        return self.egraph.value_to_string(value)

    def f64(self, value: object) -> float:
        return self.egraph.value_to_f64(value)

    def i64(self, value: object) -> int:
        return self.egraph.value_to_i64(value)

    @cached_property
    def _enum_texts(self) -> dict[str, dict[object, str]]:
        """Per enum sort: e-class value -> the IR spelling of its constant."""
        texts: dict[str, dict[object, str]] = {}
        for sort in ENUM_SORTS:
            found = texts.setdefault(sort.name, {})
            for name, text in sort.constructors.items():
                found.update((row.output, text) for row in self.rows(name))
            if sort.escape is not None:
                for row in self.rows(sort.escape):
                    found[row.output] = self.string(row.inputs[0])
        return texts

    def enum(self, sort: str, value: object) -> str:
        """The IR spelling (`"bf16"`) of a value of an enum sort."""
        return self._enum_texts[sort][value]

    def sorted_value(self, sort: str, value: object) -> object:
        """A `String`- or enum-sorted field of a Tensor node as Python text."""
        return self.string(value) if sort == "String" else self.enum(sort, value)

    def field(self, field: DescriptorField, value: object) -> object:
        """A descriptor field of a Call term as `CallFields` holds it."""
        if field.enum is None:
            return self.f64(value) + 0.0
        return self.enum(SORT_OF_ENUM[field.enum].name, value)


def _call_nodes(reader: _Reader) -> dict[object, list[tuple[CallFields, tuple[object, ...]]]]:
    """Call class -> its (fields, operand values) rows, with OptTensor unwrapped."""

    def group_fields(group: str, inputs: Sequence[object]) -> dict[str, object]:
        pairs = zip(fields_in(group), inputs, strict=True)
        return {f.name: reader.field(f, value) for f, value in pairs}

    groups = {
        group: {row.output: group_fields(group, row.inputs) for row in reader.rows(constructor)}
        for group, (_, constructor) in GROUP_SORTS.items()
    }
    absent = {row.output for row in reader.rows("NoTensor")}
    present = {row.output: row.inputs[0] for row in reader.rows("SomeTensor")}

    def optional(value: object) -> object | None:
        if value in absent:
            return None
        return present[value]

    calls: dict[object, list[tuple[CallFields, tuple[object, ...]]]] = {}
    for row in reader.rows("Call"):
        inputs = list(row.inputs)
        values: dict[str, object] = {}
        for group in GROUPS:
            if group in groups:
                values.update(groups[group][inputs.pop(0)])
            else:
                values.update((f.name, reader.field(f, inputs.pop(0))) for f in fields_in(group))
        assert len(inputs) == len(CALL_OPERANDS)
        a, b, c, bias = inputs
        fields = CallFields(**values)
        calls.setdefault(row.output, []).append((fields, (a, b, optional(c), optional(bias))))
    return calls


def _rules_by_key(reader: _Reader, relation: str) -> dict[tuple[object, ...], tuple[str, ...]]:
    """Rows of a provenance relation: its key columns -> the sorted rule names."""
    rules: dict[tuple[object, ...], list[str]] = {}
    for row in reader.rows(relation):
        *key, rule = row.inputs
        rules.setdefault(tuple(key), []).append(reader.string(rule))
    return {key: tuple(sorted(names)) for key, names in rules.items()}


def _raw_classes(reader: _Reader) -> dict[object, list[_RawNode]]:
    """Tensor class value -> its raw e-nodes (children still egglog values)."""
    made_by = _rules_by_key(reader, "made-by")
    built_by = {
        kind: _rules_by_key(reader, built_by_relation(kind)) for kind in TRACKED_CONSTRUCTORS
    }
    calls = _call_nodes(reader)
    classes: dict[object, list[_RawNode]] = {}
    for kind in TENSOR_CONSTRUCTORS:
        for row in reader.rows(kind):
            nodes = classes.setdefault(row.output, [])
            if kind == "Leaf":
                nodes.append(_RawNode(kind, (reader.string(row.inputs[0]),), (), ()))
            elif kind == "Matmul":
                rules = made_by.get((row.inputs[0],), ())
                for fields, children in calls[row.inputs[0]]:
                    nodes.append(_RawNode(kind, (fields,), children, rules))
            elif kind in UNARY_WITH_FIELD:
                child, text = row.inputs
                rules = built_by[kind].get(tuple(row.inputs), ())
                value = reader.sorted_value(TENSOR_SIGNATURES[kind][1], text)
                nodes.append(_RawNode(kind, (value,), (child,), rules))
            else:
                rules = built_by[kind].get(tuple(row.inputs), ())
                nodes.append(_RawNode(kind, (), tuple(row.inputs), rules))
    return classes


def _node_key(node: _RawNode, keys: dict[object, str]) -> str | None:
    """The node's stable key, or None while a child has no key yet."""
    parts: list[str] = []
    for child in node.children:
        if child is None:
            parts.append("_")
        elif child in keys:
            parts.append(keys[child])
        else:
            return None
    fields = ",".join(f.key if isinstance(f, CallFields) else str(f) for f in node.fields)
    return f"{node.kind}[{fields}]({' '.join(parts)})"


def _class_keys(
    raw: dict[object, list[_RawNode]], value_classes: Sequence[object]
) -> dict[object, str]:
    """Stable keys: `%i` for classes with program values, node-derived keys for the rest.

    The node-derived keys are computed in rounds, each from the keys known before it,
    so the result does not depend on the order classes are visited in.
    """
    keys: dict[object, str] = {}
    for index, cls in enumerate(value_classes):
        keys.setdefault(cls, f"%{index}")
    pending = [cls for cls in raw if cls not in keys]
    while pending:
        found: dict[object, str] = {}
        for cls in pending:
            candidates = [k for k in (_node_key(n, keys) for n in raw[cls]) if k is not None]
            if candidates:
                found[cls] = min(candidates)
        if not found:
            break  # classes reachable only through cycles of unkeyed classes: unusable
        keys.update(found)
        pending = [cls for cls in pending if cls not in found]
    return keys


def _sort_key(key: str) -> tuple[int, int, str]:
    if key.startswith("%"):
        return (0, int(key[1:]), "")
    return (1, 0, key)


def _class_type(
    values: tuple[int, ...], ty: tuple[str, str] | None, encoded: EncodedBlock
) -> TensorType[Attribute] | None:
    """A class's tensor type: its first program value's, or built from its `ty` fact."""
    if values:
        return tensor_type(encoded.values[values[0]])
    if ty is None:
        return None
    dtype_name, shape = ty
    try:
        element = DataType(dtype_name).element_type()
    except ValueError:
        return None
    return TensorType(element, list(parse_shape(shape)))


def read_egraph(egraph: EGraph, encoded: EncodedBlock) -> EGraphView:
    """The Tensor classes and e-nodes of `egraph`, keyed and numbered stably."""
    reader = _Reader(egraph)
    value_rows = {reader.i64(row.inputs[0]): row.output for row in reader.rows("value")}
    value_classes = [value_rows[i] for i in range(len(encoded.values))]
    raw = _raw_classes(reader)
    keys = _class_keys(raw, value_classes)
    ty_terms = {
        row.output: (reader.enum(DTYPE.name, row.inputs[0]), reader.string(row.inputs[1]))
        for row in reader.rows("Ty")
    }
    types = {row.inputs[0]: ty_terms[row.output] for row in reader.rows("ty")}
    merged_by = _rules_by_key(reader, "merged-by")

    ordered = sorted((cls for cls in raw if cls in keys), key=lambda c: _sort_key(keys[c]))
    number = {cls: i for i, cls in enumerate(ordered)}
    values_of: dict[object, list[int]] = {}
    for index, cls in enumerate(value_classes):
        values_of.setdefault(cls, []).append(index)

    classes: list[EClass] = []
    for cls in ordered:
        values = tuple(values_of.get(cls, ()))
        eclass = EClass(
            number[cls],
            keys[cls],
            _class_type(values, types.get(cls), encoded),
            values,
            merged_by=merged_by.get((cls,), ()),
        )
        nodes = []
        for node in raw[cls]:
            key = _node_key(node, keys)
            if key is None or any(c is not None and c not in number for c in node.children):
                continue
            children = tuple(None if c is None else number[c] for c in node.children)
            nodes.append(ENode(node.kind, node.fields, children, key, node.made_by))
        eclass.nodes = sorted(nodes, key=lambda n: n.key)
        classes.append(eclass)
    return EGraphView(classes, [number[cls] for cls in value_classes])
