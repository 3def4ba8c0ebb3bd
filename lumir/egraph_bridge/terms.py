"""The term language of `cublaslt-fuse` as Python sees it, and the header rules load first.

Everything the encoder, the e-graph reader, the decoder and the rule files must agree on
is derived here from two declarations: `lumir.matmul_descriptor.DESCRIPTOR_FIELDS` (what
a `Call` term holds, in which group) and the enum sorts of `sorts.py`. `datatype_header()`
writes the egglog datatypes from them, ahead of `rules/base.egg`, so the rules, the
Python `CallFields` and the decoder's field order cannot drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import make_dataclass
from functools import cached_property
from typing import Any

from lumir.egraph_bridge.sorts import DTYPE, ENUM_SORTS, SORT_NAMED, SORT_OF_ENUM, egg_string
from lumir.matmul_descriptor import (
    CALL,
    GROUPS,
    LAYOUT,
    TERM_FIELDS,
    TYPES,
    DescriptorField,
    fields_in,
)

TENSOR_SIGNATURES: dict[str, tuple[str, ...]] = {
    "Leaf": ("String",),
    "Matmul": ("GemmCall",),
    "Add": ("Tensor", "Tensor"),
    "Mul": ("Tensor", "Tensor"),
    "Relu": ("Tensor",),
    "Gelu": ("Tensor", "String"),
    "Cast": ("Tensor", DTYPE.name),
    "Transpose": ("Tensor", "String"),
    "Reshape": ("Tensor", "String"),
}
"""Constructors of the `Tensor` sort and their argument sorts (the header declares them)."""

TENSOR_CONSTRUCTORS = tuple(TENSOR_SIGNATURES)
"""Constructors of the `Tensor` sort: the e-nodes the extractor chooses among."""

UNARY_WITH_FIELD = ("Gelu", "Cast", "Transpose", "Reshape")
"""Tensor constructors with one Tensor child and one field (a String or a dtype)."""

GROUP_SORTS: dict[str, tuple[str, str]] = {
    LAYOUT: ("Layouts", "Layout"),
    TYPES: ("CallTypes", "Types"),
}
"""Term group -> (sort, constructor) of the sub-term holding its fields."""

CALL_OPERANDS = ("Tensor", "Tensor", "OptTensor", "OptTensor")
"""The sorts of a call's operands A, B, C and bias, after its descriptor fields."""


def field_sort(field: DescriptorField) -> str:
    """The egglog sort of a descriptor field in the term."""
    if field.python_type is float:
        return "f64"
    return SORT_OF_ENUM[field.python_type].name  # type: ignore[index]


def field_literal(field: DescriptorField, value: object) -> str:
    """A term field's Python value as an egglog literal."""
    if field.enum is None:
        return egg_float(value)  # type: ignore[arg-type]
    return SORT_OF_ENUM[field.enum].term(value)  # type: ignore[arg-type]


def sort_literal(sort: str, value: object) -> str:
    """A `String`- or enum-sorted field value as an egglog literal."""
    if sort in SORT_NAMED:
        return SORT_NAMED[sort].term(str(value))
    return egg_string(str(value))


class _CallTerm:
    """The methods of `CallFields` (its fields come from `TERM_FIELDS`)."""

    def group_term(self, group: str) -> str:
        """The `(Layout ...)` or `(Types ...)` sub-term of these fields."""
        parts = [field_literal(f, getattr(self, f.name)) for f in fields_in(group)]
        return f"({GROUP_SORTS[group][1]} {' '.join(parts)})"

    def call_term(self, operands: Sequence[str]) -> str:
        """The `(Call ...)` term of these fields over operand terms A, B, C and bias."""
        parts: list[str] = []
        for group in GROUPS:
            if group in GROUP_SORTS:
                parts.append(self.group_term(group))
            else:
                parts.extend(field_literal(f, getattr(self, f.name)) for f in fields_in(group))
        return f"(Call {' '.join((*parts, *operands))})"

    def descriptor_arguments(self) -> dict[str, Any]:
        """The term fields as `MatmulDescriptor` arguments (enum members, floats)."""
        return {
            f.name: getattr(self, f.name) if f.enum is None else f.enum(getattr(self, f.name))
            for f in TERM_FIELDS
        }

    @cached_property
    def key(self) -> str:
        """A stable text of every field, part of an e-node's tie-break key."""
        v = self.__dict__
        return (
            f"{v['transa']}{v['transb']} {v['order_a']}/{v['order_b']}/{v['order_d']} "
            f"{v['a_dtype']},{v['b_dtype']},{v['c_dtype']},{v['d_dtype']} "
            f"{v['compute_type']}/{v['scale_type']} "
            f"alpha={v['alpha']!r} beta={v['beta']!r} {v['epilogue']}"
        )


CallFields = make_dataclass(
    "CallFields",
    [(f.name, str if f.enum is not None else float) for f in TERM_FIELDS],
    bases=(_CallTerm,),
    frozen=True,
)
CallFields.__module__ = __name__
CallFields.__doc__ = """What a `Call` term holds besides its operands (fields: `TERM_FIELDS`).

Only what a rule may change is in the term; m, n, k, leading dimensions, batch count and
strides are recomputed from the operand shapes when a call is decoded, and order_c is
always order_d (V4, V8), so no rule can leave them inconsistent. Enum fields hold the
value's IR spelling (`"bf16"`), scales floats.
"""


def call_sorts() -> list[str]:
    """The argument sorts of the `Call` constructor."""
    sorts: list[str] = []
    for group in GROUPS:
        if group in GROUP_SORTS:
            sorts.append(GROUP_SORTS[group][0])
        else:
            sorts.extend(field_sort(f) for f in fields_in(group))
    return [*sorts, *CALL_OPERANDS]


def datatype_header() -> str:
    """The egglog datatypes of the term language, generated; `rules/base.egg` follows it."""
    lines = [
        "; The term language's datatypes (generated by lumir/egraph_bridge/terms.py from",
        "; lumir/matmul_descriptor.py and lumir/cublaslt_enums.py; rules/base.egg follows).",
        *(sort.declaration() for sort in ENUM_SORTS),
        f"(datatype TensorTy (Ty {DTYPE.name} String i64 i64))",
        '; dtype, shape ("6x2048"), rank, last dimension',
    ]
    for group, (sort, constructor) in GROUP_SORTS.items():
        sorts = " ".join(field_sort(f) for f in fields_in(group))
        names = ", ".join(f.name for f in fields_in(group))
        lines += [f"(datatype {sort} ({constructor} {sorts}))", f"; {names}"]
    tensors = "\n".join(
        f"    ({name}{''.join(' ' + s for s in sorts)})"
        for name, sorts in TENSOR_SIGNATURES.items()
    )
    lines += [
        "(datatype*",
        f"  (Tensor\n{tensors})",
        "  (OptTensor (NoTensor) (SomeTensor Tensor))",
        f"  (GemmCall (Call {' '.join(call_sorts())})))",
        '; Gelu: approximate ("tanh" or "none"); Cast: target dtype; Transpose: permutation',
        '; ("0,2,1"); Reshape: target shape. Call: layouts, types, '
        + ", ".join(f.name for f in fields_in(CALL))
        + ", A, B, C, bias.",
    ]
    return "\n".join(lines) + "\n"


def egg_float(value: float) -> str:
    """`value` as an egglog f64 literal (always with a '.' or an exponent)."""
    if not math.isfinite(value):
        raise ValueError(f"egglog has no literal for the non-finite float {value}")
    if value == 0.0:
        return "0.0"  # -0.0 would not match the rules' `0.0` patterns
    text = repr(float(value))
    return text if any(mark in text for mark in ".en") else text + ".0"


def shape_text(shape: Sequence[int]) -> str:
    """A shape as the rules compare it: `6x2048`, `?` for a dynamic dimension."""
    return "x".join("?" if dim < 0 else str(dim) for dim in shape)


def parse_shape(text: str) -> tuple[int, ...]:
    """The inverse of `shape_text` (`?` becomes -1, the empty text a 0-d shape)."""
    if not text:
        return ()
    return tuple(-1 if part == "?" else int(part) for part in text.split("x"))
