"""Elementwise `hl` ops: arithmetic, activations, casts, comparisons and selection.

Binary ops broadcast as ATen does and share one element type (no implicit promotion);
unary ops keep their input's type. Result types come from `infer.elementwise_type`,
`infer.cast_type`, `infer.compare_type` and `infer.where_type`.
"""

from __future__ import annotations

import abc

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.str_enum import StrEnum

from lumir.dialects.hl.base import (
    InferredResultOp,
    SameElementBinaryOp,
    SingleInputOp,
    tensor_type,
)
from lumir.dialects.hl.constraints import StringEnumConstraint, same_element_tensor
from lumir.dialects.hl.infer import (
    bitwise_type,
    cast_type,
    compare_type,
    elementwise_type,
    fmod_type,
    integer_division_type,
    static_shape,
    where_type,
)
from lumir.dtypes import ELEMENT_DTYPES, element_dtype

_F8 = frozenset({"f8E4M3FN", "f8E5M2"})
_I1 = frozenset({"i1"})
_INTEGERS = frozenset({"i8", "i16", "i32", "i64", "ui8"})

NO_CPU_KERNEL: dict[str, frozenset[str]] = {
    **dict.fromkeys(["hl.add", "hl.div", "hl.maximum", "hl.minimum"], _F8),
    **dict.fromkeys(["hl.sub", "hl.pow", "hl.neg", "hl.relu"], _F8 | _I1),
    **dict.fromkeys(["hl.floor", "hl.ceil", "hl.round", "hl.trunc"], _F8 | _I1),
    **dict.fromkeys(
        ["hl.rsqrt", "hl.sqrt", "hl.exp", "hl.log", "hl.erf", "hl.log1p", "hl.expm1"], _F8
    ),
    **dict.fromkeys(
        ["hl.sign", "hl.atan", "hl.tan", "hl.cos", "hl.sin", "hl.sigmoid", "hl.tanh"], _F8
    ),
    "hl.abs": _I1,
    "hl.fmod": _F8,  # integers and i1 are refused by its type (floating-point only)
    **dict.fromkeys(["hl.floor_divide", "hl.remainder"], _F8),  # i1: refused by the type
    "hl.silu": _F8 | _I1 | _INTEGERS,
    "hl.gelu": _F8 | _I1 | _INTEGERS,
    "hl.compare": _F8,  # the ordering predicates only: eq and ne run on f8
}
"""Element types (`lumir.dtypes` names) that an elementwise op's torch CPU kernel does
not implement, by op name (`"abs_cpu" not implemented for 'Bool'`).

The CPU executor runs each `hl` op as its torch call, so the verifier refuses these
rather than let a program compile and then fail inside torch when it runs.
`test/python/test_hl_element_types.py` runs every elementwise op on every element type
and fails where this table and torch disagree. Types with no `lumir.dtypes` row
(complex, index) are refused when lowered to buffers.
"""


def no_cpu_kernel_problem(op_name: str, element: Attribute, refused: frozenset[str]) -> str | None:
    """The verifier's message for an op whose CPU kernel does not take `element`."""
    row = element_dtype(element)
    if row is None or row.name not in refused:
        return None
    expected = ", ".join(r.name for r in ELEMENT_DTYPES if r.name not in refused)
    return (
        f"'{op_name}' cannot run on {element}: torch's CPU kernel does not implement it "
        f"for that type; expected one of {expected}"
    )


class ElementwiseBinaryOp(SameElementBinaryOp, abc.ABC):
    """lhs op rhs with ATen broadcasting; operands and result share an element type.

    `result_rule` is the op's type inference (`infer.elementwise_type`; an op defined
    on some element types only names its own, as `hl.bitwise_and` does)."""

    result_rule = staticmethod(elementwise_type)

    def element_type_problem(self) -> str | None:
        element = tensor_type(self.lhs).element_type
        return no_cpu_kernel_problem(self.name, element, NO_CPU_KERNEL.get(self.name, frozenset()))

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            result_type = self.result_rule(tensor_type(lhs), tensor_type(rhs))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def infer_result_type(self) -> TensorType:
        return self.result_rule(tensor_type(self.lhs), tensor_type(self.rhs))


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """aten.add.Tensor (alpha = 1)."""

    name = "hl.add"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """aten.sub.Tensor (alpha = 1)."""

    name = "hl.sub"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """aten.mul.Tensor."""

    name = "hl.mul"


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    """aten.div.Tensor (true division)."""

    name = "hl.div"


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """aten.pow.Tensor_Tensor (a scalar exponent is a 0-d constant)."""

    name = "hl.pow"


@irdl_op_definition
class MaximumOp(ElementwiseBinaryOp):
    """aten.maximum."""

    name = "hl.maximum"


@irdl_op_definition
class MinimumOp(ElementwiseBinaryOp):
    """aten.minimum."""

    name = "hl.minimum"


@irdl_op_definition
class BitwiseAndOp(ElementwiseBinaryOp):
    """aten.bitwise_and.Tensor, on integer or i1 tensors (a mask's logical and)."""

    name = "hl.bitwise_and"
    result_rule = staticmethod(bitwise_type)


class IntegerDivisionOp(ElementwiseBinaryOp, abc.ABC):
    """A division with Python's (and ATen's) rounding toward negative infinity, of
    integers or of floats (ATen's `div_floor_floating` / floating remainder: built on
    C's exact `fmod`, as the runtime's torch kernel computes it)."""

    result_rule = staticmethod(integer_division_type)


@irdl_op_definition
class FloorDivideOp(IntegerDivisionOp):
    """aten.floor_divide / div(rounding_mode="floor"): floor(lhs / rhs). For floats,
    ATen's value: (lhs - fmod(lhs, rhs)) / rhs, one less where the remainder's sign is
    not the divisor's, rounded to the nearest integer; a zero divisor gives lhs / rhs."""

    name = "hl.floor_divide"


@irdl_op_definition
class RemainderOp(IntegerDivisionOp):
    """aten.remainder: lhs - floor(lhs / rhs) * rhs, which has rhs's sign (Python's `%`).
    For floats, ATen's value: fmod(lhs, rhs), plus rhs where it is nonzero and its sign
    is not rhs's."""

    name = "hl.remainder"


@irdl_op_definition
class FmodOp(ElementwiseBinaryOp):
    """aten.fmod on floating-point tensors: lhs - trunc(lhs / rhs) * rhs computed
    exactly (C's `fmod`), which has lhs's sign: NaN for a zero rhs or an infinite lhs,
    lhs itself for an infinite rhs. The exact result is representable, so every
    correct kernel (ATen's on each device) gives the same bits."""

    name = "hl.fmod"
    result_rule = staticmethod(fmod_type)


class ElementwiseUnaryOp(SingleInputOp, abc.ABC):
    """f(input) elementwise; the result has the input's type."""

    def element_type_problem(self) -> str | None:
        element = tensor_type(self.input).element_type
        return no_cpu_kernel_problem(self.name, element, NO_CPU_KERNEL.get(self.name, frozenset()))

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[elementwise_type(tensor_type(input))])

    def infer_result_type(self) -> TensorType:
        return elementwise_type(tensor_type(self.input))


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    """aten.neg."""

    name = "hl.neg"


@irdl_op_definition
class RsqrtOp(ElementwiseUnaryOp):
    """aten.rsqrt."""

    name = "hl.rsqrt"


@irdl_op_definition
class SqrtOp(ElementwiseUnaryOp):
    """aten.sqrt."""

    name = "hl.sqrt"


@irdl_op_definition
class ExpOp(ElementwiseUnaryOp):
    """aten.exp."""

    name = "hl.exp"


@irdl_op_definition
class LogOp(ElementwiseUnaryOp):
    """aten.log."""

    name = "hl.log"


@irdl_op_definition
class ErfOp(ElementwiseUnaryOp):
    """aten.erf: the exact GELU some models write by hand, `0.5 * x * (1 + erf(x / sqrt(2)))`."""

    name = "hl.erf"


@irdl_op_definition
class Log1pOp(ElementwiseUnaryOp):
    """aten.log1p: log(1 + x), exact where 1 + x would round (torch's softplus and mish
    decompositions use it)."""

    name = "hl.log1p"


@irdl_op_definition
class Expm1Op(ElementwiseUnaryOp):
    """aten.expm1: exp(x) - 1, exact near 0 (torch's ELU, SELU and CELU decompositions
    use it)."""

    name = "hl.expm1"


@irdl_op_definition
class FloorOp(ElementwiseUnaryOp):
    """aten.floor: the largest whole number not above x (position bucketing)."""

    name = "hl.floor"


@irdl_op_definition
class CeilOp(ElementwiseUnaryOp):
    """aten.ceil: the smallest whole number not below x."""

    name = "hl.ceil"


@irdl_op_definition
class RoundOp(ElementwiseUnaryOp):
    """aten.round: the nearest whole number, halves to even, as torch rounds."""

    name = "hl.round"


@irdl_op_definition
class TruncOp(ElementwiseUnaryOp):
    """aten.trunc: x without its fraction (toward zero)."""

    name = "hl.trunc"


@irdl_op_definition
class SignOp(ElementwiseUnaryOp):
    """aten.sign: -1, 0 or 1 by x's sign (torch gives 0 for NaN)."""

    name = "hl.sign"


@irdl_op_definition
class AtanOp(ElementwiseUnaryOp):
    """aten.atan."""

    name = "hl.atan"


@irdl_op_definition
class TanOp(ElementwiseUnaryOp):
    """aten.tan."""

    name = "hl.tan"


@irdl_op_definition
class AbsOp(ElementwiseUnaryOp):
    """aten.abs."""

    name = "hl.abs"


@irdl_op_definition
class CosOp(ElementwiseUnaryOp):
    """aten.cos."""

    name = "hl.cos"


@irdl_op_definition
class SinOp(ElementwiseUnaryOp):
    """aten.sin."""

    name = "hl.sin"


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp):
    """aten.relu."""

    name = "hl.relu"


@irdl_op_definition
class SiluOp(ElementwiseUnaryOp):
    """aten.silu."""

    name = "hl.silu"


@irdl_op_definition
class SigmoidOp(ElementwiseUnaryOp):
    """aten.sigmoid."""

    name = "hl.sigmoid"


@irdl_op_definition
class TanhOp(ElementwiseUnaryOp):
    """aten.tanh."""

    name = "hl.tanh"


class GeluApproximation(StrEnum):
    """aten.gelu's `approximate`: exact erf form, or the tanh form cuBLASLt's GELU uses."""

    NONE = "none"
    TANH = "tanh"


@irdl_op_definition
class GeluOp(SingleInputOp):
    """aten.gelu; `approximate` is "none" (erf) or "tanh".

    Only the tanh form equals cuBLASLt's GELU epilogue; the fusion rules rely on this
    property to refuse the exact form.
    """

    name = "hl.gelu"

    approximate = prop_def(StringEnumConstraint(GeluApproximation, "'hl.gelu' approximate"))

    def __init__(self, input: SSAValue, approximate: str = GeluApproximation.NONE):
        super().__init__(
            operands=[input],
            result_types=[elementwise_type(tensor_type(input))],
            properties={"approximate": StringAttr(str(approximate))},
        )

    def infer_result_type(self) -> TensorType:
        return elementwise_type(tensor_type(self.input))

    def element_type_problem(self) -> str | None:
        element = tensor_type(self.input).element_type
        return no_cpu_kernel_problem(self.name, element, NO_CPU_KERNEL[self.name])


@irdl_op_definition
class CastOp(SingleInputOp):
    """aten._to_copy / .to(dtype): convert the element type, keep the shape."""

    name = "hl.cast"

    def __init__(self, input: SSAValue, element_type: Attribute):
        super().__init__(
            operands=[input], result_types=[cast_type(tensor_type(input), element_type)]
        )

    def infer_result_type(self) -> TensorType:
        return cast_type(tensor_type(self.input), tensor_type(self.result).element_type)

    def result_mismatch(self, inferred: TensorType) -> str:
        return (
            f"'hl.cast' changes the shape from {list(static_shape(inferred))} to "
            f"{list(static_shape(self.result.type))}; a cast only changes the element type"
        )


class ComparePredicate(StrEnum):
    """The comparison of `hl.compare`."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


@irdl_op_definition
class CompareOp(SameElementBinaryOp):
    """aten.eq/ne/lt/le/gt/ge: broadcast comparison giving an i1 tensor."""

    name = "hl.compare"

    predicate = prop_def(StringEnumConstraint(ComparePredicate, "'hl.compare' predicate"))

    def infer_result_type(self) -> TensorType:
        return compare_type(tensor_type(self.lhs), tensor_type(self.rhs))

    def element_type_problem(self) -> str | None:
        if self.predicate.data in (ComparePredicate.EQ, ComparePredicate.NE):
            return None
        element = tensor_type(self.lhs).element_type
        return no_cpu_kernel_problem(self.name, element, NO_CPU_KERNEL[self.name])


@irdl_op_definition
class WhereOp(InferredResultOp):
    """aten.where.self: condition ? lhs : rhs, broadcast."""

    name = "hl.where"

    condition = operand_def(TensorType)
    lhs = operand_def(same_element_tensor("lhs"))
    rhs = operand_def(same_element_tensor("rhs"))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)"
    )

    def infer_result_type(self) -> TensorType:
        return where_type(tensor_type(self.condition), tensor_type(self.lhs), tensor_type(self.rhs))
