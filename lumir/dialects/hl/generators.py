"""Ops a Llama's rotary embedding and mask construction need: generators and gathers.

`hl.arange` (a 1-D range: no operands, its bounds are properties), `hl.cumsum` and
`hl.cumprod` along one dimension, `hl.index` (aten.index.Tensor with an integer index
tensor for each leading dimension; a boolean mask index is not imported and runs in
eager), `hl.index_copy` (aten.index_copy: a KV cache's update, functional: the result
is a new tensor) and `hl.pad` (aten.constant_pad_nd). Result types come from `infer.arange_type`,
`infer.cumsum_type`, `infer.index_type`, `infer.index_copy_type` and `infer.pad_type`.
`hl.arange` bounds and `hl.pad` amounts may depend on the sequence length:
lumir.backend.retype re-reads them per length.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, TensorType, f64, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lumir.dialects.hl.base import InferredResultOp, SingleInputOp, int_list, int_value, tensor_type
from lumir.dialects.hl.infer import (
    TypeInferenceError,
    arange_type,
    cumsum_type,
    index_copy_type,
    index_type,
    pad_type,
)


@irdl_op_definition
class ArangeOp(IRDLOperation):
    """aten.arange (integer bounds): [start, end) by `step`, of the result's element type."""

    name = "hl.arange"

    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)
    step = prop_def(IntegerAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, start: int, end: int, step: int, element: Attribute):
        super().__init__(
            result_types=[arange_type(start, end, step, element)],
            properties={
                "start": IntegerAttr(start, i64),
                "end": IntegerAttr(end, i64),
                "step": IntegerAttr(step, i64),
            },
        )

    def infer_result_type(self) -> TensorType:
        element = tensor_type(self.result).element_type
        bounds = (int_value(a) for a in (self.start, self.end, self.step))
        return arange_type(*bounds, element)

    def verify_(self) -> None:
        try:
            inferred = self.infer_result_type()
        except TypeInferenceError as error:
            raise VerifyException(f"'{self.name}' {error}") from error
        if self.result.type != inferred:
            raise VerifyException(
                f"'{self.name}' result type {self.result.type} does not match the inferred "
                f"type {inferred}"
            )


class CumulativeOp(SingleInputOp, abc.ABC):
    """A running reduction along `dim` (the importer casts the input to the result dtype
    first): the executors run torch's kernel of the same name, which on the CPU
    accumulates in double for f32 and in f32 for half types, rounding each output."""

    dim = prop_def(IntegerAttr)

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(
            operands=[input],
            result_types=[cumsum_type(tensor_type(input), dim)],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_type(self) -> TensorType:
        return cumsum_type(tensor_type(self.input), int_value(self.dim))


@irdl_op_definition
class CumsumOp(CumulativeOp):
    """aten.cumsum along `dim`."""

    name = "hl.cumsum"


@irdl_op_definition
class CumprodOp(CumulativeOp):
    """aten.cumprod along `dim`: the running product, each output rounded from the
    accumulated one (so not the product of the rounded outputs before it)."""

    name = "hl.cumprod"


@irdl_op_definition
class IndexOp(InferredResultOp):
    """aten.index.Tensor: `input[i0, i1, ...]` with one integer tensor per leading dim."""

    name = "hl.index"

    input = operand_def(TensorType)
    indices = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input `[` $indices `]` attr-dict `:` functional-type(operands, results)"

    def __init__(self, input: SSAValue, indices: Sequence[SSAValue]):
        result = index_type(tensor_type(input), [tensor_type(i) for i in indices])
        super().__init__(operands=[input, list(indices)], result_types=[result])

    def infer_result_type(self) -> TensorType:
        return index_type(tensor_type(self.input), [tensor_type(i) for i in self.indices])


@irdl_op_definition
class IndexCopyOp(InferredResultOp):
    """aten.index_copy: `input` with its slices `index` along `dim` replaced by `source`'s.

    Functional, as aot_autograd hands it over (a StaticCache's in-place `index_copy_`
    becomes this op plus an input mutation that torch applies after the graph).
    """

    name = "hl.index_copy"

    input = operand_def(TensorType)
    index = operand_def(TensorType)
    source = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$input `[` $index `]` `,` $source attr-dict `:` functional-type(operands, results)"
    )

    def __init__(self, input: SSAValue, dim: int, index: SSAValue, source: SSAValue):
        result = index_copy_type(tensor_type(input), dim, tensor_type(index), tensor_type(source))
        super().__init__(
            operands=[input, index, source],
            result_types=[result],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_type(self) -> TensorType:
        return index_copy_type(
            tensor_type(self.input),
            int_value(self.dim),
            tensor_type(self.index),
            tensor_type(self.source),
        )


@irdl_op_definition
class PadOp(SingleInputOp):
    """aten.constant_pad_nd: `pad` pairs from the last dimension back, filled with `value`."""

    name = "hl.pad"

    pad = prop_def(DenseArrayBase.constr(i64))
    value = prop_def(FloatAttr)

    def __init__(self, input: SSAValue, pad: Sequence[int], value: float = 0.0):
        super().__init__(
            operands=[input],
            result_types=[pad_type(tensor_type(input), pad)],
            properties={
                "pad": DenseArrayBase.from_list(i64, list(pad)),
                "value": FloatAttr(float(value), f64),
            },
        )

    def infer_result_type(self) -> TensorType:
        return pad_type(tensor_type(self.input), int_list(self.pad))
