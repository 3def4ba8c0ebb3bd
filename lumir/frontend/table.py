"""The import table: one row per ATen overload, saying which converter makes it `hl`.

The table is the documentation of what lumir imports. `unsupported_reason` is the
question the capability partitioner asks of every node: a node is lumir's when its
target has a row, every tensor it reads or writes has an imported dtype, and the row's
own check (if any) accepts its arguments. Everything else runs in eager.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import fx

from lumir.cublaslt_enums import DataType
from lumir.dialects import hl
from lumir.frontend import cross as cr
from lumir.frontend import elementwise as ew
from lumir.frontend import generators as gen
from lumir.frontend import linspace as ls
from lumir.frontend import prims as pr
from lumir.frontend import structured as st
from lumir.frontend import views as vw
from lumir.frontend.context import ImportContext
from lumir.frontend.dtypes import IMPORTED_DTYPES, element_type, is_imported
from lumir.passes.cublaslt_builders import DEFAULT_COMPUTE

aten = torch.ops.aten
prims = torch.ops.prims

Check = Callable[[fx.Node], str | None]


@dataclass(frozen=True)
class Row:
    """How one ATen overload is imported: its converter, and an optional argument check."""

    convert: Callable[[ImportContext, fx.Node], object]
    check: Check | None = None


def _product_dtypes() -> tuple[torch.dtype, ...]:
    """The imported dtypes a matrix product lowers to cuBLASLt in."""
    found = []
    for dtype, element in IMPORTED_DTYPES.items():
        try:
            if DataType.from_element_type(element) in DEFAULT_COMPUTE:
                found.append(dtype)
        except (KeyError, ValueError):
            continue  # no cuBLASLt data type (bool)
    return tuple(found)


_PRODUCT_DTYPES = _product_dtypes()


def _cublaslt_product(node: fx.Node) -> str | None:
    """A matrix product is lumir's only where hl-to-cublaslt can lower it: an integer
    product (torch computes one on the CPU) has no cuBLASLt call and stays in eager."""
    result = node.meta.get("val")
    if not isinstance(result, torch.Tensor) or not is_imported(result.dtype):
        return "not a product of imported tensors"
    if DataType.from_element_type(element_type(result.dtype)) not in DEFAULT_COMPUTE:
        supported = ", ".join(str(d).removeprefix("torch.") for d in _PRODUCT_DTYPES)
        return f"a {result.dtype} matrix product has no cuBLASLt lowering (expected {supported})"
    return None


def _dtype_only_copy(node: fx.Node) -> str | None:
    source, result = node.args[0].meta.get("val"), node.meta.get("val")  # type: ignore[union-attr]
    if not isinstance(source, torch.Tensor) or not isinstance(result, torch.Tensor):
        return "not a tensor copy"
    if source.device != result.device:
        return f"copies from {source.device} to {result.device}"
    return None


def _of_bool(node: fx.Node) -> str | None:
    """Bitwise ops are imported on bools (masks), where they are logical ones: every
    operand a bool tensor or a Python bool (`mask ^ True`; an int number makes an
    integer result, `mask | 1` is int64, which `hl` has no bitwise or / xor for)."""
    for arg in node.args:
        value = arg.meta.get("val") if isinstance(arg, fx.Node) else arg
        if isinstance(value, bool):
            continue
        if not isinstance(value, torch.Tensor) or value.dtype != torch.bool:
            return f"{node.target} of an operand that is not a bool tensor or a bool"
    return None


def _number_fill(node: fx.Node) -> str | None:
    """fill.Scalar with a number: a Python one, or, under dynamic shapes, a size or a
    float computed from sizes (`x.fill_(x.shape[1])`), which `_numbers_from_sizes` has
    found lumir evaluates from each specialisation's sizes, as `full`'s fill is."""
    value = node.args[1]
    if isinstance(value, fx.Node):
        value = value.meta.get("val")
    if isinstance(value, int | float | torch.SymInt | torch.SymFloat):
        return None
    return f"a fill value {node.args[1]} that is not a number"


def _tensor_operands(node: fx.Node) -> str | None:
    """Both operands tensors (the logical ops have no scalar overload)."""
    for arg in node.args[:2]:
        if not (isinstance(arg, fx.Node) and isinstance(arg.meta.get("val"), torch.Tensor)):
            return f"{node.target} of an operand that is not a tensor"
    return None


def _no_dropout(node: fx.Node) -> str | None:
    mask, dropout, causal, _ = st.sdpa_arguments(node)
    if not isinstance(dropout, int | float) or dropout != 0.0:
        return f"dropout_p={dropout}"
    if mask is not None and causal:
        return "a mask together with is_causal"
    for user in node.users:
        if user.target is not operator.getitem or (user.args[1] != 0 and user.users):
            return "uses an attention output other than the result"
    return None


_MULTI_OUTPUT_OPS = frozenset(vw.SPLITS | gen.EXTREMES.keys() | st.SDPA_SIGNATURES.keys())
"""The ops lumir imports whose results a getitem picks from (splits, max/min.dim, attention)."""


def _imported_output(node: fx.Node) -> str | None:
    """A getitem of an op lumir imports whole: its result is one of that op's outputs,
    so it is taken only where the op is (a training graph's attention, which also
    returns statistics for the backward, runs in eager, and so does its result)."""
    source = node.args[0]
    if not isinstance(source, fx.Node) or source.target not in _MULTI_OUTPUT_OPS:
        return "getitem of something other than an attention result, a split or max/min.dim"
    if source.target in st.SDPA_SIGNATURES and node.args[1] != 0 and node.users:
        return "an attention statistic"
    if unsupported_reason(source) is not None:
        return f"an output of {target_name(source)}, which runs in eager"
    return None


def _rounding(op_class: type[hl.ElementwiseUnaryOp]) -> Callable[[ImportContext, fx.Node], object]:
    """floor/ceil/round/trunc: of an integer tensor, the input itself (ATen copies it,
    on every device); of a floating one, the `hl` op."""
    floating = ew.unary(op_class)

    def convert(cx: ImportContext, node: fx.Node) -> object:
        if not cx.dtype(node).is_floating_point:
            return ew.identity(cx, node)
        return floating(cx, node)

    return convert


def _numeric_input(node: fx.Node) -> str | None:
    """A floating or integer tensor: ATen has no floor/ceil/round/trunc of a bool."""
    value = node.args[0].meta.get("val") if isinstance(node.args[0], fx.Node) else None
    if not isinstance(value, torch.Tensor) or value.dtype == torch.bool:
        return f"{node.target} of an operand that is not a floating or integer tensor"
    return None


TABLE: dict[object, Row] = {
    # elementwise arithmetic (Python scalars become 0-d constants)
    aten.add.Tensor: Row(ew.binary(hl.AddOp), ew.scalar_alpha),
    aten.add.Scalar: Row(ew.binary(hl.AddOp), ew.scalar_alpha),
    aten.sub.Tensor: Row(ew.binary(hl.SubOp), ew.scalar_alpha),
    aten.sub.Scalar: Row(ew.binary(hl.SubOp), ew.scalar_alpha),
    aten.mul.Tensor: Row(ew.binary(hl.MulOp)),
    aten.mul.Scalar: Row(ew.binary(hl.MulOp)),
    aten.div.Tensor: Row(ew.binary(hl.DivOp)),
    aten.div.Scalar: Row(ew.binary(hl.DivOp)),
    aten.pow.Tensor_Scalar: Row(ew.convert_pow_tensor_scalar),
    aten.pow.Tensor_Tensor: Row(ew.binary(hl.PowOp)),
    aten.pow.Scalar: Row(ew.binary(hl.PowOp)),
    aten.maximum.default: Row(ew.binary(hl.MaximumOp)),
    aten.minimum.default: Row(ew.binary(hl.MinimumOp)),
    aten.neg.default: Row(ew.unary(hl.NegOp)),
    aten.rsqrt.default: Row(ew.unary(hl.RsqrtOp)),
    aten.sqrt.default: Row(ew.unary(hl.SqrtOp)),
    aten.exp.default: Row(ew.unary(hl.ExpOp)),
    aten.relu.default: Row(ew.unary(hl.ReluOp)),
    aten.silu.default: Row(ew.unary(hl.SiluOp)),
    aten.sigmoid.default: Row(ew.unary(hl.SigmoidOp)),
    aten.tanh.default: Row(ew.unary(hl.TanhOp)),
    aten.cos.default: Row(ew.unary(hl.CosOp)),
    aten.sin.default: Row(ew.unary(hl.SinOp)),
    aten.log.default: Row(ew.unary(hl.LogOp)),
    aten.log1p.default: Row(ew.unary(hl.Log1pOp)),
    aten.expm1.default: Row(ew.unary(hl.Expm1Op)),
    aten.erf.default: Row(ew.unary(hl.ErfOp)),
    aten.floor.default: Row(_rounding(hl.FloorOp), _numeric_input),
    aten.ceil.default: Row(_rounding(hl.CeilOp), _numeric_input),
    aten.round.default: Row(_rounding(hl.RoundOp), _numeric_input),
    aten.trunc.default: Row(_rounding(hl.TruncOp), _numeric_input),
    # -1, 0 or 1 of the input's dtype (a bool is itself); torch.sign's kernel on every
    # device for integers, never through a float (a fused kernel has no hl.sign)
    aten.sign.default: Row(ew.unary(hl.SignOp)),
    aten.sgn.default: Row(ew.unary(hl.SignOp)),
    aten.atan.default: Row(ew.unary(hl.AtanOp), ew.floating_input),
    aten.tan.default: Row(ew.unary(hl.TanOp), ew.floating_input),
    aten.abs.default: Row(ew.unary(hl.AbsOp)),
    aten.reciprocal.default: Row(ew.convert_reciprocal),
    aten.bitwise_and.Tensor: Row(ew.binary(hl.BitwiseAndOp)),
    aten.bitwise_and.Scalar: Row(ew.binary(hl.BitwiseAndOp)),  # `x & 6`, `mask & True`
    aten.bitwise_and.Scalar_Tensor: Row(ew.binary(hl.BitwiseAndOp)),  # `True & mask`
    aten.floor_divide.default: Row(ew.binary(hl.FloorDivideOp), ew.rounded_division),
    aten.div.Tensor_mode: Row(ew.convert_rounded_division, ew.rounded_division),
    aten.div.Scalar_mode: Row(ew.convert_rounded_division, ew.rounded_division),
    aten.remainder.Tensor: Row(ew.binary(hl.RemainderOp), ew.rounded_division),
    aten.remainder.Scalar: Row(ew.binary(hl.RemainderOp), ew.rounded_division),
    aten.remainder.Scalar_Tensor: Row(ew.binary(hl.RemainderOp), ew.rounded_division),
    aten.fmod.Tensor: Row(ew.binary(hl.FmodOp), ew.floating_result),
    aten.fmod.Scalar: Row(ew.binary(hl.FmodOp), ew.floating_result),
    aten.gelu.default: Row(ew.convert_gelu),
    aten._to_copy.default: Row(ew.convert_to_copy, _dtype_only_copy),
    aten.alias.default: Row(ew.identity),
    aten.clone.default: Row(ew.identity),
    aten.lift_fresh_copy.default: Row(ew.identity),
    aten.detach.default: Row(ew.identity),
    # comparisons and selection
    aten.eq.Tensor: Row(ew.compare("eq")),
    aten.eq.Scalar: Row(ew.compare("eq")),
    aten.ne.Tensor: Row(ew.compare("ne")),
    aten.ne.Scalar: Row(ew.compare("ne")),
    aten.lt.Tensor: Row(ew.compare("lt")),
    aten.lt.Scalar: Row(ew.compare("lt")),
    aten.le.Tensor: Row(ew.compare("le")),
    aten.le.Scalar: Row(ew.compare("le")),
    aten.gt.Tensor: Row(ew.compare("gt")),
    aten.gt.Scalar: Row(ew.compare("gt")),
    aten.ge.Tensor: Row(ew.compare("ge")),
    aten.ge.Scalar: Row(ew.compare("ge")),
    aten.where.self: Row(ew.convert_where),
    aten.logical_not.default: Row(ew.convert_logical_not),
    aten.bitwise_not.default: Row(ew.convert_logical_not, _of_bool),
    aten.bitwise_or.Tensor: Row(ew.logical("or"), _of_bool),
    aten.bitwise_or.Scalar: Row(ew.logical("or"), _of_bool),  # `mask | False`
    aten.bitwise_or.Scalar_Tensor: Row(ew.logical("or"), _of_bool),  # `True | mask`
    aten.logical_and.default: Row(ew.logical("and"), _tensor_operands),
    aten.logical_or.default: Row(ew.logical("or"), _tensor_operands),
    aten.logical_xor.default: Row(ew.logical("xor"), _tensor_operands),
    # `mask_a ^ mask_b`: of bools, xor is the logical one
    aten.bitwise_xor.Tensor: Row(ew.logical("xor"), _of_bool),
    aten.bitwise_xor.Scalar: Row(ew.logical("xor"), _of_bool),  # `mask ^ True`
    aten.bitwise_xor.Scalar_Tensor: Row(ew.logical("xor"), _of_bool),  # `True ^ mask`
    aten.isnan.default: Row(ew.convert_isnan),
    aten.isposinf.default: Row(ew.signed_infinity(1.0), ew.floating_input),
    aten.isneginf.default: Row(ew.signed_infinity(-1.0), ew.floating_input),
    # reductions
    aten.sum.dim_IntList: Row(ew.reduction(hl.SumOp)),
    aten.mean.dim: Row(ew.reduction(hl.MeanOp)),
    aten.amax.default: Row(ew.reduction(hl.AmaxOp)),
    aten.amin.default: Row(ew.reduction(hl.AminOp)),
    aten.max.dim: Row(gen.convert_extreme),
    aten.max.default: Row(ew.reduction(hl.AmaxOp)),
    aten.any.default: Row(ew.convert_any_all),
    aten.any.dim: Row(ew.convert_any_all),
    aten.any.dims: Row(ew.convert_any_all),
    aten.all.default: Row(ew.convert_any_all),
    aten.all.dim: Row(ew.convert_any_all),
    aten.all.dims: Row(ew.convert_any_all),
    aten.min.default: Row(ew.reduction(hl.AminOp)),
    aten.min.dim: Row(gen.convert_extreme),
    aten.argmax.default: Row(ew.convert_arg_reduction(hl.ArgmaxOp)),
    aten.argmin.default: Row(ew.convert_arg_reduction(hl.ArgminOp)),
    aten._softmax.default: Row(ew.convert_softmax),
    aten._safe_softmax.default: Row(ew.convert_safe_softmax),
    # constants
    aten.full.default: Row(ew.convert_full),
    aten.arange.default: Row(gen.convert_arange, gen.arange_check),
    aten.arange.start: Row(gen.convert_arange, gen.arange_check),
    aten.arange.start_step: Row(gen.convert_arange, gen.arange_check),
    aten.linspace.default: Row(ls.convert_linspace, ls.linspace_check),
    # running sums, integer-tensor indexing, padding
    aten.cumsum.default: Row(gen.cumulative(hl.CumsumOp)),
    aten.cumprod.default: Row(gen.cumulative(hl.CumprodOp)),
    aten.index.Tensor: Row(gen.convert_index, gen.index_check),
    aten._unsafe_index.Tensor: Row(gen.convert_index, gen.index_check),
    aten.gather.default: Row(gen.convert_gather, gen.gather_check),
    aten.index_select.default: Row(gen.convert_index_select, gen.index_select_check),
    aten.flip.default: Row(gen.convert_flip),
    aten.triu.default: Row(gen.triangle(upper=True)),
    aten.tril.default: Row(gen.triangle(upper=False)),
    aten.index_copy.default: Row(gen.convert_index_copy, gen.index_copy_check),
    aten.index_put.default: Row(gen.convert_index_put, gen.index_put_check),
    aten.constant_pad_nd.default: Row(gen.convert_pad),
    aten.scalar_tensor.default: Row(ew.convert_full),
    aten.full_like.default: Row(ew.convert_full),
    aten.fill.Scalar: Row(ew.convert_full, _number_fill),
    aten.fill.Tensor: Row(vw.convert_copy),
    # matrix products, gathers, attention
    aten.mm.default: Row(st.convert_matmul, _cublaslt_product),
    aten.bmm.default: Row(st.convert_matmul, _cublaslt_product),
    aten.addmm.default: Row(st.convert_addmm, _cublaslt_product),
    aten.baddbmm.default: Row(st.convert_addmm, _cublaslt_product),
    aten.mv.default: Row(st.convert_matrix_vector, _cublaslt_product),
    aten.dot.default: Row(st.convert_matrix_vector, _cublaslt_product),
    aten.vdot.default: Row(st.convert_matrix_vector, _cublaslt_product),
    aten.addmv.default: Row(st.convert_addmv, _cublaslt_product),
    aten.embedding.default: Row(st.convert_embedding),
    aten.cat.default: Row(st.convert_cat),
    aten.linalg_cross.default: Row(cr.convert_cross, cr.cross_check),
    **{kernel: Row(st.convert_sdpa, _no_dropout) for kernel in st.SDPA_SIGNATURES},
    operator.getitem: Row(st.convert_getitem, _imported_output),
    # views
    aten.view.default: Row(vw.convert_reshape),
    aten._unsafe_view.default: Row(vw.convert_reshape),
    aten.reshape.default: Row(vw.convert_reshape),
    aten.unsqueeze.default: Row(vw.convert_reshape),
    aten.squeeze.dim: Row(vw.convert_reshape),
    aten.squeeze.dims: Row(vw.convert_reshape),
    aten.squeeze.default: Row(vw.convert_reshape),
    aten.permute.default: Row(vw.convert_permute),
    aten.transpose.int: Row(vw.convert_transpose),
    aten.t.default: Row(vw.convert_t),
    aten.expand.default: Row(vw.convert_expand),
    aten.slice.Tensor: Row(vw.convert_slice),
    aten.slice_scatter.default: Row(vw.convert_slice_scatter, vw.slice_scatter_check),
    aten.select_scatter.default: Row(vw.convert_select_scatter),
    aten.copy.default: Row(vw.convert_copy),
    aten.new_empty.default: Row(vw.convert_empty),
    aten.empty_like.default: Row(vw.convert_empty),
    aten.empty.memory_format: Row(vw.convert_empty),
    aten.as_strided.default: Row(gen.convert_as_strided, gen.as_strided_check),
    aten.select.int: Row(vw.convert_select),
    **{split: Row(vw.convert_split) for split in sorted(vw.SPLITS, key=str)},
    # what torch's reference decompositions (layer norm, var_mean, ...) leave behind
    prims.var.default: Row(pr.convert_var, pr.reduction_check),
    prims.sum.default: Row(pr.convert_sum, pr.reduction_check),
    prims.div.default: Row(ew.binary(hl.DivOp), pr.floating_division),
    prims.broadcast_in_dim.default: Row(pr.convert_broadcast_in_dim),
    prims.convert_element_type.default: Row(ew.convert_to_copy),
    prims.rev.default: Row(gen.convert_flip),
    prims.log1p.default: Row(ew.unary(hl.Log1pOp)),
    prims.expm1.default: Row(ew.unary(hl.Expm1Op)),
}
"""ATen overload -> how lumir imports it. Nodes whose target is not here run in eager."""

MATRIX_PRODUCTS = frozenset(t for t, row in TABLE.items() if row.check is _cublaslt_product)
"""The overloads imported as matrix products, each a cuBLASLt call when its dtype has one."""

SHAPE_TARGETS: frozenset[object] = frozenset(
    {
        aten.sym_size.int,
        aten.sym_numel.default,
        aten.sym_stride.int,
        operator.add,
        operator.sub,
        operator.mul,
        operator.floordiv,
        operator.mod,
        operator.neg,
        operator.pow,
        torch.sym_max,
        torch.sym_min,
        torch.sym_sum,
    }
)
"""Integer size arithmetic on SymInts: evaluated from the bindings, never emitted (a
stride too: Longformer chunks a padded tensor by its `stride()`). An
integer `s ** 2` (torch's `PowByNatural`, or sympy's `Pow` of a literal exponent) is
exact Python integer arithmetic too."""

TO_INT_TARGETS: frozenset[object] = frozenset(
    {math.floor, math.ceil, math.trunc, round, torch.sym_int}
)
"""A float computed from sizes made an integer (`int(n ** 0.5)`, ViT's grid side, traces
as `math.trunc`): torch's `FloorToInt`, `CeilToInt`, `TruncToInt` and `RoundToInt`
evaluate as Python's `math.floor`, `math.ceil`, `math.trunc` and `round` of the float
(`round(x, 0)`: half to even, as `round(x)`), so the integer from the bindings is
eager's. A float that eager computed has no such value: the node then runs in eager."""

FLOAT_TARGETS: frozenset[object] = frozenset({operator.truediv, operator.pow, torch._sym_sqrt})
"""Float arithmetic on sizes (`1.0 / s ** 0.5`, a default attention scale over a dynamic
head dim): torch's expressions of these (`FloatTrueDiv`, `FloatPow`, `sqrt`) evaluate
each step as the Python float operation, so the value from the bindings is eager's,
bit for bit."""


def is_shape_node(node: fx.Node) -> bool:
    """True for a node that computes a size (a SymInt or int), not a tensor; or a float
    computed from sizes (`torch.sym_float`: a LayerNorm over a dynamic width divides by
    it; `x.shape[0] * 0.5`, `x.shape[0] / 2`, `1.0 / x.shape[-1] ** 0.5`), which an op
    reads as a scalar (`ImportContext.scalar`)."""
    value = node.meta.get("val")
    if isinstance(value, torch.SymFloat | float) and not isinstance(value, bool):
        if node.target is torch.sym_float:
            return isinstance(node.args[0], fx.Node) and _is_size(node.args[0])
        if node.target not in SHAPE_TARGETS and node.target not in FLOAT_TARGETS:
            return False
        # a float made of sizes only: one made of a float from eager has no value
        # lumir can compute from the partition's sizes
        return all(_is_size(arg) for arg in node.all_input_nodes)
    if not isinstance(value, torch.SymInt | int) or isinstance(value, bool):
        return False
    if node.target in TO_INT_TARGETS:
        return all(_is_size(arg) for arg in node.all_input_nodes)
    return node.target in SHAPE_TARGETS


def _is_size(node: fx.Node) -> bool:
    """A number lumir evaluates from sizes: a size input, or a shape node."""
    if node.op == "placeholder":
        value = node.meta.get("val")
        return isinstance(value, torch.SymInt | int) and not isinstance(value, bool)
    return is_shape_node(node)


def _numbers_from_sizes(node: fx.Node) -> str | None:
    """Every number `node` reads from another node (a fill, an alpha, an attention
    scale) is one lumir evaluates from sizes, not one computed in eager."""
    for arg in node.all_input_nodes:
        value = arg.meta.get("val")
        if value is None or isinstance(value, torch.Tensor | list | tuple):
            continue  # a tensor, several, or nothing traced to check
        if not _is_size(arg):
            return f"reads {arg.name}, a number computed by an op that runs in eager"
    return None


CASTS = (aten._to_copy.default, prims.convert_element_type.default)
"""The overloads that only change a tensor's dtype (a `_to_copy` also passes its row's
check: no device change)."""


def cast_only_input_dtype(node: fx.Node) -> torch.dtype | None:
    """The dtype a graph input of a dtype lumir does not import arrives in, when every
    use of it is a cast to one imported floating dtype (through casts to its own dtype,
    which change nothing); else None.

    Under `dynamic=True` Dynamo lifts a model's Python floats (an RMSNorm's eps, an
    attention scale) into 0-d float64 graph inputs that the graph only casts to the
    compute dtype. The importer takes such an input already in that dtype, and the
    casts become no-ops: the program's input copy (`Program.run_unchecked`, a
    `copy_`) converts it, rounding as the cast did. Two casts to different dtypes
    would round differently, so they keep the input (and the casts) in eager.
    """
    value = node.meta.get("val")
    if node.op != "placeholder" or not isinstance(value, torch.Tensor):
        return None
    if is_imported(value.dtype) or not value.dtype.is_floating_point:
        return None
    targets: set[torch.dtype] = set()
    if not _only_cast(node, value.dtype, targets) or len(targets) != 1:
        return None
    return targets.pop()


def _only_cast(node: fx.Node, dtype: torch.dtype, targets: set[torch.dtype]) -> bool:
    """Whether every use of `node` (of `dtype`) is a cast, to `dtype` again (then the
    same holds for its uses) or to an imported floating dtype (added to `targets`)."""
    for user in node.users:
        result = user.meta.get("val")
        if user.target not in CASTS or user.args[0] is not node:
            return False
        if not isinstance(result, torch.Tensor) or _dtype_only_copy(user) is not None:
            return False
        if result.dtype == dtype:
            if not _only_cast(user, dtype, targets):
                return False
        elif result.dtype.is_floating_point and is_imported(result.dtype):
            targets.add(result.dtype)
        else:
            return False
    return True


def arrives_cast(node: fx.Node) -> bool:
    """True for a graph input that arrives cast (`cast_only_input_dtype`) and for a
    cast of one to its own dtype: values the importer has in the imported dtype."""
    while node.op != "placeholder":
        source = node.args[0] if node.target in CASTS and node.args else None
        if not isinstance(source, fx.Node) or source.meta.get("val") is None:
            return False
        if getattr(source.meta["val"], "dtype", None) != getattr(node.meta.get("val"), "dtype", 0):
            return False
        node = source
    return cast_only_input_dtype(node) is not None


def _tensors_of(node: fx.Node) -> list[torch.Tensor]:
    """The tensors `node` writes and reads, but for a cast's input that arrives cast
    (`cast_only_input_dtype`)."""
    if node.target in CASTS and isinstance(node.args[0], fx.Node) and arrives_cast(node.args[0]):
        result = node.meta.get("val")  # of the input's own dtype where it arrives cast too
        return [result] if isinstance(result, torch.Tensor) and is_imported(result.dtype) else []
    values = [node.meta.get("val")]
    values += [a.meta.get("val") for a in node.all_input_nodes]
    found: list[torch.Tensor] = []
    for value in values:
        items = value if isinstance(value, list | tuple) else [value]
        found += [v for v in items if isinstance(v, torch.Tensor)]
    return found


def unsupported_reason(node: fx.Node) -> str | None:
    """Why lumir does not take `node`, or None when it does (the partitioner's question)."""
    if node.op != "call_function":
        return f"{node.op} nodes are not imported"
    if is_shape_node(node):
        return None
    row = TABLE.get(node.target)
    if row is None:
        return "no import rule"
    for tensor in _tensors_of(node):
        if not is_imported(tensor.dtype):
            known = ", ".join(str(d).removeprefix("torch.") for d in IMPORTED_DTYPES)
            return f"dtype {tensor.dtype} is not imported (lumir imports {known})"
    reason = _numbers_from_sizes(node)
    if reason is not None:
        return reason
    return row.check(node) if row.check is not None else None


def is_supported(node: fx.Node) -> bool:
    """True when lumir imports `node` (see `unsupported_reason`)."""
    return unsupported_reason(node) is None


def target_name(node: fx.Node) -> str:
    """A readable name of a node's target (`aten.cos.default`), for warnings and reports."""
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return getattr(target, "__name__", str(target))
