"""Converters of matrix products, embedding, concatenation and attention.

Scaled-dot-product attention reaches the importer as whichever fused kernel ATen picked
for the device (`_scaled_dot_product_flash_attention_for_cpu`, `..._flash_attention`,
`..._efficient_attention`, `..._cudnn_attention`); all of them become one `hl.sdpa`
carrying the causal flag and scale. Grouped-query attention (key/value with fewer heads
than the query, each serving a contiguous group of query heads, as torch's
`enable_gqa=True` hands them to the kernel) becomes `hl.sdpa` with `enable_gqa`.
Only the attention output is imported; the statistics the kernels also return are for
autograd and must be unused.
"""

from __future__ import annotations

import operator

import torch
from torch import fx
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, SSAValue

from lumir.dialects import hl
from lumir.frontend import generators, views
from lumir.frontend.context import ImportContext, UnsupportedNodeError
from lumir.frontend.dtypes import element_type

aten = torch.ops.aten


def convert_matmul(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.mm / aten.bmm -> hl.matmul (hl-to-cublaslt makes it a cuBLASLt call)."""
    return cx.emit(hl.MatmulOp(cx.value(node.args[0]), cx.value(node.args[1])))


def convert_matrix_vector(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.mv(matrix[M, K], vector[K]) and aten.dot(vector[K], vector[K]) -> hl.matmul;
    aten.vdot too, which is dot for the real dtypes lumir imports (its conjugate only
    differs for complex ones: spectral norm's sigma is a `vdot`).

    The vectors become one-column (the left one of a dot: one-row) matrices and the
    product is reshaped back to the node's shape, so it is a cuBLASLt call like every
    other product. torch's decompositions write both as a multiply and a sum, which
    would take them out of the fusion rules' reach.
    """
    return cx.reshape(_vector_product(cx, node.args[0], node.args[1]), cx.tensor_type(node))


def _vector_product(cx: ImportContext, left: object, vector: object) -> SSAValue:
    """`left @ vector` as an hl.matmul with `vector` a one-column matrix (and `left`,
    where it is a vector too, a one-row matrix)."""
    lhs, rhs = cx.value(left), cx.value(vector)
    if len(_shape(lhs)) == 1:
        lhs = cx.reshape(lhs, _with_shape(lhs, (1, *_shape(lhs))))
    rhs = cx.reshape(rhs, _with_shape(rhs, (*_shape(rhs), 1)))
    return cx.emit(hl.MatmulOp(lhs, rhs))


def _with_shape(value: SSAValue, shape: tuple[int, ...]) -> TensorType:
    assert isinstance(value.type, TensorType)
    return TensorType(value.type.element_type, shape)


def convert_addmm(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.addmm / aten.baddbmm(bias, x, y, beta=1, alpha=1) -> beta*bias + alpha*(x @ y).

    Written as hl.matmul then hl.add (with hl.mul by a constant for beta or alpha not 1),
    the forms the bias, residual and alpha rules of cublaslt-fuse match. torch's own
    decomposition is not used: on CPU it computes half-precision products in f32.
    """
    product = cx.emit(hl.MatmulOp(cx.value(node.args[1]), cx.value(node.args[2])))
    return _scaled_sum(cx, node, product)


def convert_addmv(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.addmv(bias, matrix, vector, beta=1, alpha=1): `convert_addmm` with the
    vector product of `convert_matrix_vector`."""
    column = _vector_product(cx, node.args[1], node.args[2])  # [M, 1]
    product = cx.reshape(column, _with_shape(column, _shape(column)[:1]))
    return _scaled_sum(cx, node, product)


def _scaled_sum(cx: ImportContext, node: fx.Node, product: SSAValue) -> SSAValue:
    """beta * bias + alpha * product for an add-product node (the bias is its first
    argument). beta = 0 ignores the bias entirely (NaN in it included), as torch does."""
    element = element_type(cx.dtype(node))
    alpha, beta = (cx.scalar(node.kwargs.get(name, 1)) for name in ("alpha", "beta"))
    if alpha == 0 and node.target in _BLAS_ALPHA:
        return _bias_alone(cx, node, product, beta, element)
    if alpha != 1:
        product = cx.emit(hl.MulOp(product, cx.constant(float(alpha), element)))
    if beta == 0:
        return product
    bias = cx.value(node.args[0])
    if beta != 1:
        bias = cx.emit(hl.MulOp(bias, cx.constant(float(beta), element)))
    return cx.emit(hl.AddOp(product, bias))


_BLAS_ALPHA = frozenset({aten.addmm.default, aten.addmv.default})
"""Add-product ops whose ATen kernels skip the product when alpha is 0 (BLAS's
convention), so a NaN or inf in the matrices does not reach the result; baddbmm's
computes `0 * product` and does propagate it."""


def _bias_alone(
    cx: ImportContext, node: fx.Node, product: SSAValue, beta: float, element: Attribute
) -> SSAValue:
    """beta * bias at the product's shape, the product not read (alpha = 0); zeros when
    beta is 0 too. The broadcast multiplies by ones, which keeps every value (-0.0 and
    NaN in the bias included), where adding zeros would turn -0.0 into 0.0."""
    if beta == 0:
        return cx.constant(0.0, element, _shape(product))
    bias = cx.value(node.args[0])
    if beta != 1:
        bias = cx.emit(hl.MulOp(bias, cx.constant(float(beta), element)))
    return cx.emit(hl.MulOp(cx.constant(1.0, element, _shape(product)), bias))


def convert_embedding(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.embedding(weight, indices, ...): padding_idx only matters for gradients."""
    weight, indices = cx.value(node.args[0]), cx.value(node.args[1])
    op = hl.EmbeddingOp(operands=[weight, indices], result_types=[cx.tensor_type(node)])
    return cx.emit(op)


def convert_cat(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.cat; inputs with no elements contribute nothing and are dropped (an empty
    KV cache at the first step), as ATen skips them. Inputs of different dtypes are
    converted to the promoted result dtype first, as ATen's cat does (f16 with bf16 gives
    f32, bool with i64 gives i64)."""
    result_type = cx.tensor_type(node)
    inputs = [cx.value(arg) for arg in node.args[0]]
    kept = [cx.cast(v, result_type.element_type) for v in inputs if 0 not in _shape(v)]
    if not kept:  # nothing to join: the result has no element either
        return cx.emit(hl.ConstantOp(DenseIntOrFPElementsAttr.from_list(result_type, [])))
    if len(kept) == 1:
        return kept[0]
    dim = int(node.args[1]) if len(node.args) > 1 else int(node.kwargs.get("dim", 0))
    op = hl.CatOp(
        operands=[kept],
        result_types=[result_type],
        properties={"dim": IntegerAttr(dim, i64)},
    )
    return cx.emit(op)


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


SDPA_SIGNATURES: dict[object, tuple[int | None, int, int]] = {
    aten._scaled_dot_product_flash_attention_for_cpu.default: (None, 3, 4),
    aten._scaled_dot_product_flash_attention.default: (None, 3, 4),
    aten._scaled_dot_product_efficient_attention.default: (3, 5, 6),
    aten._scaled_dot_product_cudnn_attention.default: (3, 5, 6),
}
"""Fused attention kernel -> (position of its mask argument or None, of dropout_p, of
is_causal). The CPU kernel takes its mask as the `attn_mask` keyword instead."""


def sdpa_arguments(node: fx.Node) -> tuple[object, object, bool, object]:
    """(mask, dropout_p, is_causal, scale) of an attention node, positional or keyword;
    dropout_p and scale are numbers, or nodes computing them (a scale from a size)."""
    mask_at, dropout_at, causal_at = SDPA_SIGNATURES[node.target]
    args = list(node.args)

    def arg(index: int | None, name: str, default: object) -> object:
        if index is not None and index < len(args):
            return args[index]
        return node.kwargs.get(name, default)

    mask = arg(mask_at, "attn_bias", None) if mask_at is not None else None
    mask = node.kwargs.get("attn_mask", mask)
    dropout = arg(dropout_at, "dropout_p", 0.0)
    causal = bool(arg(causal_at, "is_causal", False))
    return mask, dropout, causal, node.kwargs.get("scale")


def _grouped_query(query: SSAValue, key: SSAValue, value: SSAValue) -> bool:
    """Whether [B, H, L, E] attention has key and value of fewer heads (grouped-query)."""
    if len(_shape(query)) != 4 or _shape(key)[1] == _shape(query)[1]:
        return False
    heads, kv_heads, value_heads = _shape(query)[1], _shape(key)[1], _shape(value)[1]
    if value_heads != kv_heads or kv_heads == 0 or heads % kv_heads:
        raise UnsupportedNodeError(
            f"{heads} query heads do not group over key/value heads {kv_heads} and {value_heads}"
        )
    return True


def convert_sdpa(cx: ImportContext, node: fx.Node) -> SSAValue:
    """A fused attention kernel -> hl.sdpa (the node's output 0; see the module doc)."""
    mask_arg, _, causal, scale = sdpa_arguments(node)
    query, key, value = (cx.value(arg) for arg in node.args[:3])  # type: ignore[arg-type]
    assert isinstance(query.type, TensorType)
    element: Attribute = query.type.element_type
    operands: list[SSAValue] = [query, key, value]
    if mask_arg is not None:
        mask = cx.value(mask_arg)
        assert isinstance(mask.type, TensorType)
        if mask.type.element_type != i1:
            mask = cx.cast(mask, element)
        operands.append(mask)
    props: dict[str, Attribute] = {}
    if causal:
        props["is_causal"] = UnitAttr()
    if scale is not None:
        props["scale"] = FloatAttr(float(cx.scalar(scale)), f64)
    if _grouped_query(query, key, value):
        props["enable_gqa"] = UnitAttr()
    result_type = TensorType(element, list(cx.shape(node)))
    op = hl.ScaledDotProductAttentionOp(
        operands=[query, key, value, operands[3:]],
        result_types=[result_type],
        properties=props,
    )
    return cx.emit(op)


def convert_getitem(cx: ImportContext, node: fx.Node) -> SSAValue | None:
    """operator.getitem(attention node, i): output 0 is the imported result; the others
    are statistics nobody reads (the table checks), so they have no value.
    operator.getitem(split node, i): the i-th piece (lumir.frontend.views.split_piece).
    operator.getitem(max.dim / min.dim node, i): its values or indices
    (lumir.frontend.generators.extreme_piece)."""
    source, index = node.args
    assert isinstance(source, fx.Node) and isinstance(index, int)
    if source.target in views.SPLITS:  # a piece nobody reads is not sliced
        return views.split_piece(cx, source, index, node) if node.users else None
    if source.target in generators.EXTREMES:  # nor an unread half of max.dim gathered
        return generators.extreme_piece(cx, source, index) if node.users else None
    if index != 0:
        if node.users:
            raise UnsupportedNodeError(f"output {index} of {source} is not imported")
        return None
    return cx.value(source)


GETITEM = operator.getitem
