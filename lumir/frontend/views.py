"""Converters of view ops: each becomes the `hl` shape op the fusion rules understand.

Under value semantics a view is its data rearranged: `view`/`_unsafe_view`/`unsqueeze`/
`squeeze` are `hl.reshape` to the node's shape, `permute`/`transpose`/`t` are
`hl.transpose` (hl-to-cublaslt folds a last-two-dims transpose into `transa`/`transb`),
`expand` is `hl.expand`, `slice` is `hl.slice` with bounds normalised into the dimension
(so a specialisation for a new length carries its own bounds), and `select` a slice then
a reshape that drops the dimension. `split`, `split_with_sizes` (and their `unsafe_`
forms) and `unbind` are the same slices, one per `getitem` of their result.
"""

from __future__ import annotations

import torch
from torch import fx
from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import SSAValue

from lumir.dialects import hl
from lumir.frontend.context import ImportContext


def convert_reshape(cx: ImportContext, node: fx.Node) -> SSAValue:
    """view / _unsafe_view / reshape / unsqueeze / squeeze: the node's shape, same data."""
    return cx.reshape(cx.value(node.args[0]), cx.tensor_type(node))


def convert_permute(cx: ImportContext, node: fx.Node) -> SSAValue:
    x = cx.value(node.args[0])
    rank = len(cx.shape(node))
    permutation = [int(d) % max(rank, 1) for d in node.args[1]]
    return cx.emit(hl.TransposeOp(x, permutation))


def convert_transpose(cx: ImportContext, node: fx.Node) -> SSAValue:
    x = cx.value(node.args[0])
    rank = len(cx.shape(node))
    if rank < 2:
        return x
    first, second = (int(d) % rank for d in node.args[1:3])
    permutation = list(range(rank))
    permutation[first], permutation[second] = second, first
    return cx.emit(hl.TransposeOp(x, permutation))


def convert_t(cx: ImportContext, node: fx.Node) -> SSAValue:
    x = cx.value(node.args[0])
    if len(cx.shape(node)) < 2:
        return x
    return cx.emit(hl.TransposeOp(x, [1, 0]))


def convert_expand(cx: ImportContext, node: fx.Node) -> SSAValue:
    x = cx.value(node.args[0])
    result_type = cx.tensor_type(node)
    if x.type == result_type:
        return x
    return cx.emit(hl.ExpandOp(operands=[x], result_types=[result_type]))


def slice_along(
    cx: ImportContext, x: SSAValue, dim: int, start: int, end: int, step: int
) -> SSAValue:
    """`x[..., start:end:step, ...]` along `dim` (Python's slice bounds; `x` itself when
    the slice takes all of it)."""
    assert isinstance(x.type, TensorType)
    shape = list(x.type.get_shape())
    dim %= len(shape)
    start, end, step = slice(start, end, step).indices(shape[dim])
    end = max(end, start)
    shape[dim] = len(range(start, end, step))
    if shape == list(x.type.get_shape()):
        return x
    props = {
        "dim": IntegerAttr(dim, i64),
        "start": IntegerAttr(start, i64),
        "end": IntegerAttr(end, i64),
        "step": IntegerAttr(step, i64),
    }
    result_type = TensorType(x.type.element_type, shape)
    return cx.emit(hl.SliceOp(operands=[x], result_types=[result_type], properties=props))


def convert_slice(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.slice.Tensor(x, dim=0, start=None, end=None, step=1)."""
    args = list(node.args) + [None] * (5 - len(node.args))
    dim = int(args[1] if args[1] is not None else node.kwargs.get("dim", 0))
    start = cx.integer(args[2]) if args[2] is not None else None
    end = cx.integer(args[3]) if args[3] is not None else None
    step = cx.integer(args[4]) if args[4] is not None else 1
    return slice_along(cx, cx.value(node.args[0]), dim, start, end, step)  # type: ignore[arg-type]


def _select(cx: ImportContext, x: SSAValue, dim: int, index: int, node: fx.Node) -> SSAValue:
    """Position `index` of `x` along `dim`: a one-wide slice reshaped to `node`'s type."""
    assert isinstance(x.type, TensorType)
    index %= x.type.get_shape()[dim]
    return cx.reshape(slice_along(cx, x, dim, index, index + 1, 1), cx.tensor_type(node))


def convert_select(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.select.int(x, dim, index): a one-wide slice, reshaped without the dimension."""
    return _select(cx, cx.value(node.args[0]), int(node.args[1]), cx.integer(node.args[2]), node)


SPLITS: frozenset[object] = frozenset(
    {
        torch.ops.aten.split.Tensor,
        torch.ops.aten.split_with_sizes.default,
        torch.ops.aten.unsafe_split.Tensor,
        torch.ops.aten.unsafe_split_with_sizes.default,
        torch.ops.aten.unbind.int,
    }
)
"""Multi-output view ops: the node itself emits nothing, each `getitem` of it a slice.
The `unsafe_` splits (`LSTMCell` and `GRUCell` cut their gates with `unsafe_chunk`)
are the same pieces; they differ only in what autograd tracks."""

_EVEN_SPLITS = (torch.ops.aten.split.Tensor, torch.ops.aten.unsafe_split.Tensor)


def convert_split(cx: ImportContext, node: fx.Node) -> None:
    """split / split_with_sizes / unbind: no value of their own; `split_piece` makes the
    piece each `operator.getitem` reads, so pieces nobody reads cost nothing."""
    cx.value(node.args[0])  # the input must be imported


def split_piece(cx: ImportContext, split: fx.Node, index: int, piece: fx.Node) -> SSAValue:
    """Piece `index` of `split` (whose getitem node is `piece`): a slice along the split
    dimension (for unbind, a one-wide slice reshaped without it)."""
    x = cx.value(split.args[0])
    assert isinstance(x.type, TensorType)
    rank = len(x.type.get_shape())
    default_dim = 1 if split.target is torch.ops.aten.unbind.int else 2
    dim = split.args[default_dim] if len(split.args) > default_dim else split.kwargs.get("dim", 0)
    dim = int(dim) % rank  # type: ignore[arg-type]
    size = x.type.get_shape()[dim]
    if split.target is torch.ops.aten.unbind.int:
        return _select(cx, x, dim, index, piece)
    if split.target in _EVEN_SPLITS:
        width = cx.integer(split.args[1])
        start = index * width
        end = min(start + width, size)
    else:
        sizes = cx.integers(split.args[1])  # type: ignore[arg-type]
        start = sum(sizes[:index])
        end = start + sizes[index]
    return slice_along(cx, x, dim, start, end, 1)


def convert_slice_scatter(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.slice_scatter(x, src, dim=0, start=None, end=None, step=1) with step 1: x
    with positions start..end along dim replaced by src (torch writes circular padding
    with these)."""
    args = list(node.args) + [None] * (6 - len(node.args))
    x = cx.value(node.args[0])
    assert isinstance(x.type, TensorType)
    dim = int(args[2] if args[2] is not None else node.kwargs.get("dim", 0)) % x.type.get_num_dims()
    start = cx.integer(args[3]) if args[3] is not None else None
    end = cx.integer(args[4]) if args[4] is not None else None
    return _scatter(cx, node, x, cx.value(node.args[1]), dim, start, end)


def convert_select_scatter(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.select_scatter(x, src, dim, index): x with position `index` along dim
    replaced by src (which lacks that dimension)."""
    x = cx.value(node.args[0])
    assert isinstance(x.type, TensorType)
    shape = list(x.type.get_shape())
    dim = int(node.args[2]) % len(shape)  # type: ignore[call-overload]
    index = cx.integer(node.args[3]) % shape[dim]
    source = cx.value(node.args[1])
    unit = [*shape[:dim], 1, *shape[dim + 1 :]]
    source = cx.reshape(source, TensorType(x.type.element_type, unit))
    return _scatter(cx, node, x, source, dim, index, index + 1)


def _scatter(
    cx: ImportContext,
    node: fx.Node,
    x: SSAValue,
    source: SSAValue,
    dim: int,
    start: int | None,
    end: int | None,
) -> SSAValue:
    """x with positions start..end along dim replaced by `source`: the `cat` of x's part
    before, the source, and x's part after (empty parts left out)."""
    length = x.type.get_shape()[dim]  # type: ignore[union-attr]
    start, end, _ = slice(start, end, 1).indices(length)
    end = max(end, start)
    pieces = [slice_along(cx, x, dim, 0, start, 1), source, slice_along(cx, x, dim, end, length, 1)]
    kept = [p for p in pieces if p.type.get_shape()[dim] != 0]  # type: ignore[union-attr]
    if len(kept) == 1:
        return kept[0]
    properties = {"dim": IntegerAttr(dim, i64)}
    op = hl.CatOp(operands=[kept], result_types=[cx.tensor_type(node)], properties=properties)
    return cx.emit(op)


def slice_scatter_check(node: fx.Node) -> str | None:
    """A unit step only: a strided scatter interleaves source and input positions."""
    step = node.args[5] if len(node.args) > 5 else node.kwargs.get("step", 1)
    return None if step in (None, 1) else f"a slice_scatter with step {step}"


def convert_copy(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.copy(x, src), functional: src in x's dtype, broadcast to x's shape (x's values
    are all overwritten, so only its type matters)."""
    source = cx.value(node.args[1])
    result_type = cx.tensor_type(node)
    source = cx.cast(source, result_type.element_type)
    if source.type == result_type:
        return source
    return cx.emit(hl.ExpandOp(operands=[source], result_types=[result_type]))


def convert_empty(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.new_empty / empty_like / empty: a tensor whose values are unspecified, imported
    as zeros (any values are correct; zeros make a program that reads them by mistake
    deterministic)."""
    dtype = cx.dtype(node)
    return cx.constant(
        0.0 if dtype.is_floating_point else 0, cx.tensor_type(node).element_type, cx.shape(node)
    )
