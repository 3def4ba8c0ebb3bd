"""Every element type lumir knows, one row each: the one table of dtype facts.

A row names the type as MLIR spells it, its builtin element type, the torch dtype that
holds it (by attribute name, so this module never imports torch), the numpy scalar type
of a host value of it, its byte width, the `cudaDataType_t` cuBLASLt reads it as (None
when cuBLASLt has none) and whether the torch.compile frontend imports it. The cuBLASLt
enum (`lumir.cublaslt_enums.DataType`), the runtime's torch dtypes, the frontend's
imported dtypes and the CUDA executor's host scalars are all read from here, so a new
dtype is one new row.

A leaf: it imports only xDSL's builtin types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class ElementDType:
    """One element type and how each layer of lumir names and stores it."""

    name: str
    element_type: Attribute
    torch_name: str
    numpy_name: str | None
    byte_width: int
    cuda_data_type: int | None
    imported: bool

    def torch_dtype(self) -> torch.dtype:
        """The torch dtype of this element type (imports torch on first use only)."""
        import torch

        return getattr(torch, self.torch_name)


# Imported dtypes come first, in the order the frontend lists them in its errors.
# (name, element type, torch name, numpy name, bytes, cudaDataType_t, imported)
_ROWS: tuple[tuple[str, Attribute, str, str | None, int, int | None, bool], ...] = (
    ("f32", Float32Type(), "float32", "float32", 4, 0, True),
    ("f16", Float16Type(), "float16", "float16", 2, 2, True),
    ("bf16", BFloat16Type(), "bfloat16", None, 2, 14, True),
    ("i64", IntegerType(64), "int64", "int64", 8, None, True),
    ("i32", IntegerType(32), "int32", "int32", 4, 10, True),
    ("i1", IntegerType(1), "bool", "bool_", 1, None, True),
    ("f64", Float64Type(), "float64", "float64", 8, 1, False),
    ("f8E4M3FN", Float8E4M3FNType(), "float8_e4m3fn", None, 1, 28, False),
    ("f8E5M2", Float8E5M2Type(), "float8_e5m2", None, 1, 29, False),
    ("i8", IntegerType(8), "int8", "int8", 1, 3, False),
    ("i16", IntegerType(16), "int16", "int16", 2, None, False),
    ("ui8", IntegerType(8, Signedness.UNSIGNED), "uint8", "uint8", 1, None, False),
)

ELEMENT_DTYPES: tuple[ElementDType, ...] = tuple(ElementDType(*row) for row in _ROWS)
"""Every row, imported dtypes first."""

BY_NAME: dict[str, ElementDType] = {row.name: row for row in ELEMENT_DTYPES}
"""Rows by MLIR spelling (`bf16`, `f8E4M3FN`, `i1`)."""


def _key(element_type: Attribute) -> tuple[object, ...]:
    """What identifies a row: the float class, or an integer's width and unsignedness.

    A signed integer is stored like a signless one, and i1 is a bool whatever its
    signedness.
    """
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        unsigned = width != 1 and element_type.signedness.data == Signedness.UNSIGNED
        return (IntegerType, width, unsigned)
    return (type(element_type),)


_BY_KEY: dict[tuple[object, ...], ElementDType] = {
    _key(row.element_type): row for row in ELEMENT_DTYPES
}


def element_dtype(element_type: Attribute) -> ElementDType | None:
    """The row of a builtin element type, or None when lumir has no row for it."""
    return _BY_KEY.get(_key(element_type))


def element_byte_width(element_type: Attribute) -> int | None:
    """Bytes one element takes: the row's, else from the type's bit width; None if neither."""
    row = element_dtype(element_type)
    if row is not None:
        return row.byte_width
    bits = getattr(element_type, "bitwidth", None)
    return max(1, (bits + 7) // 8) if isinstance(bits, int) and bits > 0 else None


__all__ = [
    "BY_NAME",
    "ELEMENT_DTYPES",
    "ElementDType",
    "element_byte_width",
    "element_dtype",
]
