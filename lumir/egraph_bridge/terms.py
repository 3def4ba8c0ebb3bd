"""The term language of `cublaslt-fuse` as Python sees it.

`rules/base.egg` declares the sorts and constructors; this module holds the few facts
the encoder, the e-graph reader and the decoder must agree on with it: constructor
names, what a `Call` carries, and how Python values are written as egglog literals.
Keeping them here means a renamed constructor is one edit on each side, not a hunt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

TENSOR_SIGNATURES: dict[str, tuple[str, ...]] = {
    "Leaf": ("String",),
    "Matmul": ("GemmCall",),
    "Add": ("Tensor", "Tensor"),
    "Mul": ("Tensor", "Tensor"),
    "Relu": ("Tensor",),
    "Gelu": ("Tensor", "String"),
    "Cast": ("Tensor", "String"),
    "Transpose": ("Tensor", "String"),
    "Reshape": ("Tensor", "String"),
}
"""Constructors of the `Tensor` sort and their argument sorts, as `rules/base.egg` has them."""

TENSOR_CONSTRUCTORS = tuple(TENSOR_SIGNATURES)
"""Constructors of the `Tensor` sort: the e-nodes the extractor chooses among."""

UNARY_WITH_FIELD = ("Gelu", "Cast", "Transpose", "Reshape")
"""Tensor constructors with one Tensor child and one String field."""


@dataclass(frozen=True)
class CallFields:
    """What a `Call` term holds besides its operands.

    Only what a rule may change is in the term; m, n, k, leading dimensions, batch count
    and strides are recomputed from the operand shapes when a call is decoded, and
    order_c is always order_d (V4, V8), so no rule can leave them inconsistent.
    """

    transa: str
    transb: str
    order_a: str
    order_b: str
    order_d: str
    a_dtype: str
    b_dtype: str
    c_dtype: str
    d_dtype: str
    compute_type: str
    scale_type: str
    alpha: float
    beta: float
    epilogue: str

    def layout_term(self) -> str:
        """The `(Layout ...)` term of these fields."""
        parts = (self.transa, self.transb, self.order_a, self.order_b, self.order_d)
        return "(Layout " + " ".join(egg_string(part) for part in parts) + ")"

    def types_term(self) -> str:
        """The `(Types ...)` term of these fields."""
        parts = (
            self.a_dtype,
            self.b_dtype,
            self.c_dtype,
            self.d_dtype,
            self.compute_type,
            self.scale_type,
        )
        return "(Types " + " ".join(egg_string(part) for part in parts) + ")"

    @cached_property
    def key(self) -> str:
        """A stable text of every field, part of an e-node's tie-break key."""
        return (
            f"{self.transa}{self.transb} {self.order_a}/{self.order_b}/{self.order_d} "
            f"{self.a_dtype},{self.b_dtype},{self.c_dtype},{self.d_dtype} "
            f"{self.compute_type}/{self.scale_type} "
            f"alpha={self.alpha!r} beta={self.beta!r} {self.epilogue}"
        )


def egg_string(text: str) -> str:
    """`text` as an egglog string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


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
