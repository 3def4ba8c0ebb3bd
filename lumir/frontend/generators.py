"""Converters of ranges, running sums, integer-tensor indexing and constant padding.

These are the ops a Llama builds its positions, rotary tables and attention mask with;
importing them keeps the whole model in one lumir partition. Every bound, dimension and
pad amount goes through the bindings (`ImportContext.integer`), so they are concrete in
each specialisation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import fx
from xdsl.dialects.builtin import TensorType, i64
from xdsl.ir import SSAValue

from lumir.dialects import hl
from lumir.frontend.context import ImportContext
from lumir.frontend.dtypes import element_type

_INDEX_DTYPES = (torch.int32, torch.int64)


def convert_arange(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.arange (end), arange.start (start, end), arange.start_step (start, end, step)."""
    bounds = [int(b) if isinstance(b, float) else cx.integer(b) for b in node.args]
    start, end, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    return cx.emit(hl.ArangeOp(start, end, step, element_type(cx.dtype(node))))


def arange_check(node: fx.Node) -> str | None:
    """Integer (or SymInt) bounds are imported, and float bounds that are whole numbers
    (XLNet counts its positions down with a step of -1.0): the range is then the same
    integers either way. Other float ranges round as torch decides and stay in eager."""
    for bound in node.args:
        if isinstance(bound, float) and not bound.is_integer():
            return f"a float bound {bound}"
        if isinstance(bound, fx.Node) and not isinstance(bound.meta.get("val"), torch.SymInt):
            return "a bound computed by a tensor"
    return None


def convert_cumsum(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.cumsum(x, dim, dtype=None): the input in the result dtype, then the sum."""
    x = cx.cast(cx.value(node.args[0]), element_type(cx.dtype(node)))
    return cx.emit(hl.CumsumOp(x, cx.integer(node.args[1])))


def convert_index(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.index.Tensor(x, [i0, i1, ...]) with integer index tensors (see `index_check`)."""
    indices = [cx.value(index) for index in node.args[1]]  # type: ignore[union-attr]
    return cx.emit(hl.IndexOp(cx.value(node.args[0]), indices))


def index_check(node: fx.Node) -> str | None:
    """Integer index tensors for leading dimensions only: a `None` (a skipped dimension)
    or a boolean mask (a data-dependent shape) stays in eager."""
    for index in node.args[1]:  # type: ignore[union-attr]
        if not isinstance(index, fx.Node):
            return "an index that skips a dimension (None)"
        value = index.meta.get("val")
        if not isinstance(value, torch.Tensor) or value.dtype not in _INDEX_DTYPES:
            dtype = getattr(value, "dtype", None)
            return f"an index of dtype {dtype} (boolean masks run in eager)"
    return None


def _along(cx: ImportContext, sizes: Sequence[int], axis: int, index: SSAValue) -> list[SSAValue]:
    """One `hl.index` index per dimension of a result of `sizes`: `index` along `axis`,
    and along every other dimension d the positions 0..sizes[d] (an `hl.arange` shaped
    to broadcast along d only), so that position i there reads position i of the input."""
    indices = []
    for d, size in enumerate(sizes):
        if d == axis:
            indices.append(index)
            continue
        positions = cx.emit(hl.ArangeOp(0, size, 1, i64))
        unit = [size if e == d else 1 for e in range(len(sizes))]
        indices.append(cx.reshape(positions, TensorType(i64, unit)))
    return indices


def convert_flip(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.flip(x, dims) and prims.rev(x, dims): one `hl.index` reading, along each
    flipped dimension of size n, the positions n-1 down to 0 (an `hl.arange` with step
    -1), and every other dimension in order."""
    x = cx.value(node.args[0])
    sizes = cx.shape(node.args[0])  # type: ignore[arg-type]
    if not sizes:
        return x  # a 0-d tensor has nothing to flip
    flipped = {int(d) % len(sizes) for d in node.args[1]}  # type: ignore[union-attr]
    indices = []
    for d, size in enumerate(sizes):
        bounds = (size - 1, -1, -1) if d in flipped else (0, size, 1)
        positions = cx.emit(hl.ArangeOp(*bounds, i64))
        unit = [size if e == d else 1 for e in range(len(sizes))]
        indices.append(cx.reshape(positions, TensorType(i64, unit)))
    return cx.emit(hl.IndexOp(x, indices))


def convert_gather(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.gather(x, dim, index): one `hl.index` over every dimension of x, reading
    `index` along `dim` and the same position along every other dimension, which is
    gather's definition: out[i][j][k] = x[i][index[i][j][k]][k]."""
    x, dim, index = cx.value(node.args[0]), node.args[1], node.args[2]
    sizes = cx.shape(index)  # type: ignore[arg-type]
    axis = int(dim) % len(sizes)  # type: ignore[arg-type]
    return cx.emit(hl.IndexOp(x, _along(cx, sizes, axis, cx.value(index))))


def convert_index_select(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.index_select(x, dim, index): `hl.index` over x's dimensions up to `dim`, with
    `index` (a [1, ..., 1, n] tensor) along `dim` and every position of each dimension
    before it: out[i][j][k] = x[i][index[j]][k]. XGLM's sinusoidal positions are one."""
    x, dim, index = cx.value(node.args[0]), node.args[1], node.args[2]
    shape = cx.shape(node.args[0])  # type: ignore[arg-type]
    axis = int(dim) % len(shape)  # type: ignore[arg-type]
    count = max(1, math.prod(cx.shape(index)))  # type: ignore[arg-type]
    selected = cx.reshape(cx.cast(cx.value(index), i64), TensorType(i64, [1] * axis + [count]))
    sizes = [*shape[:axis], count]
    return cx.emit(hl.IndexOp(x, _along(cx, sizes, axis, selected)))


def index_select_check(node: fx.Node) -> str | None:
    """An integer index of at most one dimension into a tensor of at least one, as torch
    requires."""
    x, index = (a.meta.get("val") for a in (node.args[0], node.args[2]))  # type: ignore[union-attr]
    if not isinstance(x, torch.Tensor) or not isinstance(index, torch.Tensor):
        return "not a tensor index_select"
    if x.dim() == 0 or index.dim() > 1 or index.dtype not in _INDEX_DTYPES:
        return f"an index of rank {index.dim()} and {index.dtype} into a rank-{x.dim()} input"
    return None


def gather_check(node: fx.Node) -> str | None:
    """A dense gather with an index of x's rank (torch requires both); `sparse_grad`
    is for training and stays in eager."""
    sparse = node.args[3] if len(node.args) > 3 else node.kwargs.get("sparse_grad", False)
    if sparse:
        return "sparse_grad=True"
    x, index = (a.meta.get("val") for a in (node.args[0], node.args[2]))  # type: ignore[union-attr]
    if not isinstance(x, torch.Tensor) or not isinstance(index, torch.Tensor):
        return "not a tensor gather"
    if index.dim() == 0 or index.dim() != x.dim():
        return f"an index of rank {index.dim()} for an input of rank {x.dim()}"
    return None


def convert_index_copy(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.index_copy(x, dim, index, source): a KV cache update (see hl.IndexCopyOp)."""
    x, dim, index, source = node.args[:4]
    return cx.emit(hl.IndexCopyOp(cx.value(x), cx.integer(dim), cx.value(index), cx.value(source)))


def index_copy_check(node: fx.Node) -> str | None:
    """An i64 index tensor, as torch requires; anything else stays in eager."""
    value = node.args[2].meta.get("val") if isinstance(node.args[2], fx.Node) else None
    if not isinstance(value, torch.Tensor) or value.dtype != torch.int64 or value.dim() != 1:
        return "an index that is not a 1-D int64 tensor"
    return None


def convert_pad(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.constant_pad_nd(x, pad, value=0)."""
    value = node.args[2] if len(node.args) > 2 else node.kwargs.get("value", 0)
    return cx.emit(hl.PadOp(cx.value(node.args[0]), cx.integers(node.args[1]), float(value)))
