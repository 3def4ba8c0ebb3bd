"""What every `hl` op verifies: static shapes, then its result type against inference.

IRDL checks the declarative part first (operands are tensors, shared element types,
property kinds); `InferredResultOp.verify_` then asks the op's inference function
(`lumir.dialects.hl.infer`) for the result type and compares. The builders call the same
functions, so the type an op is built with and the type it is verified against cannot
drift apart.
"""

from __future__ import annotations

import abc

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lumir.dialects.hl.constraints import same_element_tensor
from lumir.dialects.hl.infer import TypeInferenceError, static_shape


def tensor_type(value: SSAValue | Attribute) -> TensorType:
    """The tensor type of a value (IRDL has already checked it is one)."""
    typ = value.type if isinstance(value, SSAValue) else value
    assert isinstance(typ, TensorType), f"expected a tensor, got {typ}"
    return typ


def int_value(attr: Attribute) -> int:
    """The value of an integer property."""
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def int_list(attr: DenseArrayBase) -> tuple[int, ...]:
    """The values of an `array<i64: ...>` property."""
    return tuple(int(v) for v in attr.get_values())


class InferredResultOp(IRDLOperation, abc.ABC):
    """An `hl` op with one tensor result whose type its inputs determine."""

    @abc.abstractmethod
    def infer_result_type(self) -> TensorType:
        """The result type this op must have (one `lumir.dialects.hl.infer` call)."""

    def result_mismatch(self, inferred: TensorType) -> str:
        """The message for a result whose type is not `inferred`."""
        return (
            f"'{self.name}' result type {self.results[0].type} does not match the inferred "
            f"type {inferred}"
        )

    def element_type_problem(self) -> str | None:
        """Why the executors cannot run this op on its operands' element type, or None."""
        return None

    def verify_(self) -> None:
        try:
            for value in (*self.operands, *self.results):
                static_shape(value.type)
        except TypeInferenceError as error:
            raise VerifyException(str(error)) from error
        problem = self.element_type_problem()
        if problem is not None:
            raise VerifyException(problem)
        try:
            inferred = self.infer_result_type()
        except TypeInferenceError as error:
            raise VerifyException(f"'{self.name}' {error}") from error
        if self.results[0].type != inferred:
            raise VerifyException(self.result_mismatch(inferred))


class SingleInputOp(InferredResultOp, abc.ABC):
    """One tensor `input`, one tensor `result`: `%r = hl.op %x {props} : T -> U`.

    Properties, where the op has any, are written in the attribute dictionary.
    """

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"


class SameElementBinaryOp(InferredResultOp, abc.ABC):
    """Two tensors `lhs`, `rhs` of one element type (hl never promotes), one `result`."""

    lhs = operand_def(same_element_tensor("lhs"))
    rhs = operand_def(same_element_tensor("rhs"))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"
