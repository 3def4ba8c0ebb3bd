"""The result type of every `hl` op: one function per op family.

MLIR's `InferTypeOpInterface` idea: an op's result type has one definition, and the
builder (`__init__`), the verifier and the torch importer all call it. Each function
takes the operand types (and the op's parameters as plain Python values) and returns the
result `TensorType`, or raises `TypeInferenceError` saying what is wrong; the verifier
puts the op's name in front (`'hl.add' operand shapes [4, 8] and [4, 3] do not
broadcast`).

Element types that operands must share are not checked here: they are IRDL constraints
of the ops (`lumir.dialects.hl.constraints`), verified before inference runs, so these
functions take the element type from the first such operand. An importer that calls
them on operands of differing element types gets a result type and then a verifier
error naming the operand; it should insert the `hl.cast` ATen's promotion implies.

Shapes are static (the frontend specialises dynamic dimensions before import): every
function refuses a `?` dimension with `DynamicShapeError`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import AnyFloat, IntegerType, TensorType, i1, i64
from xdsl.ir import Attribute

Shape = tuple[int, ...]


class TypeInferenceError(ValueError):
    """The operand types or parameters admit no result type; the message says why."""


class DynamicShapeError(TypeInferenceError):
    """A tensor type with a `?` dimension reached an op that needs static shapes."""


def static_shape(tensor: Attribute) -> Shape:
    """The static shape of a tensor type.

    A `?` dimension is reported here rather than compared as the number -1.
    """
    if not isinstance(tensor, TensorType):
        raise TypeInferenceError(f"expected a tensor type, got {tensor}")
    shape = tuple(tensor.get_shape())
    if any(dim < 0 for dim in shape):
        raise DynamicShapeError(
            f"hl ops need static shapes, got {tensor}: the frontend specialises dynamic "
            "dimensions before import"
        )
    return shape


def _element(tensor: TensorType) -> Attribute:
    return tensor.element_type


def normalize_dim(dim: int, rank: int) -> int:
    """ATen's dimension wrapping: `dim` in [-rank, rank) counted from the end if negative.

    A 0-d tensor accepts 0 and -1, as ATen does.
    """
    extent = max(rank, 1)
    if not -extent <= dim < extent:
        raise TypeInferenceError(f"dimension {dim} is out of range for rank {rank}")
    return dim % extent


def require_floating_point(input: TensorType) -> None:
    """ATen computes some ops (mean, softmax) only on floating-point tensors."""
    if not isinstance(_element(input), AnyFloat):
        raise TypeInferenceError(f"needs a floating-point input, got {input}")


# --- broadcasting ----------------------------------------------------------------


def broadcast_shapes(*shapes: Sequence[int]) -> Shape | None:
    """NumPy/ATen broadcasting of static shapes, or None if they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for axis in range(rank):
        size = 1
        for shape in shapes:
            offset = axis - (rank - len(shape))
            if offset < 0:
                continue
            dim = shape[offset]
            if dim == 1:
                continue
            if size not in (1, dim):
                return None
            size = dim
        out.append(size)
    return tuple(out)


def _listed(items: Sequence[object]) -> str:
    """`a and b`, `a, b and c`: how the messages list shapes."""
    texts = [str(item) for item in items]
    return texts[0] if len(texts) == 1 else f"{', '.join(texts[:-1])} and {texts[-1]}"


def _broadcast_operands(*operands: TensorType) -> Shape:
    shapes = [static_shape(t) for t in operands]
    shape = broadcast_shapes(*shapes)
    if shape is None:
        listed = _listed([list(s) for s in shapes])
        raise TypeInferenceError(f"operand shapes {listed} do not broadcast")
    return shape


def elementwise_type(*operands: TensorType) -> TensorType:
    """Elementwise ops (unary and binary): the broadcast shape, the operands' element type."""
    return TensorType(_element(operands[0]), _broadcast_operands(*operands))


def cast_type(input: TensorType, element_type: Attribute) -> TensorType:
    """`hl.cast`: the input's shape in the target element type."""
    return TensorType(element_type, static_shape(input))


def compare_type(lhs: TensorType, rhs: TensorType) -> TensorType:
    """`hl.compare`: the broadcast shape, in i1."""
    return TensorType(i1, _broadcast_operands(lhs, rhs))


def where_type(condition: TensorType, lhs: TensorType, rhs: TensorType) -> TensorType:
    """`hl.where`: the broadcast shape of all three, in the branches' element type."""
    if _element(condition) != i1:
        raise TypeInferenceError(f"condition must be i1, got {_element(condition)}")
    return TensorType(_element(lhs), _broadcast_operands(condition, lhs, rhs))


# --- reductions --------------------------------------------------------------------


def reduction_type(input: TensorType, dims: Sequence[int], keepdim: bool) -> TensorType:
    """sum/mean/amax over `dims`, keeping them as size 1 if `keepdim`.

    As in ATen, an empty `dims` reduces over every dimension, and a dimension may not be
    named twice (`[1, -1]` on a 2-D input is refused).
    """
    shape = static_shape(input)
    named = [normalize_dim(d, len(shape)) for d in dims]
    if len(set(named)) != len(named):
        raise TypeInferenceError(f"dims {list(dims)} name a dimension more than once")
    reduced = set(named) if named else set(range(len(shape)))
    if keepdim:
        out = [1 if i in reduced else s for i, s in enumerate(shape)]
    else:
        out = [s for i, s in enumerate(shape) if i not in reduced]
    return TensorType(_element(input), out)


def arg_reduction_type(input: TensorType, dims: Sequence[int], keepdim: bool) -> TensorType:
    """`hl.argmax` / `hl.argmin`: an i64 index along the one dimension in `dims`, or
    into the flattened input when `dims` is empty (every dimension kept as 1 with
    `keepdim`), as aten.argmax with `dim=None`."""
    if len(dims) > 1:
        raise TypeInferenceError(f"reduces along at most one dimension, got dims {list(dims)}")
    return TensorType(i64, reduction_type(input, dims, keepdim).get_shape())


def softmax_type(input: TensorType, dim: int) -> TensorType:
    """`hl.softmax` along `dim`: the input's type (floating point only, as in ATen)."""
    require_floating_point(input)
    normalize_dim(dim, len(static_shape(input)))
    return input


# --- matrix products ---------------------------------------------------------------


def matmul_shape(lhs: Sequence[int], rhs: Sequence[int]) -> Shape | None:
    """The result shape of aten.matmul for ranks >= 2, or None if they do not agree."""
    if len(lhs) < 2 or len(rhs) < 2 or lhs[-1] != rhs[-2]:
        return None
    batch = broadcast_shapes(lhs[:-2], rhs[:-2])
    if batch is None:
        return None
    return (*batch, lhs[-2], rhs[-1])


def matmul_type(lhs: TensorType, rhs: TensorType) -> TensorType:
    """`hl.matmul`: [..., M, K] @ [..., K, N] -> [broadcast(...), M, N]."""
    lhs_shape, rhs_shape = static_shape(lhs), static_shape(rhs)
    shape = matmul_shape(lhs_shape, rhs_shape)
    if shape is None:
        raise TypeInferenceError(
            f"cannot multiply {list(lhs_shape)} by {list(rhs_shape)}: "
            "expected [..., M, K] @ [..., K, N]"
        )
    return TensorType(_element(lhs), shape)


def linear_type(input: TensorType, weight: TensorType, bias: TensorType | None) -> TensorType:
    """`hl.linear`: input [..., K] and weight [N, K] (bias [N]) -> [..., N]."""
    x, w = static_shape(input), static_shape(weight)
    if len(w) != 2 or not x or x[-1] != w[1]:
        raise TypeInferenceError(
            f"expects input [..., K] and weight [N, K], got {list(x)} and {list(w)}"
        )
    if bias is not None and static_shape(bias) != (w[0],):
        raise TypeInferenceError(f"bias must be [{w[0]}], got {list(static_shape(bias))}")
    return TensorType(_element(input), (*x[:-1], w[0]))


def addmm_type(bias: TensorType, lhs: TensorType, rhs: TensorType) -> TensorType:
    """`hl.addmm`: bias + [M, K] @ [K, N], the bias broadcasting to [M, N]."""
    m_k, k_n = static_shape(lhs), static_shape(rhs)
    if len(m_k) != 2 or len(k_n) != 2 or m_k[1] != k_n[0]:
        raise TypeInferenceError(f"expects [M, K] @ [K, N], got {list(m_k)} and {list(k_n)}")
    shape = (m_k[0], k_n[1])
    bias_shape = static_shape(bias)
    if broadcast_shapes(bias_shape, shape) != shape:
        raise TypeInferenceError(f"bias {list(bias_shape)} does not broadcast to {list(shape)}")
    return TensorType(_element(lhs), shape)


def sdpa_type(
    query: TensorType,
    key: TensorType,
    value: TensorType,
    mask: TensorType | None = None,
    is_causal: bool = False,
    enable_gqa: bool = False,
) -> TensorType:
    """`hl.sdpa`: [..., L, E] query, [..., S, E] key, [..., S, Ev] value -> [*batch, L, Ev].

    The batch dimensions broadcast; a mask is i1 or the query's element type, broadcasts
    to the scores [*batch, L, S], and excludes `is_causal`. With `enable_gqa` (grouped-query
    attention, torch's `enable_gqa=True`) dimension -3 is the heads: query [..., Hq, L, E]
    over key and value [..., Hkv, S, E] with Hq a multiple of Hkv, query head h reading
    key/value head h // (Hq / Hkv); the other batch dimensions broadcast.
    """
    q, k, v = static_shape(query), static_shape(key), static_shape(value)
    if len(q) < 2 or len(k) != len(q) or len(v) != len(q):
        raise TypeInferenceError("expects query, key and value of one rank >= 2")
    batch = _gqa_batch(q, k, v) if enable_gqa else broadcast_shapes(q[:-2], k[:-2], v[:-2])
    if q[-1] != k[-1] or k[-2] != v[-2] or batch is None:
        raise TypeInferenceError(
            f"shapes disagree: query {list(q)}, key {list(k)}, value {list(v)}"
        )
    if mask is not None:
        _check_mask(mask, _element(query), (*batch, q[-2], k[-2]), is_causal)
    return TensorType(_element(query), (*batch, q[-2], v[-1]))


def _gqa_batch(q: Shape, k: Shape, v: Shape) -> Shape | None:
    """The result's batch dimensions of grouped-query attention: the broadcast of the
    dimensions before the heads, then the query's heads (None when they do not broadcast)."""
    if len(q) < 3:
        raise TypeInferenceError("enable_gqa needs a heads dimension: rank >= 3")
    heads, kv_heads = q[-3], k[-3]
    if v[-3] != kv_heads or kv_heads == 0 or heads % kv_heads:
        raise TypeInferenceError(
            f"enable_gqa groups the query's {heads} heads over key and value heads "
            f"{kv_heads} and {v[-3]}: they must be equal and divide {heads}"
        )
    leading = broadcast_shapes(q[:-3], k[:-3], v[:-3])
    return None if leading is None else (*leading, heads)


def _check_mask(mask: TensorType, element: Attribute, scores: Shape, is_causal: bool) -> None:
    if is_causal:
        raise TypeInferenceError("takes a mask or is_causal, not both")
    if _element(mask) not in (i1, element):
        raise TypeInferenceError(f"mask must be i1 or the query's {element}, got {_element(mask)}")
    mask_shape = static_shape(mask)
    if broadcast_shapes(mask_shape, scores) != scores:
        raise TypeInferenceError(
            f"mask {list(mask_shape)} does not broadcast to the attention scores {list(scores)}"
        )


# --- views and data movement ---------------------------------------------------------


def transpose_type(input: TensorType, permutation: Sequence[int]) -> TensorType:
    """`hl.transpose`: result dim i is input dim permutation[i]."""
    shape = static_shape(input)
    if sorted(permutation) != list(range(len(shape))):
        raise TypeInferenceError(
            f"permutation {list(permutation)} is not a permutation of {len(shape)} dimensions"
        )
    return TensorType(_element(input), [shape[p] for p in permutation])


def reshape_type(input: TensorType, shape: Sequence[int]) -> TensorType:
    """`hl.reshape` to `shape`: the same elements, so the same element count and type."""
    source = static_shape(input)
    if math.prod(source) != math.prod(shape):
        raise TypeInferenceError(
            f"cannot reshape {list(source)} to {list(shape)}: element counts differ"
        )
    return TensorType(_element(input), shape)


def expand_type(input: TensorType, shape: Sequence[int]) -> TensorType:
    """`hl.expand` to `shape`: size-1 (or missing leading) dims broadcast to it."""
    source, target = static_shape(input), tuple(shape)
    if broadcast_shapes(source, target) != target:
        raise TypeInferenceError(f"cannot expand {list(source)} to {list(target)}")
    return TensorType(_element(input), target)


def slice_type(input: TensorType, dim: int, start: int, end: int, step: int) -> TensorType:
    """`hl.slice`: input[..., start:end:step, ...] along `dim`, with Python's clamping."""
    shape = list(static_shape(input))
    axis = normalize_dim(dim, len(shape))
    if step <= 0:
        raise TypeInferenceError(f"step must be positive, got {step}")
    shape[axis] = len(range(*slice(start, end, step).indices(shape[axis])))
    return TensorType(_element(input), shape)


def cat_type(inputs: Sequence[TensorType], dim: int) -> TensorType:
    """`hl.cat` along `dim`: inputs of one rank >= 1, equal outside `dim`."""
    if not inputs:
        raise TypeInferenceError("needs at least one input")
    shapes = [static_shape(t) for t in inputs]
    first = shapes[0]
    if not first:
        raise TypeInferenceError("cannot concatenate 0-d tensors")
    axis = normalize_dim(dim, len(first))

    def outside(shape: Shape) -> list[int]:
        return [s for i, s in enumerate(shape) if i != axis]

    if any(len(s) != len(first) or outside(s) != outside(first) for s in shapes):
        raise TypeInferenceError(
            f"input shapes {[list(s) for s in shapes]} differ outside dim {axis}"
        )
    out = list(first)
    out[axis] = sum(s[axis] for s in shapes)
    return TensorType(_element(inputs[0]), out)


def embedding_type(weight: TensorType, indices: TensorType) -> TensorType:
    """`hl.embedding`: rows of a [V, E] weight gathered by i32/i64 indices -> [*indices, E]."""
    index = _element(indices)
    integer = isinstance(index, IntegerType) and index.width.data in (32, 64)
    weight_shape, index_shape = static_shape(weight), static_shape(indices)
    if len(weight_shape) != 2 or not integer:
        raise TypeInferenceError(
            f"expects a 2-D weight and i32 or i64 indices, got {weight} and {indices}"
        )
    return TensorType(_element(weight), (*index_shape, weight_shape[1]))


# --- integer, generator and gather ops ----------------------------------------------


def bitwise_type(lhs: TensorType, rhs: TensorType) -> TensorType:
    """`hl.bitwise_and`: as `elementwise_type`, on integer or i1 tensors only."""
    if not isinstance(_element(lhs), IntegerType):
        raise TypeInferenceError(f"needs integer or i1 operands, got {lhs}")
    return elementwise_type(lhs, rhs)


def integer_division_type(lhs: TensorType, rhs: TensorType) -> TensorType:
    """`hl.floor_divide` / `hl.remainder`: as `elementwise_type`, on integer or
    floating-point tensors (not i1: a boolean has no division)."""
    element = _element(lhs)
    integer = isinstance(element, IntegerType) and element.width.data != 1
    if not integer and not isinstance(element, AnyFloat):
        raise TypeInferenceError(f"needs integer or floating-point operands, got {lhs}")
    return elementwise_type(lhs, rhs)


def fmod_type(lhs: TensorType, rhs: TensorType) -> TensorType:
    """`hl.fmod`: as `elementwise_type`, on floating-point tensors only (an integer
    fmod by zero raises in torch's kernel; the importer writes integer ones exactly
    with a truncating division instead)."""
    require_floating_point(lhs)
    return elementwise_type(lhs, rhs)


def arange_type(start: int, end: int, step: int, element: Attribute) -> TensorType:
    """`hl.arange`: the 1-D [start, end) by `step`, ceil((end - start) / step) long."""
    if step == 0:
        raise TypeInferenceError("step must be nonzero")
    length = max(0, -((start - end) // step))
    return TensorType(element, (length,))


def cumsum_type(input: TensorType, dim: int) -> TensorType:
    """`hl.cumsum` / `hl.cumprod` along `dim`: the input's type."""
    normalize_dim(dim, len(static_shape(input)))
    return input


def index_type(input: TensorType, indices: Sequence[TensorType]) -> TensorType:
    """`hl.index`: aten.index.Tensor with one i32/i64 index tensor for each of the
    leading dimensions. The indices broadcast to B; the result is B followed by the
    input's remaining dimensions."""
    shape = static_shape(input)
    if not indices or len(indices) > len(shape):
        raise TypeInferenceError(
            f"takes 1 to {len(shape)} index tensors for {input}, got {len(indices)}"
        )
    for index in indices:
        element = _element(index)
        if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
            raise TypeInferenceError(f"index tensors must be i32 or i64, got {index}")
    broadcast = _broadcast_operands(*indices)
    return TensorType(_element(input), (*broadcast, *shape[len(indices) :]))


def index_copy_type(
    input: TensorType, dim: int, index: TensorType, source: TensorType
) -> TensorType:
    """`hl.index_copy` (aten.index_copy): the input with the slices `index` along `dim`
    replaced by `source`'s. The index is a 1-D i64 tensor; the source has the input's
    element type and shape, except `len(index)` along `dim`. The result is the input's
    type."""
    shape = static_shape(input)
    axis = normalize_dim(dim, len(shape))
    element = _element(index)
    if len(static_shape(index)) != 1 or not (
        isinstance(element, IntegerType) and element.width.data == 64
    ):
        raise TypeInferenceError(f"the index must be a 1-D i64 tensor, got {index}")
    expected = TensorType(
        _element(input),
        (*shape[:axis], static_shape(index)[0], *shape[axis + 1 :]),
    )
    if source != expected:
        raise TypeInferenceError(
            f"the source must be {expected} to fill {static_shape(index)[0]} slices of "
            f"{input} along dim {dim}, got {source}"
        )
    return input


def pad_type(input: TensorType, pad: Sequence[int]) -> TensorType:
    """`hl.pad` (aten.constant_pad_nd): `pad` is (before, after) pairs from the last
    dimension backwards; negative amounts crop."""
    shape = list(static_shape(input))
    if len(pad) % 2 or len(pad) // 2 > len(shape):
        raise TypeInferenceError(f"pad {list(pad)} does not fit rank {len(shape)}")
    for pair in range(len(pad) // 2):
        dim = len(shape) - 1 - pair
        shape[dim] += pad[2 * pair] + pad[2 * pair + 1]
        if shape[dim] < 0:
            raise TypeInferenceError(f"pad {list(pad)} leaves dimension {dim} negative")
    return TensorType(_element(input), shape)


__all__ = [
    "DynamicShapeError",
    "Shape",
    "TypeInferenceError",
    "addmm_type",
    "arange_type",
    "arg_reduction_type",
    "bitwise_type",
    "broadcast_shapes",
    "cast_type",
    "cat_type",
    "compare_type",
    "cumsum_type",
    "elementwise_type",
    "embedding_type",
    "expand_type",
    "index_copy_type",
    "index_type",
    "linear_type",
    "matmul_shape",
    "matmul_type",
    "normalize_dim",
    "pad_type",
    "reduction_type",
    "require_floating_point",
    "reshape_type",
    "sdpa_type",
    "slice_type",
    "softmax_type",
    "static_shape",
    "transpose_type",
    "where_type",
]
