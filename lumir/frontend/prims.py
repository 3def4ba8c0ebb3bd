"""Converters of the `prims` ops torch's reference decompositions leave in a graph.

Layer norm reaches lumir through torch's own decomposition (`native_layer_norm` and
`var_mean` are in lumir's table, lumir.frontend.decompositions), and that decomposition
is written with torch's reference implementations: the statistics arrive as
`prims.var`, `prims.sum`, `prims.div` and `prims.broadcast_in_dim` rather than ATen
ops. Each maps onto `hl` ops the fusion passes already know (`hl.mean`, `hl.sum`,
elementwise ops, `hl.reshape` + `hl.expand`), so a LayerNorm becomes one fused row
kernel on CUDA like an RMSNorm does, instead of a fallback to eager.
"""

from __future__ import annotations

import math

import torch
from torch import fx
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from lumir.dialects import hl
from lumir.frontend.context import ImportContext
from lumir.frontend.dtypes import HALF_DTYPES, element_type


def _dims(node: fx.Node) -> list[int] | None:
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dims")
    return None if dims is None else [int(d) for d in dims]  # type: ignore[union-attr]


def reduction_check(node: fx.Node) -> str | None:
    """prims.sum / prims.var: a non-empty dim list (prims reduce nothing over `[]`,
    where `hl` reductions reduce everything)."""
    dims = _dims(node)
    return None if dims else f"dims={dims} (prims reduce nothing over an empty list)"


def floating_division(node: fx.Node) -> str | None:
    """prims.div truncates integers; only its floating-point (true) division is imported."""
    result = node.meta.get("val")
    if isinstance(result, torch.Tensor) and result.dtype.is_floating_point:
        return None
    return "integer prims.div (truncating division)"


def convert_var(cx: ImportContext, node: fx.Node) -> SSAValue:
    """prims.var(x, dims, correction): Σ (x - mean)² / (N - correction), with the mean
    corrected by a second pass.

    Half-precision inputs are reduced in f32 and the result rounded, as ATen's
    reductions do; `output_dtype` is the node's dtype, a cast at the end. The sums keep
    their dimensions and the result is reshaped once, as in `convert_sum`.
    """
    result = cx.dtype(node)
    compute = torch.float32 if result in HALF_DTYPES else result
    element = element_type(compute)
    x = cx.cast(cx.value(node.args[0]), element)
    assert isinstance(x.type, TensorType)
    shape = x.type.get_shape()
    dims = [d % len(shape) for d in _dims(node) or []]
    correction = node.args[2] if len(node.args) > 2 else node.kwargs.get("correction", 0.0)
    count = math.prod(shape[d] for d in dims)
    mean = cx.emit(hl.MeanOp(x, dims, True))
    # Corrected: a row of one value has exactly that mean, so its variance is 0 as
    # ATen's Welford gives it, not the square of an ulp (decompositions._var_mean).
    mean = cx.emit(hl.AddOp(mean, cx.emit(hl.MeanOp(cx.emit(hl.SubOp(x, mean)), dims, True))))
    deviation = cx.emit(hl.SubOp(x, mean))
    squares = cx.emit(hl.MulOp(deviation, deviation))
    total = cx.emit(hl.SumOp(squares, dims, True))
    # ATen divides by max(0, N - correction): an empty row's variance is 0 / 0 = NaN.
    divisor = cx.constant(max(0.0, count - float(correction)), element)  # type: ignore[arg-type]
    variance = cx.cast(cx.emit(hl.DivOp(total, divisor)), element_type(result))
    return cx.reshape(variance, cx.tensor_type(node))


def convert_sum(cx: ImportContext, node: fx.Node) -> SSAValue:
    """prims.sum(x, dims, output_dtype=None): a kept-dimension `hl.sum` reshaped to the
    result. The decomposition broadcasts the sum straight back (`broadcast_in_dim`),
    and hl-canonicalize folds the two reshapes: the row-fusion pass then sees the same
    `[rows, 1]` statistic an RMSNorm's `mean(keepdim=True)` gives it."""
    x = cx.cast(cx.value(node.args[0]), element_type(cx.dtype(node)))
    total = cx.emit(hl.SumOp(x, _dims(node) or [], True))
    return cx.reshape(total, cx.tensor_type(node))


def convert_broadcast_in_dim(cx: ImportContext, node: fx.Node) -> SSAValue:
    """prims.broadcast_in_dim(x, shape, broadcast_dimensions): x's dimension i becomes
    result dimension broadcast_dimensions[i]; the others are new. A reshape that puts
    1s at the new dimensions, then an expand to the result's shape."""
    x = cx.value(node.args[0])
    assert isinstance(x.type, TensorType)
    result = cx.tensor_type(node)
    placed = [int(d) for d in node.args[2]]  # type: ignore[union-attr]
    unit_shape = [1] * len(result.get_shape())
    for source, target in enumerate(placed):
        unit_shape[target] = x.type.get_shape()[source]
    reshaped = cx.reshape(x, TensorType(x.type.element_type, unit_shape))
    if reshaped.type == result:
        return reshaped
    return cx.emit(hl.ExpandOp(operands=[reshaped], result_types=[result]))
