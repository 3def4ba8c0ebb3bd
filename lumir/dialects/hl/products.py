"""Matrix products: `hl.matmul`, `hl.linear`, `hl.addmm` and `hl.sdpa`.

These are what `hl-to-cublaslt` turns into cuBLASLt calls (after `hl-canonicalize` splits
linear and addmm), so their shapes are checked exactly. Result types come from
`infer.matmul_type`, `infer.linear_type`, `infer.addmm_type` and `infer.sdpa_type`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FloatAttr, TensorType, UnitAttr
from xdsl.ir import SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from lumir.dialects.hl.base import InferredResultOp, SameElementBinaryOp, tensor_type
from lumir.dialects.hl.constraints import same_element_tensor
from lumir.dialects.hl.infer import addmm_type, linear_type, matmul_type, sdpa_type


@irdl_op_definition
class MatmulOp(SameElementBinaryOp):
    """aten.mm / bmm / matmul for ranks >= 2: lhs[..., M, K] @ rhs[..., K, N]."""

    name = "hl.matmul"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        result_type = matmul_type(tensor_type(lhs), tensor_type(rhs))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def infer_result_type(self) -> TensorType:
        return matmul_type(tensor_type(self.lhs), tensor_type(self.rhs))


@irdl_op_definition
class LinearOp(InferredResultOp):
    """aten.linear: input[..., K] @ weight[N, K]^T (+ bias[N]).

    hl-canonicalize splits it into transpose + matmul (+ add) so that the fusion rules
    see one shape of each idiom.
    """

    name = "hl.linear"

    input = operand_def(same_element_tensor("input"))
    weight = operand_def(same_element_tensor("weight"))
    bias = opt_operand_def(same_element_tensor("bias"))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict"
        " `:` type($input) `,` type($weight) `->` type($result)"
    )

    def infer_result_type(self) -> TensorType:
        bias = None if self.bias is None else tensor_type(self.bias)
        return linear_type(tensor_type(self.input), tensor_type(self.weight), bias)


@irdl_op_definition
class AddmmOp(InferredResultOp):
    """aten.addmm: bias + lhs @ rhs (beta = alpha = 1)."""

    name = "hl.addmm"

    bias = operand_def(same_element_tensor("bias"))
    lhs = operand_def(same_element_tensor("lhs"))
    rhs = operand_def(same_element_tensor("rhs"))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$bias `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def infer_result_type(self) -> TensorType:
        return addmm_type(tensor_type(self.bias), tensor_type(self.lhs), tensor_type(self.rhs))


@irdl_op_definition
class ScaledDotProductAttentionOp(InferredResultOp):
    """aten.scaled_dot_product_attention on [..., L, E] query, [..., S, E] key, [..., S, Ev] value.

    The batch dimensions broadcast (the result is [*batch, L, Ev]); an optional `mask`
    is i1 (true takes part) or the query's element type, broadcastable to
    [*batch, L, S], and cannot be combined with `is_causal`. The unit property
    `enable_gqa` is torch's grouped-query attention: dimension -3 of key and value holds
    Hkv heads that Hq = G * Hkv query heads share (query head h reads key/value head
    h // G), instead of key and value repeated to Hq heads; `hl-canonicalize` folds
    HF's `repeat_kv` into it.
    """

    name = "hl.sdpa"

    query = operand_def(same_element_tensor("query"))
    key = operand_def(same_element_tensor("key"))
    value = operand_def(same_element_tensor("value"))
    mask = opt_operand_def(TensorType)
    result = result_def(TensorType)
    is_causal = opt_prop_def(UnitAttr)
    scale = opt_prop_def(FloatAttr)
    enable_gqa = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict"
        " `:` type($query) `,` type($key) `,` type($value) `->` type($result)"
    )

    def infer_result_type(self) -> TensorType:
        return sdpa_type(
            tensor_type(self.query),
            tensor_type(self.key),
            tensor_type(self.value),
            None if self.mask is None else tensor_type(self.mask),
            self.is_causal is not None,
            self.enable_gqa is not None,
        )
