"""`hl.constant`: dense tensor literals; `splat` builds the common scalar case and
`splat_element` reads it back."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import ConstantLike, Pure

from lumir.dialects.hl.base import InferredResultOp


@irdl_op_definition
class ConstantOp(InferredResultOp):
    """A constant tensor: a dense literal (a splat for scalars and fills)."""

    name = "hl.constant"

    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def infer_result_type(self) -> TensorType:
        return cast(TensorType, self.value.type)

    def result_mismatch(self, inferred: TensorType) -> str:
        return f"'hl.constant' value type {inferred} differs from result type {self.result.type}"


def splat_element(value: DenseIntOrFPElementsAttr) -> int | float | None:
    """The one value every element of a splat literal holds, else None: a literal of
    several values, or `dense<>`, which holds none (xDSL's `is_splat` fails on it)."""
    if math.prod(value.get_type().get_shape()) == 0 or not value.is_splat():
        return None
    return next(iter(value.iter_values()))


def splat(value: float, element_type: Attribute, shape: Sequence[int] = ()) -> ConstantOp:
    """An `hl.constant` filled with `value` (a 0-d scalar by default)."""
    dense = DenseIntOrFPElementsAttr.from_list(TensorType(element_type, list(shape)), [value])
    return ConstantOp(dense)
