"""The cuBLASLt matmul descriptor as plain Python data: the leaf both IR and checks read.

The `cublaslt` and `cublaslt_rt` dialects carry it as properties, the verifier checks
it, the executors and the cost model consume it. It lives in a module that imports
nothing of lumir but the enums, so the dialects can import the verifier (their
`verify_` runs it) while the verifier never imports a dialect: no import cycle.

`MatmulDescriptor` is also the one declaration of the descriptor's fields: each field's
metadata says which part of `cublaslt-fuse`'s term language holds it (`group`). The
dialects' property definitions, the term fields, the datatype header of the rules and
the decoder's field order are all derived from `DESCRIPTOR_FIELDS`, so a field added
here appears everywhere at once and none of them can drift from another.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from enum import Enum
from functools import cache

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose

LAYOUT = "Layout"
"""Term group: the `(Layout ...)` term of a call (transposes and orders)."""
TYPES = "Types"
"""Term group: the `(Types ...)` term of a call (matrix, compute and scale types)."""
CALL = "Call"
"""Term group: held by the `Call` term itself (scales and epilogue)."""
DERIVED = "derived"
"""Not in the term: recomputed from the operand shapes when a call is decoded."""

GROUPS = (LAYOUT, TYPES, CALL)
"""The term groups, in the order a `Call` term holds them."""


_LAYOUT = {"group": LAYOUT}
_TYPES = {"group": TYPES}
_CALL = {"group": CALL}
_DERIVED = {"group": DERIVED}


@dataclass(frozen=True)
class MatmulDescriptor:
    """A cuBLASLt matmul descriptor and its four matrix layouts as plain Python data.

    This is what executors, the cost model and the verifier consume: it has no xDSL
    objects in it, so it is cheap to build, hash and compare. order_c is derived in the
    term language because it is always order_d there (V4, V8).
    """

    transa: Transpose = field(metadata=_LAYOUT)
    transb: Transpose = field(metadata=_LAYOUT)
    order_a: Order = field(metadata=_LAYOUT)
    order_b: Order = field(metadata=_LAYOUT)
    order_c: Order = field(metadata=_DERIVED)
    order_d: Order = field(metadata=_LAYOUT)
    m: int = field(metadata=_DERIVED)
    n: int = field(metadata=_DERIVED)
    k: int = field(metadata=_DERIVED)
    lda: int = field(metadata=_DERIVED)
    ldb: int = field(metadata=_DERIVED)
    ldc: int = field(metadata=_DERIVED)
    ldd: int = field(metadata=_DERIVED)
    batch_count: int = field(metadata=_DERIVED)
    stride_a: int = field(metadata=_DERIVED)
    stride_b: int = field(metadata=_DERIVED)
    stride_c: int = field(metadata=_DERIVED)
    stride_d: int = field(metadata=_DERIVED)
    a_dtype: DataType = field(metadata=_TYPES)
    b_dtype: DataType = field(metadata=_TYPES)
    c_dtype: DataType = field(metadata=_TYPES)
    d_dtype: DataType = field(metadata=_TYPES)
    compute_type: ComputeType = field(metadata=_TYPES)
    scale_type: DataType = field(metadata=_TYPES)
    alpha: float = field(metadata=_CALL)
    beta: float = field(metadata=_CALL)
    epilogue: Epilogue = field(metadata=_CALL)


@dataclass(frozen=True)
class DescriptorField:
    """One descriptor field: its name, Python type and where the term language keeps it."""

    name: str
    python_type: type
    group: str

    @property
    def enum(self) -> type[Enum] | None:
        """The field's enum class, or None for a number."""
        return self.python_type if issubclass(self.python_type, Enum) else None

    @property
    def print_rank(self) -> int:
        """Where the field's property prints: integers, then enums, then floats."""
        if self.python_type is int:
            return 0
        return 2 if self.python_type is float else 1


@cache
def _descriptor_fields() -> tuple[DescriptorField, ...]:
    hints = typing.get_type_hints(MatmulDescriptor)
    return tuple(
        DescriptorField(f.name, hints[f.name], f.metadata["group"])
        for f in dataclasses.fields(MatmulDescriptor)
    )


DESCRIPTOR_FIELDS: tuple[DescriptorField, ...] = _descriptor_fields()
"""Every descriptor field, in declaration order."""

PRINT_ORDER: tuple[DescriptorField, ...] = tuple(
    sorted(DESCRIPTOR_FIELDS, key=lambda f: f.print_rank)
)
"""The fields in the order an op's descriptor properties are built and printed."""


def fields_in(group: str) -> tuple[DescriptorField, ...]:
    """The fields of one group, in declaration order."""
    return tuple(f for f in DESCRIPTOR_FIELDS if f.group == group)


TERM_FIELDS: tuple[DescriptorField, ...] = tuple(f for g in GROUPS for f in fields_in(g))
"""The fields a `Call` term holds, in term order: Layout's, Types', then Call's own."""


__all__ = [
    "CALL",
    "DERIVED",
    "DESCRIPTOR_FIELDS",
    "GROUPS",
    "LAYOUT",
    "PRINT_ORDER",
    "TERM_FIELDS",
    "TYPES",
    "DescriptorField",
    "MatmulDescriptor",
    "fields_in",
]
