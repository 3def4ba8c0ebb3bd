"""Reductions (`hl.sum`, `hl.mean`, `hl.amax`, `hl.amin`, `hl.argmax`, `hl.argmin`), `hl.softmax`.

Result types come from `infer.reduction_type`, `infer.arg_reduction_type` and
`infer.softmax_type`.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, UnitAttr, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    opt_prop_def,
    prop_def,
)

from lumir.dialects.hl.base import SingleInputOp, int_list, int_value, tensor_type
from lumir.dialects.hl.infer import (
    arg_reduction_type,
    reduction_type,
    require_floating_point,
    softmax_type,
)


class ReductionOp(SingleInputOp, abc.ABC):
    """Reduce `input` over `dims` (ATen's dim list), keeping them as 1 if `keepdim`.

    As in ATen, an empty `dims` reduces over every dimension, and a dimension may not
    be named twice (`[1, -1]` on a 2-D input is rejected).
    """

    dims = prop_def(DenseArrayBase.constr(i64))
    keepdim = opt_prop_def(UnitAttr)

    def __init__(
        self,
        input: SSAValue,
        dims: Sequence[int],
        keepdim: bool,
        result_type: Attribute | None = None,
    ):
        if result_type is None:
            result_type = self.result_type_of(tensor_type(input), dims, keepdim)
        props: dict[str, Attribute] = {"dims": DenseArrayBase.from_list(i64, list(dims))}
        if keepdim:
            props["keepdim"] = UnitAttr()
        super().__init__(operands=[input], result_types=[result_type], properties=props)

    @staticmethod
    def result_type_of(input: TensorType, dims: Sequence[int], keepdim: bool) -> TensorType:
        return reduction_type(input, dims, keepdim)

    def infer_result_type(self) -> TensorType:
        return self.result_type_of(
            tensor_type(self.input), int_list(self.dims), self.keepdim is not None
        )


@irdl_op_definition
class SumOp(ReductionOp):
    """aten.sum.dim_IntList."""

    name = "hl.sum"


@irdl_op_definition
class MeanOp(ReductionOp):
    """aten.mean.dim (floating point only, as in ATen)."""

    name = "hl.mean"

    def infer_result_type(self) -> TensorType:
        require_floating_point(tensor_type(self.input))
        return super().infer_result_type()


@irdl_op_definition
class AmaxOp(ReductionOp):
    """aten.amax."""

    name = "hl.amax"


@irdl_op_definition
class AminOp(ReductionOp):
    """aten.amin (not fused into generated kernels: on CUDA, torch's kernel)."""

    name = "hl.amin"


class ArgReductionOp(ReductionOp, abc.ABC):
    """The i64 position of the first extreme element along the one dimension in `dims`,
    or in the flattened input when `dims` is empty (aten's `dim=None`). A NaN counts as
    the extreme, as in ATen. Sequence-classification heads pick their last real token
    with one (`(positions * not_padding).argmax(-1)`)."""

    result_type_of = staticmethod(arg_reduction_type)


@irdl_op_definition
class ArgmaxOp(ArgReductionOp):
    """aten.argmax."""

    name = "hl.argmax"


@irdl_op_definition
class ArgminOp(ArgReductionOp):
    """aten.argmin."""

    name = "hl.argmin"


@irdl_op_definition
class SoftmaxOp(SingleInputOp):
    """aten._softmax along `dim`."""

    name = "hl.softmax"

    dim = prop_def(IntegerAttr)

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(
            operands=[input],
            result_types=[softmax_type(tensor_type(input), dim)],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_type(self) -> TensorType:
        return softmax_type(tensor_type(self.input), int_value(self.dim))
