"""Views and data movement: transpose, reshape, expand, slice, cat and embedding.

Reshape and expand take their target shape from the result type (the custom form writes
it); the others infer it. Result types come from `infer.transpose_type`,
`infer.reshape_type`, `infer.expand_type`, `infer.slice_type`, `infer.cat_type` and
`infer.embedding_type`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from lumir.dialects.hl.base import InferredResultOp, SingleInputOp, int_list, int_value, tensor_type
from lumir.dialects.hl.constraints import same_element_tensor
from lumir.dialects.hl.infer import (
    cat_type,
    embedding_type,
    expand_type,
    reshape_type,
    slice_type,
    static_shape,
    transpose_type,
)


@irdl_op_definition
class TransposeOp(SingleInputOp):
    """aten.permute / aten.transpose / aten.t: result dim i is input dim permutation[i]."""

    name = "hl.transpose"

    permutation = prop_def(DenseArrayBase.constr(i64))

    def __init__(self, input: SSAValue, permutation: Sequence[int]):
        super().__init__(
            operands=[input],
            result_types=[transpose_type(tensor_type(input), permutation)],
            properties={"permutation": DenseArrayBase.from_list(i64, list(permutation))},
        )

    def infer_result_type(self) -> TensorType:
        return transpose_type(tensor_type(self.input), int_list(self.permutation))


@irdl_op_definition
class ReshapeOp(SingleInputOp):
    """aten.view / aten.reshape / aten._unsafe_view: same elements, new static shape."""

    name = "hl.reshape"

    def infer_result_type(self) -> TensorType:
        return reshape_type(tensor_type(self.input), static_shape(self.result.type))


@irdl_op_definition
class ExpandOp(SingleInputOp):
    """aten.expand: broadcast size-1 (or missing leading) dims to the result shape."""

    name = "hl.expand"

    def infer_result_type(self) -> TensorType:
        return expand_type(tensor_type(self.input), static_shape(self.result.type))


@irdl_op_definition
class SliceOp(SingleInputOp):
    """aten.slice.Tensor: input[..., start:end:step, ...] along `dim`."""

    name = "hl.slice"

    dim = prop_def(IntegerAttr)
    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)
    step = prop_def(IntegerAttr)

    def infer_result_type(self) -> TensorType:
        bounds = (int_value(a) for a in (self.dim, self.start, self.end, self.step))
        return slice_type(tensor_type(self.input), *bounds)


@irdl_op_definition
class CatOp(InferredResultOp):
    """aten.cat along `dim`."""

    name = "hl.cat"

    inputs = var_operand_def(same_element_tensor("one of the inputs"))
    result = result_def(TensorType)
    dim = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result)"

    def infer_result_type(self) -> TensorType:
        return cat_type([tensor_type(v) for v in self.inputs], int_value(self.dim))


@irdl_op_definition
class EmbeddingOp(InferredResultOp):
    """aten.embedding: rows of `weight` [V, E] gathered by i32 or i64 `indices`."""

    name = "hl.embedding"

    weight = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$weight `,` $indices attr-dict `:` functional-type(operands, results)"

    def infer_result_type(self) -> TensorType:
        return embedding_type(tensor_type(self.weight), tensor_type(self.indices))
