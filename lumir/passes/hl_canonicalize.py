"""Fold transpose/reshape/cast chains and split linear/addmm into matmul + add.

The importer writes whatever ATen handed it: `aten.linear`, `aten.addmm`, `t(t(w))`,
`view(view(x))`, `x.to(f32).to(bf16)`, `2.0 * mm`. The fusion rules match one form of
each idiom, so this pass rewrites the others into it:

- `hl.linear(x, w, b)` -> `hl.add(hl.matmul(x, hl.transpose(w)), b)`;
- `hl.addmm(b, x, y)` -> `hl.add(hl.matmul(x, y), b)`;
- an `hl.matmul` with an operand of size 0 in some dimension -> a constant of zeros;
- chains of transposes, of reshapes, and of exact casts become one op (or none);
- a constant operand of a commutative `hl.add` / `hl.mul` moves to the rhs, so the
  alpha rule sees `hl.mul %mm, %scale`;
- an `hl.sdpa` whose key and value are HF's `repeat_kv` of grouped key/value heads
  reads the un-repeated heads with `enable_gqa` (no copies of k and v).

Every rewrite is exact (bit-for-bit the same values), every created op carries the
location of the op it replaces, and dead pure ops are removed (the greedy driver's
dead-code elimination; function arguments, results and terminators are never touched).

Last, common subexpressions are eliminated (xDSL's CSE: every `hl` op is pure, so two
ops of the same name, properties, operands and result types compute the same value;
the first in program order stays). A transformers model repeats work per layer that
depends on nothing of the layer: a decode step over a static cache converts the same
boolean mask to an additive one in every layer and builds the same one-position index
range, one launch each per layer (30 launches of a 16-layer decode step) until merged.
Ops the importer tagged with the symbols their sizes come from (`SIZES_ATTRIBUTE`)
merge only with ops of the same tag: two values equal at this length only (`arange(s0)`
and `arange(s1)` when s0 == s1) stay apart, so the program is the same at every length
and a dynamic graph fuses once. The tags are dropped afterwards.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    ModuleOp,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import ConstantLike
from xdsl.transforms.common_subexpression_elimination import cse

from lumir.diagnostics import copy_location
from lumir.dialects import hl
from lumir.passes.constant_values import ConstantEvaluator

if TYPE_CHECKING:
    import torch


def _tensor_type(value: SSAValue) -> TensorType[Attribute]:
    assert isinstance(value.type, TensorType), "hl ops take tensors (IRDL checks this)"
    return value.type


def _permutation(op: hl.TransposeOp) -> tuple[int, ...]:
    return tuple(int(v) for v in op.permutation.get_values())


SIZES_ATTRIBUTE = "lumir.sizes"
"""The importer's tag on an op whose sizes come from symbols (lumir.frontend.size_tags):
which symbols, and a digest of the symbolic sizes the op is a function of. CSE compares
it with the rest of the op, so ops equal only at this length stay apart; the pass drops
it afterwards."""


def _replace(rewriter: PatternRewriter, op: Operation, new_ops: list[Operation]) -> None:
    """Replace `op` by `new_ops` (the last one gives the result), keeping `op`'s location
    and size tag."""
    copy_location(op, *new_ops)
    tag = op.attributes.get(SIZES_ATTRIBUTE)
    if tag is not None:
        for new in new_ops:
            new.attributes[SIZES_ATTRIBUTE] = tag
    rewriter.replace(op, new_ops)


# --- transposes -------------------------------------------------------------------------


class FoldIdentityTranspose(RewritePattern):
    """transpose(x, [0, 1, .., r-1]) -> x: the identity permutation moves nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.TransposeOp, rewriter: PatternRewriter) -> None:
        permutation = _permutation(op)
        if permutation == tuple(range(len(permutation))):
            rewriter.replace(op, [], [op.input])


class FoldTransposeChain(RewritePattern):
    """transpose(transpose(x, p), q) -> transpose(x, p∘q): one data movement, not two.

    Result dim i of the outer transpose is dim q[i] of the inner one, which is dim
    p[q[i]] of x. When that composition is the identity, the identity pattern then
    removes the new transpose as well.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.TransposeOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, hl.TransposeOp):
            return
        inner_perm, outer_perm = _permutation(inner), _permutation(op)
        composed = [inner_perm[dim] for dim in outer_perm]
        _replace(rewriter, op, [hl.TransposeOp(inner.input, composed)])


# --- reshapes ---------------------------------------------------------------------------


class FoldIdentityReshape(RewritePattern):
    """reshape(x) -> x when the result type is x's type: nothing changes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.ReshapeOp, rewriter: PatternRewriter) -> None:
        if op.result.type == op.input.type:
            rewriter.replace(op, [], [op.input])


class FoldReshapeChain(RewritePattern):
    """reshape(reshape(x)) -> reshape(x): a reshape of a dense tensor keeps element order,
    so only the final shape matters."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.ReshapeOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, hl.ReshapeOp):
            return
        folded = hl.ReshapeOp(operands=[inner.input], result_types=[op.result.type])
        _replace(rewriter, op, [folded])


# --- casts ------------------------------------------------------------------------------

_EXACT_WIDENINGS: tuple[tuple[type[Attribute], tuple[type[Attribute], ...]], ...] = (
    (Float8E4M3FNType, (Float16Type, BFloat16Type, Float32Type, Float64Type)),
    (Float8E5M2Type, (Float16Type, BFloat16Type, Float32Type, Float64Type)),
    (Float16Type, (Float32Type, Float64Type)),
    (BFloat16Type, (Float32Type, Float64Type)),
    (Float32Type, (Float64Type,)),
)
"""Source float type -> the wider float types that hold each of its values exactly.

A wider type qualifies when it has at least as many significand bits and an exponent
range that covers the source's normals and subnormals (f16's subnormals are normal
numbers in f32; f8 types fit inside f16 and bf16). f16 and bf16 hold neither one the
other: f16 has more significand bits, bf16 more exponent range.
"""


def is_exact_widening(source: Attribute, target: Attribute) -> bool:
    """True when converting `source` elements to `target` loses nothing (NaN payloads aside).

    Integer casts are never treated as exact here: signless integer types do not say
    whether the importer meant a signed or an unsigned value.
    """
    if source == target:
        return True
    for source_kind, wider in _EXACT_WIDENINGS:
        if isinstance(source, source_kind):
            return isinstance(target, wider)
    return False


class FoldIdentityCast(RewritePattern):
    """cast(x) -> x when the result type is x's type: a same-type conversion is a copy."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.CastOp, rewriter: PatternRewriter) -> None:
        if op.result.type == op.input.type:
            rewriter.replace(op, [], [op.input])


class FoldExactCastChain(RewritePattern):
    """cast(cast(x: S -> I) -> T) -> cast(x: S -> T), only when S -> I is exact.

    If every S value is exactly representable in I, the inner cast does not change the
    value, so rounding it to T gives what rounding x to T directly gives:
    bf16 -> f32 -> bf16 is x itself, f16 -> f32 -> f64 is f16 -> f64, and
    bf16 -> f32 -> f16 is bf16 -> f16. When S -> I rounds (f32 -> bf16 -> f32), the
    rounding is part of the program's meaning and the chain is kept; so is any chain
    whose first step is not a float widening (double rounding through a narrower type,
    integer casts).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.CastOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, hl.CastOp):
            return
        source = _tensor_type(inner.input).element_type
        middle = _tensor_type(inner.result).element_type
        if not is_exact_widening(source, middle):
            return
        target = _tensor_type(op.result).element_type
        _replace(rewriter, op, [hl.CastOp(inner.input, target)])


# --- linear and addmm -------------------------------------------------------------------


class SplitLinear(RewritePattern):
    """linear(x, w, b) -> add(matmul(x, transpose(w, [1, 0])), b).

    `aten.linear` is `x @ w^T + b`; written out this way, hl-to-cublaslt folds the
    transpose into `transa` and the bias rule sees `hl.add %mm, %bias`. A 1-D input
    [K] is a matrix [1, K] for the product and reshaped back to [N] afterwards, because
    `hl.matmul` takes operands of rank >= 2.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.LinearOp, rewriter: PatternRewriter) -> None:
        x_type = _tensor_type(op.input)
        element = x_type.element_type
        new_ops: list[Operation] = []
        x: SSAValue = op.input
        if x_type.get_num_dims() == 1:
            matrix = hl.ReshapeOp(
                operands=[x], result_types=[TensorType(element, [1, x_type.get_shape()[0]])]
            )
            new_ops.append(matrix)
            x = matrix.result
        weight_t = hl.TransposeOp(op.weight, [1, 0])
        product = hl.MatmulOp(x, weight_t.result)
        new_ops += [weight_t, product]
        result: SSAValue = product.result
        if x_type.get_num_dims() == 1:
            vector = hl.ReshapeOp(operands=[result], result_types=[op.result.type])
            new_ops.append(vector)
            result = vector.result
        if op.bias is not None:
            new_ops.append(hl.AddOp(result, op.bias))
        _replace(rewriter, op, new_ops)


class SplitAddmm(RewritePattern):
    """addmm(b, x, y) -> add(matmul(x, y), b): `aten.addmm` with beta = alpha = 1.

    The matmul is the lhs of the add, the order the residual and bias rules match.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.AddmmOp, rewriter: PatternRewriter) -> None:
        product = hl.MatmulOp(op.lhs, op.rhs)
        _replace(rewriter, op, [product, hl.AddOp(product.result, op.bias)])


class FoldEmptyProduct(RewritePattern):
    """matmul(x, y) -> a constant of zeros when an operand has a dimension of size 0.

    An empty contraction (K = 0) sums no products, so every element is +0 (as in
    torch); an empty M, N or batch leaves no element at all. Either way the result is
    known without running anything, and cuBLASLt takes no zero-sized problem, so the
    product never reaches hl-to-cublaslt: an empty batch or a layer that an empty
    routing left no rows becomes a constant the rest of the program reads.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.MatmulOp, rewriter: PatternRewriter) -> None:
        shapes = (_tensor_type(op.lhs).get_shape(), _tensor_type(op.rhs).get_shape())
        if not any(size == 0 for shape in shapes for size in shape):
            return
        result_type = _tensor_type(op.result)
        if any(size < 0 for size in result_type.get_shape()):
            return  # a dynamic result size: no literal can stand for it
        element = result_type.element_type
        zero = 0.0 if isinstance(element, AnyFloat) else 0
        _replace(rewriter, op, [hl.splat(zero, element, result_type.get_shape())])


# --- commutative operand order ----------------------------------------------------------


def _is_constant(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, Operation) and owner.has_trait(ConstantLike)


class ConstantToRhs(RewritePattern):
    """add(c, x) -> add(x, c) and mul(c, x) -> mul(x, c) for a constant c.

    IEEE addition and multiplication are commutative (broadcasting is symmetric too), so
    the swap is exact; it gives the alpha rule one form, `hl.mul %mm, %scale`, to match.
    When both operands are constants nothing moves, so the pattern cannot loop.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.AddOp | hl.MulOp, rewriter: PatternRewriter) -> None:
        if not _is_constant(op.lhs) or _is_constant(op.rhs):
            return
        swapped = type(op)(op.rhs, op.lhs, op.result.type)
        _replace(rewriter, op, [swapped])


# --- grouped-query attention -----------------------------------------------------------


def _repeat_kv_source(value: SSAValue) -> tuple[SSAValue, int] | None:
    """(x, G) when `value` is HF's `repeat_kv(x, G)` after torch decomposition, else None.

    The pattern is reshape(expand(u)) with u = [*lead, Hkv, 1, S, D] (x with a unit dim
    inserted after its heads), the expand growing only that unit dim to G and the reshape
    merging it into the heads: [*lead, Hkv * G, S, D], head h being x's head h // G.
    """
    merge = value.owner
    if not isinstance(merge, hl.ReshapeOp):
        return None
    expand = merge.input.owner
    if not isinstance(expand, hl.ExpandOp):
        return None
    split = _tensor_type(expand.input).get_shape()
    grown = _tensor_type(expand.result).get_shape()
    merged = _tensor_type(merge.result).get_shape()
    if len(split) < 4 or len(grown) != len(split) or split[-3] != 1:
        return None
    group = grown[-3]
    if grown[:-3] != split[:-3] or grown[-2:] != split[-2:]:
        return None
    if merged != (*split[:-4], split[-4] * group, *split[-2:]):
        return None
    return expand.input, group


def _drop_unit_group(split: SSAValue) -> hl.ReshapeOp:
    """`split` [*lead, Hkv, 1, S, D] reshaped to [*lead, Hkv, S, D]."""
    split_type = _tensor_type(split)
    shape = split_type.get_shape()
    heads = hl.ReshapeOp(
        operands=[split],
        result_types=[TensorType(split_type.element_type, [*shape[:-3], *shape[-2:]])],
    )
    heads.result.name_hint = split.name_hint  # named for what it holds, not for the sdpa
    return heads


class FoldRepeatKvIntoSdpa(RewritePattern):
    """sdpa(q, repeat_kv(k, G), repeat_kv(v, G)) -> sdpa(q, k, v) with `enable_gqa`.

    HF's `repeat_kv` copies each key/value head G times so that key and value have the
    query's heads; torch's `enable_gqa=True` reads query head h from key/value head
    h // G instead, the same values without the two copies. Both operands must repeat
    by the same G (enable_gqa groups key and value alike). On an sdpa that already has
    `enable_gqa` the groups compose: head h // G1 of k repeated is head h // (G1 * G) of k.
    The inner reshapes fold with the ones that made the unit dim, usually to nothing.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: hl.ScaledDotProductAttentionOp, rewriter: PatternRewriter
    ) -> None:
        key, value = _repeat_kv_source(op.key), _repeat_kv_source(op.value)
        if key is None or value is None or key[1] != value[1]:
            return
        new_key, new_value = _drop_unit_group(key[0]), _drop_unit_group(value[0])
        properties = dict(op.properties)
        properties["enable_gqa"] = UnitAttr()
        mask = [] if op.mask is None else [op.mask]
        grouped = hl.ScaledDotProductAttentionOp(
            operands=[op.query, new_key.result, new_value.result, mask],
            result_types=[op.result.type],
            properties=properties,
        )
        _replace(rewriter, op, [new_key, new_value, grouped])


# --- attention masks known at compile time ----------------------------------------------


LEFT_OUT_AT_OR_BELOW = -65536.0
"""A float mask value at or below this leaves its key out, as -inf does.

On CUDA, torch's scaled-dot-product attention turns a boolean mask into a float one
before its cuDNN kernel takes it, writing -65536 (not -inf) for each false; Dynamo's
aten graph of a CUDA model holds that `where(mask, 0, -65536)`, where the same model on
the CPU holds -inf. A key whose score gets -65536 added is at least 65536 minus the
row's spread of scores under the row's maximum, so its exponential underflows to exactly
zero in f32 (below e^-104) unless a row's scores span more than ~65,000: for every real
input, the same softmax as is_causal's. (A finite bias such as HF's older -1e4 is above
it and stays a bias.)"""


def attention_mask_kind(mask: torch.Tensor, queries: int, keys: int) -> str | None:
    """ "none" when `mask` lets every query see every key, "causal" when it is exactly
    torch's `is_causal` mask (queries == keys, query i sees keys 0..i), else None.

    A position takes part when the mask holds true (an i1 mask) or exactly zero (a
    float one) and is left out when it holds false, -inf, the type's lowest finite
    value (HF fills with either), or -65536 or less (`LEFT_OUT_AT_OR_BELOW`: what torch
    writes for a boolean mask's false on CUDA): every row of a causal mask
    sees its own key, so a score plus such a value is far under the row's maximum and
    its exponential is exactly zero, as -inf's is. Any other value (a finite bias)
    makes the mask neither. The mask broadcasts to [..., queries, keys], and every
    leading index must hold the same pattern.
    """
    from torch.utils._python_dispatch import _disable_current_modes

    with _disable_current_modes():  # real tensors, even under Dynamo's fake mode
        return _mask_kind(mask, queries, keys)


def _mask_kind(mask: torch.Tensor, queries: int, keys: int) -> str | None:
    import torch

    try:
        shape = torch.broadcast_shapes(mask.shape, (queries, keys))
    except RuntimeError:
        return None
    full = mask.broadcast_to(shape)
    if full.dtype == torch.bool:
        passes = full
    else:
        passes = full == 0
        left_out = (full <= LEFT_OUT_AT_OR_BELOW) | (full == torch.finfo(full.dtype).min)
        if not bool((passes | left_out).all()):
            return None
    if bool(passes.all()):
        return "none"
    causal = torch.ones(queries, keys, dtype=torch.bool).tril()
    if queries == keys and bool((passes == causal).all()):
        return "causal"
    return None


def _scales_up(op: hl.ScaledDotProductAttentionOp) -> bool:
    """Whether the attention's scale is a positive finite number in f32 (its default,
    1/sqrt(E), is). torch's causal kernels leave a key out by scaling a -inf score, so
    a scale of 0 or below, or NaN, makes the left-out scores NaN or +inf: at scale 0 a
    causal SDPA's rows before the last are NaN where the same mask given as a tensor
    (added after scaling) averages the keys a row sees (mutate fuzzer, mutant 1231 of
    seed 7). The kernels hold the scale in f32, so a double below f32's smallest
    subnormal is 0 there (mutant 2458 of seed 1000: 1e-314) and one above its largest
    finite value is inf. Only a scale f32 holds as a positive finite number keeps a
    mask and `is_causal` the same."""
    scale = op.scale
    if scale is None:
        return True
    single = ctypes.c_float(scale.value.data).value
    return math.isfinite(single) and single > 0


class SpecializeConstantMask(RewritePattern):
    """sdpa(q, k, v, mask) -> sdpa(q, k, v) or sdpa(q, k, v) {is_causal} when the mask
    is computed from constants alone and lets everything through, or is exactly causal.

    A prefill's mask is built from `arange`s of the fixed sequence length, so it is
    known at compile time (`lumir.passes.constant_values`). Adding a zero score and
    leaving out a -inf one are exact, so the rewrite changes no value, only what torch
    may run: without a mask tensor its flash and cuDNN kernels take the call (with the
    grouped heads), where a mask sends it to the memory-efficient kernel or, for one
    query over one key, to the math path. The mask's ops die with their last reader.
    """

    def __init__(self) -> None:
        self._constants = ConstantEvaluator()

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: hl.ScaledDotProductAttentionOp, rewriter: PatternRewriter
    ) -> None:
        if op.mask is None or op.is_causal is not None:
            return
        mask = self._constants.value(op.mask)
        if mask is None:
            return
        queries, keys = _tensor_type(op.query).get_shape()[-2], _tensor_type(op.key).get_shape()[-2]
        kind = attention_mask_kind(mask, queries, keys)
        if kind is None or (kind == "causal" and not _scales_up(op)):
            return
        properties = dict(op.properties)
        if kind == "causal":
            properties["is_causal"] = UnitAttr()
        unmasked = hl.ScaledDotProductAttentionOp(
            operands=[op.query, op.key, op.value, []],
            result_types=[op.result.type],
            properties=properties,
        )
        _replace(rewriter, op, [unmasked])


CANONICALIZATION_PATTERNS: tuple[type[RewritePattern], ...] = (
    SplitLinear,
    SplitAddmm,
    FoldEmptyProduct,
    FoldIdentityTranspose,
    FoldTransposeChain,
    FoldIdentityReshape,
    FoldReshapeChain,
    FoldIdentityCast,
    FoldExactCastChain,
    ConstantToRhs,
    FoldRepeatKvIntoSdpa,
    SpecializeConstantMask,
)
"""Every pattern of hl-canonicalize, in the order the greedy driver tries them."""


@dataclass(frozen=True)
class HLCanonicalizePass(ModulePass):
    """Fold transpose/reshape/cast chains and split linear/addmm into matmul + add.

    `hl.linear` becomes a transpose of the weight, an `hl.matmul` and an `hl.add` of the
    bias; `hl.addmm` a matmul and an add; a matmul with an empty dimension a constant
    (zeros, or no element). Chains of transposes, of reshapes and of exact
    casts (a float widening first) fold to one op or none, and a constant operand of
    `hl.add` / `hl.mul` moves to the rhs, and an `hl.sdpa` over HF's `repeat_kv` of key
    and value takes the un-repeated heads with `enable_gqa`, and one whose mask is known at
    compile time to let everything through, or to be causal, drops it (`is_causal` for
    the latter). Then identical pure ops on the same operands, with the same
    `lumir.sizes` tag or none, are merged (common subexpressions: a decode step's
    per-layer mask conversion and cache-index ranges become one launch each), and the
    tags are dropped. Every rewrite is exact; dead pure ops are removed and created ops
    keep the replaced op's location. See docs/passes/hl-canonicalize.md.
    """

    name = "hl-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [pattern() for pattern in CANONICALIZATION_PATTERNS]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
        cse(op)
        for inner in op.walk():
            inner.attributes.pop(SIZES_ATTRIBUTE, None)


__all__ = [
    "CANONICALIZATION_PATTERNS",
    "LEFT_OUT_AT_OR_BELOW",
    "SIZES_ATTRIBUTE",
    "ConstantToRhs",
    "FoldEmptyProduct",
    "FoldExactCastChain",
    "FoldIdentityCast",
    "FoldIdentityReshape",
    "FoldIdentityTranspose",
    "FoldRepeatKvIntoSdpa",
    "FoldReshapeChain",
    "FoldTransposeChain",
    "HLCanonicalizePass",
    "SpecializeConstantMask",
    "SplitAddmm",
    "SplitLinear",
    "attention_mask_kind",
    "is_exact_widening",
]
