"""Converters of ranges, running sums, integer-tensor indexing and constant padding.

These are the ops a Llama builds its positions, rotary tables and attention mask with;
importing them keeps the whole model in one lumir partition. Every bound, dimension and
pad amount goes through the bindings (`ImportContext.integer`), so they are concrete in
each specialisation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch import fx
from torch.fx.experimental.symbolic_shapes import statically_known_true
from xdsl.dialects.builtin import TensorType, i1, i64
from xdsl.ir import SSAValue

from lumir.dialects import hl
from lumir.frontend.context import ImportContext
from lumir.frontend.dtypes import element_type
from lumir.frontend.elementwise import emit_compare
from lumir.frontend.shapes import expression

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


def cumulative(op_class: type[hl.CumulativeOp]) -> Callable[[ImportContext, fx.Node], SSAValue]:
    """aten.cumsum / aten.cumprod(x, dim, dtype=None): the input in the result dtype
    (int64 for an integer or bool input, as ATen promotes it), then the running sum or
    product, which the executors compute with torch's kernel, eager's bits."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        x = cx.cast(cx.value(node.args[0]), element_type(cx.dtype(node)))
        return cx.emit(op_class(x, cx.integer(node.args[1])))

    return convert


def convert_index(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.index.Tensor / aten._unsafe_index.Tensor(x, [i0, i1, ...]) with integer index
    tensors (see `index_check`).

    Leading `None`s (dimensions taken whole, as `x[:, :, rows, columns]` is: an
    upsampling's or a padding's gather) become `hl.arange` positions shaped to
    broadcast against the index tensors, which are reshaped to broadcast after them:
    the result is [skipped sizes..., the indices' broadcast shape, the rest], torch's
    order for a contiguous block of index tensors. Trailing `None`s are dropped.
    """
    given = list(node.args[1])  # type: ignore[arg-type]
    while given and given[-1] is None:
        given.pop()
    skipped = next(i for i, index in enumerate(given) if index is not None)
    x = cx.value(node.args[0])
    shapes = [list(cx.shape(index)) for index in given[skipped:]]  # type: ignore[arg-type]
    broadcast = list(torch.broadcast_shapes(*shapes))
    sizes = list(cx.shape(node.args[0]))[:skipped] + broadcast  # type: ignore[arg-type]
    indices = [_positions(cx, sizes, d, (0, sizes[d], 1)) for d in range(skipped)]
    for index, shape in zip(given[skipped:], shapes, strict=True):
        value = cx.value(index)
        element = value.type.get_element_type()  # type: ignore[union-attr]
        indices.append(cx.reshape(value, TensorType(element, [1] * skipped + shape)))
    return cx.emit(hl.IndexOp(x, indices))


def index_check(node: fx.Node) -> str | None:
    """Integer index tensors for a contiguous run of dimensions, after only whole
    dimensions (`None`): an index tensor after a `None` puts the indexed dimensions
    first in torch's result, and a boolean mask has a data-dependent shape; both stay
    in eager."""
    given = list(node.args[1])  # type: ignore[arg-type]
    while given and given[-1] is None:
        given.pop()
    if not given:
        return "no index tensor"
    seen_index = False
    for index in given:
        if index is None:
            if seen_index:
                return "a None between index tensors (torch moves the indexed dimensions first)"
            continue
        seen_index = True
        if not isinstance(index, fx.Node):
            return "an index that is not a tensor"
        value = index.meta.get("val")
        if not isinstance(value, torch.Tensor) or value.dtype not in _INDEX_DTYPES:
            dtype = getattr(value, "dtype", None)
            return f"an index of dtype {dtype} (boolean masks run in eager)"
    return None


def _positions(
    cx: ImportContext, sizes: Sequence[int], d: int, bounds: tuple[int, int, int]
) -> SSAValue:
    """The `hl.arange` of `bounds` (start, end, step), shaped to broadcast along
    dimension d of a result of `sizes` only: one `hl.index` index for dimension d."""
    positions = cx.emit(hl.ArangeOp(*bounds, i64))
    unit = [sizes[d] if e == d else 1 for e in range(len(sizes))]
    return cx.reshape(positions, TensorType(i64, unit))


def _along(cx: ImportContext, sizes: Sequence[int], axis: int, index: SSAValue) -> list[SSAValue]:
    """One `hl.index` index per dimension of a result of `sizes`: `index` along `axis`,
    and along every other dimension d the positions 0..sizes[d], so that position i
    there reads position i of the input."""
    return [
        index if d == axis else _positions(cx, sizes, d, (0, size, 1))
        for d, size in enumerate(sizes)
    ]


def triangle(upper: bool) -> Callable[[ImportContext, fx.Node], SSAValue]:
    """aten.triu (`upper`) / aten.tril (x, diagonal=0): `where(keep, x, 0)` over the
    last two dimensions, where position (i, j) is kept when j >= i + diagonal (triu) or
    j <= i + diagonal (tril): a comparison of the column positions with the row
    positions shifted by `diagonal`, two `hl.arange`s. A bool x gets false.

    Imported rather than decomposed: torch's decomposition builds the same mask from an
    `arange` of the row count, and tracing it records that tensor's metadata, which
    guards on its size (`is_contiguous`'s `numel() < 2`). Under `mark_dynamic`, rows
    such as `x[:, -2:4]`'s (min(4, L) - max(L - 2, 0), which Dynamo's own guards bound
    to L in [4, 6]) get a guard that pins L to one value, and Dynamo raises a
    ConstraintViolationError where eager and aot_eager run (torch-level fuzzer,
    program 110 of seed 7). Here the sizes are concrete in each specialisation."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        x = cx.value(node.args[0])
        rows, columns = cx.shape(node.args[0])[-2:]  # type: ignore[arg-type]
        given = node.args[1] if len(node.args) > 1 else node.kwargs.get("diagonal", 0)
        diagonal = cx.integer(given)
        shifted = _positions(cx, (rows, columns), 0, (diagonal, rows + diagonal, 1))
        column = _positions(cx, (rows, columns), 1, (0, columns, 1))
        keep = emit_compare(cx, "ge" if upper else "le", column, shifted, (rows, columns))
        element = x.type.get_element_type()  # type: ignore[attr-defined]
        zero = cx.constant(0.0 if cx.dtype(node).is_floating_point else 0, element)
        return cx.emit(hl.WhereOp(operands=[keep, x, zero], result_types=[cx.tensor_type(node)]))

    return convert


def convert_flip(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.flip(x, dims) and prims.rev(x, dims): one `hl.index` reading, along each
    flipped dimension of size n, the positions n-1 down to 0 (an `hl.arange` with step
    -1), and every other dimension in order."""
    x = cx.value(node.args[0])
    sizes = cx.shape(node.args[0])  # type: ignore[arg-type]
    if not sizes:
        return x  # a 0-d tensor has nothing to flip
    flipped = {int(d) % len(sizes) for d in node.args[1]}  # type: ignore[union-attr]
    indices = [
        _positions(cx, sizes, d, (size - 1, -1, -1) if d in flipped else (0, size, 1))
        for d, size in enumerate(sizes)
    ]
    return cx.emit(hl.IndexOp(x, indices))


def convert_gather(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.gather(x, dim, index): one `hl.index` over every dimension of x, reading
    `index` along `dim` and the same position along every other dimension, which is
    gather's definition: out[i][j][k] = x[i][index[i][j][k]][k]."""
    x, dim, index = cx.value(node.args[0]), node.args[1], node.args[2]
    sizes = cx.shape(index)  # type: ignore[arg-type]
    axis = int(dim) % len(sizes)  # type: ignore[arg-type]
    return cx.emit(hl.IndexOp(x, _along(cx, sizes, axis, cx.value(index))))


EXTREMES: dict[object, type[hl.ArgReductionOp]] = {
    torch.ops.aten.max.dim: hl.ArgmaxOp,
    torch.ops.aten.min.dim: hl.ArgminOp,
}
"""max.dim / min.dim -> the op of their indices (their values are read there)."""


def convert_extreme(cx: ImportContext, node: fx.Node) -> SSAValue:
    """max.dim / min.dim (x, dim, keepdim): their indices, the i64 position of the first
    extreme along `dim` (argmax / argmin, a NaN the extreme, as in ATen); `extreme_piece`
    makes the values or the indices each `operator.getitem` reads from them."""
    dim = int(node.args[1])  # type: ignore[arg-type]
    keepdim = bool(node.args[2]) if len(node.args) > 2 else False
    return cx.emit(EXTREMES[node.target](cx.value(node.args[0]), [dim], keepdim))


def extreme_piece(cx: ImportContext, source: fx.Node, index: int) -> SSAValue:
    """Output `index` of max.dim / min.dim: 1 the indices, 0 the values, which are the
    elements at the indices (a gather along `dim`), as ATen's kernel takes them. Not
    amax / amin: on a tie of -0.0 and +0.0 the value is the first of them, whose sign
    amax need not keep, and on a row of NaNs it is the first NaN."""
    indices = cx.value(source)
    if index == 1:
        return indices
    x = cx.value(source.args[0])
    sizes = list(cx.shape(source.args[0]))  # type: ignore[arg-type]
    if not sizes:  # a 0-d input is its own maximum (at position 0)
        return x
    axis = int(source.args[1]) % len(sizes)  # type: ignore[arg-type]
    sizes[axis] = 1
    kept = cx.reshape(indices, TensorType(i64, sizes))
    values = cx.emit(hl.IndexOp(x, _along(cx, sizes, axis, kept)))
    element = x.type.get_element_type()  # type: ignore[attr-defined]
    return cx.reshape(values, TensorType(element, list(cx.shape(source))))


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


def _index_block(node: fx.Node) -> tuple[int, list[object]]:
    """The first indexed dimension of an index_put and its index arguments, trailing
    `None`s (whole dimensions after the indexed ones) dropped."""
    given = list(node.args[1])  # type: ignore[arg-type]
    while given and given[-1] is None:
        given.pop()
    dim = next((d for d, index in enumerate(given) if index is not None), len(given))
    return dim, given[dim:]


def convert_index_put(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.index_put(x, [None, ..., index], values) with one 1-D i64 index after whole
    dimensions (see `index_put_check`): `x[:, :, index] = values`, as a sliding-window
    cache writes its newest position (`index = tensor([-1])`). That is an
    `hl.index_copy` along the indexed dimension, with negative positions counted from
    the end first, as torch's indexing counts them (index_copy takes none), and the
    values broadcast to the slices they fill. Several index tensors, or one of another
    rank, are `_convert_indices_put`."""
    x, _, values = node.args[:3]
    if _mask_of(node) is not None:
        return _convert_masked_put(cx, node)
    dim, block = _index_block(node)
    if len(block) != 1 or len(cx.shape(block[0])) != 1 or cx.dtype(block[0]) != torch.int64:  # type: ignore[arg-type]
        return _convert_indices_put(cx, node)
    index = cx.value(block[0])
    size = cx.shape(x)[dim]  # type: ignore[arg-type]
    index_type = index.type
    assert isinstance(index_type, TensorType)
    negative = emit_compare(cx, "lt", index, cx.constant(0, i64), index_type.get_shape())
    from_end = cx.emit(hl.AddOp(index, cx.constant(size, i64)))
    wrapped = cx.emit(hl.WhereOp(operands=[negative, from_end, index], result_types=[index_type]))
    slices = [*cx.shape(x)[:dim], index_type.get_shape()[0], *cx.shape(x)[dim + 1 :]]  # type: ignore[arg-type]
    source = _broadcast_to(cx, cx.value(values), slices)
    return cx.emit(hl.IndexCopyOp(cx.value(x), dim, wrapped, source))


def _broadcast_to(cx: ImportContext, value: SSAValue, shape: Sequence[int]) -> SSAValue:
    """`value` broadcast to `shape` as torch broadcasts (leading 1s, then expanded)."""
    value_type = value.type
    assert isinstance(value_type, TensorType)
    if list(value_type.get_shape()) == list(shape):
        return value
    element = value_type.element_type
    ranked = [1] * (len(shape) - value_type.get_num_dims()) + list(value_type.get_shape())
    value = cx.reshape(value, TensorType(element, ranked))
    return cx.emit(hl.ExpandOp(operands=[value], result_types=[TensorType(element, list(shape))]))


def _broadcast_sizes(shapes: Sequence[Sequence[object]]) -> list[object]:
    """The broadcast shape of sizes that tracing found to broadcast (ints or SymInts):
    along each axis a size other than 1, else 1, compared without guarding."""
    rank = max((len(shape) for shape in shapes), default=0)
    ranked = [[1] * (rank - len(shape)) + list(shape) for shape in shapes]
    return [
        next((size for size in column if expression(size) != 1), 1)
        for column in zip(*ranked, strict=True)
    ]


def _convert_indices_put(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.index_put(x, [None, ..., i0, i1, ...], values) with integer index tensors for
    k adjacent dimensions d..d+k-1 (see `index_put_check`): `x[i0, i1] = values`, as
    wav2vec 2.0 marks each row's last frame (`mask[(arange(b), lengths - 1)] = 1`).

    The indexed dimensions are one of `x.reshape(..., n_d * ... * n_{d+k-1}, ...)`, and
    the write an `hl.index_copy` along it at the row-major position of each broadcast
    index tuple, negative indices counted from the end as torch counts them. A tuple
    with a component still out of its dimension's range is given position
    n_d * ... * n_{d+k-1}, out of range, so that index_copy refuses it as torch's
    indexing does, rather than writing the element the flat position names. The
    values broadcast to [x's sizes before d, the indices' broadcast shape, x's sizes
    after the block], torch's shape of the indexed slots, then take the flat shape.
    Duplicate tuples leave one of their values, as torch leaves one (which one is
    unspecified in both without `accumulate`)."""
    x, _, values = node.args[:3]
    dim, block = _index_block(node)
    shape = list(cx.shape(x))  # type: ignore[arg-type]
    sizes = shape[dim : dim + len(block)]
    common = [int(size) for size in _broadcast_sizes([cx.shape(index) for index in block])]  # type: ignore[arg-type, call-overload]
    index_type = TensorType(i64, common)
    zero = cx.constant(0, i64)
    flat: SSAValue | None = None
    in_range: list[tuple[SSAValue, int]] = []
    for index, size in zip(block, sizes, strict=True):
        value = _broadcast_to(cx, cx.cast(cx.value(index), i64), common)
        negative = emit_compare(cx, "lt", value, zero, common)
        from_end = cx.emit(hl.AddOp(value, cx.constant(size, i64)))
        value = cx.emit(hl.WhereOp(operands=[negative, from_end, value], result_types=[index_type]))
        in_range.append((value, size))
        if flat is not None:
            flat = cx.emit(hl.MulOp(flat, cx.constant(size, i64)))
            flat = cx.emit(hl.AddOp(flat, value))
        else:
            flat = value
    assert flat is not None
    total = math.prod(sizes)
    if len(block) > 1:
        outside = cx.constant(total, i64)
        for value, size in in_range:
            for predicate, bound in (("lt", 0), ("ge", size)):
                out = emit_compare(cx, predicate, value, cx.constant(bound, i64), common)
                flat = cx.emit(hl.WhereOp(operands=[out, outside, flat], result_types=[index_type]))
    count = math.prod(common)
    flat = cx.reshape(flat, TensorType(i64, [count]))
    before, after = shape[:dim], shape[dim + len(block) :]
    source = _broadcast_to(cx, cx.value(values), [*before, *common, *after])
    source_type = source.type
    assert isinstance(source_type, TensorType)
    source = cx.reshape(source, TensorType(source_type.element_type, [*before, count, *after]))
    base = cx.value(x)
    base_type = base.type
    assert isinstance(base_type, TensorType)
    base = cx.reshape(base, TensorType(base_type.element_type, [*before, total, *after]))
    written = cx.emit(hl.IndexCopyOp(base, dim, flat, source))
    return cx.reshape(written, base_type)


def _accumulates(node: fx.Node) -> bool:
    return bool(node.args[3] if len(node.args) > 3 else node.kwargs.get("accumulate", False))


def _mask_of(node: fx.Node) -> fx.Node | None:
    """The one index of an index_put when it is a boolean mask over x's leading
    dimensions (`x[mask] = v`, `x[mask] += v`); else None."""
    given = node.args[1]
    if not isinstance(given, list | tuple) or len(given) != 1:
        return None
    mask = given[0]
    value = mask.meta.get("val") if isinstance(mask, fx.Node) else None
    if not isinstance(value, torch.Tensor) or value.dtype != torch.bool:
        return None
    return mask


def _convert_masked_put(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.index_put(x, [mask], values, accumulate) with a boolean mask of x's leading
    dimensions and values that broadcast to one selected slice (see `_masked_put_check`):
    every selected element takes the same value, so it is `where(mask, values, x)`
    (with `accumulate`, `where(mask, x + values, x)`: each element is selected once),
    the mask and the values shaped to broadcast along x's dimensions."""
    x, _, values = node.args[:3]
    mask = _mask_of(node)
    assert mask is not None
    shape = cx.shape(x)  # type: ignore[arg-type]
    leading = len(cx.shape(mask))
    rest = list(shape[leading:])
    condition = cx.reshape(cx.value(mask), TensorType(i1, [*shape[:leading], *[1] * len(rest)]))
    source = cx.value(values)
    source_type = source.type
    assert isinstance(source_type, TensorType)
    given_shape = list(source_type.get_shape())
    trailing = given_shape[max(0, len(given_shape) - len(rest)) :]
    ranked = [1] * (len(shape) - len(trailing)) + trailing
    source = cx.reshape(source, TensorType(source_type.element_type, ranked))
    base = cx.value(x)
    if _accumulates(node):
        source = cx.emit(hl.AddOp(base, source))
    result_type = base.type
    return cx.emit(hl.WhereOp(operands=[condition, source, base], result_types=[result_type]))


def _masked_put_check(node: fx.Node) -> str | None:
    """A boolean mask of x's leading dimensions (torch requires its shape to be theirs)
    and values of x's dtype that broadcast to one selected slice (x's remaining
    dimensions, with at most a leading 1): values with a row per selected element depend
    on how many the mask selects and stay in eager, as does a bool x with `accumulate`."""
    x, given, values = node.args[:3]
    x_val, mask_val, values_val = (
        a.meta.get("val") if isinstance(a, fx.Node) else None
        for a in (x, given[0], values)  # type: ignore[index]
    )
    if not isinstance(x_val, torch.Tensor) or not isinstance(values_val, torch.Tensor):
        return "not a tensor index_put"
    assert isinstance(mask_val, torch.Tensor)
    leading = mask_val.dim()
    if leading > x_val.dim():
        return "a boolean mask that is not of x's leading dimensions"
    for m, s in zip(mask_val.shape, x_val.shape[:leading], strict=True):
        if expression(m) == expression(s):
            continue
        if _hint(m) is not None and _hint(m) == _hint(s):
            # no guard ties them: another call may have other sizes, where eager raises
            return f"a boolean mask of size {m} where x's is {s}, equal only at the traced call"
        return "a boolean mask that is not of x's leading dimensions"
    rest = list(x_val.shape[leading:])
    extra = values_val.dim() - len(rest)
    trailing = list(values_val.shape[max(extra, 0) :])
    broadcasts = (extra <= 0 or (extra == 1 and expression(values_val.shape[0]) == 1)) and all(
        expression(size) == 1 or expression(size) == expression(target)
        for size, target in zip(trailing, rest[len(rest) - len(trailing) :], strict=True)
    )
    if values_val.dtype != x_val.dtype or not broadcasts:
        return "a boolean mask with values of another dtype, or one per selected element"
    if _accumulates(node) and x_val.dtype == torch.bool:
        return "accumulate=True into a bool tensor"
    return None


def _hint(size: object) -> int | None:
    """The value a size has at the traced call, where known."""
    if isinstance(size, torch.SymInt):
        return size.node.hint if size.node.has_hint() else None
    return size if isinstance(size, int) else None


def index_put_check(node: fx.Node) -> str | None:
    """Integer index tensors (int64 or int32) for adjacent dimensions after only `None`s,
    no accumulation, and values of the input's dtype that broadcast to the indexed
    slots; or a boolean mask of x's leading dimensions (`_masked_put_check`). Anything
    else stays in eager: `accumulate` sums the values of duplicate index tuples, which
    `hl.index_copy` (one value per slot) cannot; an index tensor after a `None` among
    them moves the indexed dimensions first in torch's slot shape."""
    if _mask_of(node) is not None:
        return _masked_put_check(node)
    x, _, values = node.args[:3]
    if _accumulates(node):
        return "accumulate=True (a scatter-add: duplicate indices sum)"
    dim, block = _index_block(node)
    if not block or any(index is None for index in block):
        return "no index tensor, or a None between index tensors"
    x_val, values_val = (a.meta.get("val") if isinstance(a, fx.Node) else None for a in (x, values))
    index_vals = [index.meta.get("val") if isinstance(index, fx.Node) else None for index in block]
    if not isinstance(x_val, torch.Tensor) or not isinstance(values_val, torch.Tensor):
        return "not a tensor index_put"
    for index_val in index_vals:
        if not isinstance(index_val, torch.Tensor) or index_val.dtype not in _INDEX_DTYPES:
            dtype = getattr(index_val, "dtype", None)
            return f"an index of dtype {dtype} among several (not int64 or int32)"
    common = _broadcast_sizes([list(index.shape) for index in index_vals])  # type: ignore[union-attr]
    slots = [*x_val.shape[:dim], *common, *x_val.shape[dim + len(block) :]]
    trailing = slots[len(slots) - values_val.dim() :] if values_val.dim() else []
    broadcasts = values_val.dim() <= len(slots) and all(
        expression(size) == 1 or expression(size) == expression(target)
        for size, target in zip(values_val.shape, trailing, strict=True)
    )
    if values_val.dtype != x_val.dtype or not broadcasts:
        return "values of another dtype, or not broadcasting to the indexed slices"
    return None


def convert_pad(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.constant_pad_nd(x, pad, value=0)."""
    value = node.args[2] if len(node.args) > 2 else node.kwargs.get("value", 0)
    return cx.emit(hl.PadOp(cx.value(node.args[0]), cx.integers(node.args[1]), float(value)))


def convert_as_strided(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.as_strided(x, size, stride, storage_offset=0) of a contiguous x (see
    `as_strided_check`): element (i0, i1, ...) of the result is element offset + sum of
    i_d * stride_d of x in its row-major order. When that is x's own order (the
    strides are `size`'s contiguous ones, as torch's decompositions use it to restride
    a result) it is a reshape; otherwise one `hl.index` into the flattened x."""
    x = cx.value(node.args[0])
    element = x.type.get_element_type()  # type: ignore[union-attr]
    size, stride = cx.integers(node.args[1]), cx.integers(node.args[2])  # type: ignore[arg-type]
    offset = cx.integer(node.args[3]) if len(node.args) > 3 and node.args[3] is not None else 0
    count = math.prod(cx.shape(node.args[0]))  # type: ignore[arg-type]
    if offset == 0 and math.prod(size) == count and _is_row_major(size, stride):
        return cx.reshape(x, TensorType(element, size))
    flat = cx.reshape(x, TensorType(element, [count]))
    index = cx.constant(offset, i64, [1] * len(size))
    for d, (length, step) in enumerate(zip(size, stride, strict=True)):
        if length == 1:
            continue
        positions = _positions(cx, size, d, (0, length, 1))
        if step != 1:
            positions = cx.emit(hl.MulOp(positions, cx.constant(step, i64)))
        index = cx.emit(hl.AddOp(index, positions))
    return cx.emit(hl.IndexOp(flat, [index]))


def _is_row_major(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether `stride` is `size`'s row-major layout (dimensions of one ignored)."""
    expected = 1
    for length, step in reversed(list(zip(size, stride, strict=True))):
        if length != 1 and step != expected:
            return False
        expected *= length
    return True


def as_strided_check(node: fx.Node) -> str | None:
    """as_strided addresses x's storage, which is x's row-major order only when x is
    contiguous from the storage's start; every address must fall inside x."""
    x = node.args[0].meta.get("val")  # type: ignore[union-attr]
    if not isinstance(x, torch.Tensor) or not x.is_contiguous() or x.storage_offset() != 0:
        return "an as_strided of a view (it addresses the view's base)"
    size, stride = node.args[1], node.args[2]
    offset = node.args[3] if len(node.args) > 3 and node.args[3] is not None else 0
    values = [*size, *stride, offset]  # type: ignore[misc]
    if not all(isinstance(v, int) for v in values):
        if _restrides(x, node.meta.get("val")):
            return None  # a reshape in every specialisation
        return "an as_strided with symbolic sizes that is not a reshape"
    last = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True))  # type: ignore[misc]
    if any(s < 0 for s in stride) or (0 not in size and last >= x.numel()):  # type: ignore[union-attr]
        return "an as_strided that reads outside its input"
    return None


def _restrides(x: torch.Tensor, result: object) -> bool:
    """Whether an as_strided of contiguous `x` to `result` (symbolic sizes) provably reads
    x in its own order: no offset, as many elements, and `result`'s strides row-major
    for its sizes. Decided without adding guards (`statically_known_true`)."""
    if not isinstance(result, torch.Tensor):
        return False
    known = statically_known_true
    if not known(result.storage_offset() == 0) or not known(result.numel() == x.numel()):
        return False
    expected: object = 1
    for length, step in reversed(list(zip(result.shape, result.stride(), strict=True))):
        if known(length == 1):
            continue
        if not known(step == expected):
            return False
        expected = expected * length
    return True
