"""Converters of elementwise ATen ops, reductions and casts.

ATen promotes operand dtypes and accepts Python scalars; `hl` ops take tensors of one
element type. `_operands` is where that difference is bridged: every operand is cast to
the dtype the op computes in, and a scalar becomes a 0-d `hl.constant`. For f16/bf16
results ATen computes a tensor-scalar op in f32 and rounds once; when the scalar is not
exact in the half type the converter does the same (cast up, compute, cast down) rather
than rounding the scalar first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch import fx
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes
from xdsl.dialects.builtin import StringAttr, TensorType, i1
from xdsl.ir import Attribute, SSAValue

from lumir.dialects import hl
from lumir.frontend.context import ImportContext
from lumir.frontend.dtypes import (
    HALF_DTYPES,
    element_type,
    is_imported,
    opmath_dtype,
    scalar_exactly_representable,
)
from lumir.frontend.kernel_decompositions import rounded_scalar

Converter = Callable[[ImportContext, fx.Node], SSAValue]

_DEFAULT_PROMOTION = ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT


def _scalar(cx: ImportContext, value: object, element: Attribute, dtype: torch.dtype) -> SSAValue:
    number = cx.scalar(value)
    literal = float(number) if dtype.is_floating_point else int(number)
    return cx.constant(literal, element)


def _is_symbolic(arg: object) -> bool:
    """A node computing a size or a number from sizes: its value differs by length."""
    return isinstance(arg, fx.Node) and isinstance(
        arg.meta.get("val"), torch.SymInt | torch.SymFloat
    )


def _compute_dtype(
    node: fx.Node, result: torch.dtype, reads_scalars_exactly: bool = False
) -> torch.dtype:
    """The dtype the op computes in: the result's, or f32 for an inexact half scalar.

    `reads_scalars_exactly` (mul and div): an int or a size the half dtype cannot hold
    (257) also computes in f32, as ATen's mul and div read a scalar at its own
    precision on either device. A size, or a number computed from sizes (a dynamic
    width that a mean divides by, `(n - 1) / (n + 1)`), always does, whatever its
    value at this length: the choice is the same at every length (an exact 0.5 at one
    length and an inexact 0.6 at the next gave two programs, and a second fusion), and
    the f32 product rounded once is eager's value for an exact scalar too. So does a 0-d
    f32 (or wider) tensor as the second operand of a half result. ATen's CPU mul and div
    read such an operand (a Python float that `dynamic=True` lifts into a graph input is
    one) at its own precision; as the first operand, or in add and sub, they round it to
    the half type first, as the operands' cast does here. A 0-d tensor on the GPU is
    no CPU scalar to ATen: it is cast to the half type like any operand (CUDA eager's
    `x * torch.tensor(0.1, device="cuda")`), and so it is here."""
    if result not in HALF_DTYPES:
        return result
    for arg in node.args:
        if isinstance(arg, float) and not scalar_exactly_representable(arg, result):
            return torch.float32
        if reads_scalars_exactly and (
            _is_symbolic(arg)
            or (_integral(arg) and not scalar_exactly_representable(float(arg), result))
        ):
            return torch.float32
    second = node.args[1] if len(node.args) > 1 else None
    value = second.meta.get("val") if isinstance(second, fx.Node) else None
    if (
        reads_scalars_exactly
        and isinstance(value, torch.Tensor)
        and value.dim() == 0
        and value.device.type == "cpu"
        and value.dtype.is_floating_point
        and value.dtype not in HALF_DTYPES
    ):
        return torch.float32
    return result


def _operands(cx: ImportContext, node: fx.Node, dtype: torch.dtype, count: int) -> list[SSAValue]:
    element = element_type(dtype)
    values = []
    for arg in node.args[:count]:
        if isinstance(arg, fx.Node) and isinstance(arg.meta.get("val"), torch.Tensor):
            values.append(cx.cast(cx.value(arg), element))
        else:
            values.append(_scalar(cx, arg, element, dtype))
    return values


def binary(op_class: type[hl.ElementwiseBinaryOp]) -> Converter:
    """add/sub/mul/div/pow/maximum: promote, compute, round to the result dtype.

    add and sub take `alpha`: `a + alpha * b`, which ATen computes in f32 for a half
    result and rounds once, so a scaled half add does the same here. pow and fmod read
    their scalar in the tensor's own dtype, on CPU and CUDA alike (pow's
    `exp_scalar.to<scalar_t>()`; fmod's kernel takes both operands as `scalar_t`, the
    number a 0-d tensor cast to the common dtype): a bf16 `x ** 0.1` raises to
    0.10009765625 and `torch.fmod(x, 0.7)` divides by 0.69921875, so the scalar is
    rounded to the result dtype first rather than read exactly. So do a floating floor
    division and remainder (`div_floor_floating` of `scalar_t` operands, in f32 for
    half types after the rounding)."""

    reads_scalars_exactly = op_class in (hl.MulOp, hl.DivOp)
    rounds_scalars = op_class in (hl.PowOp, hl.FmodOp, hl.FloorDivideOp, hl.RemainderOp)

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        result = cx.dtype(node)
        alpha = node.kwargs.get("alpha", 1)
        if rounds_scalars:
            compute = result
        elif alpha != 1:
            compute = opmath_dtype(result)
        else:
            compute = _compute_dtype(node, result, reads_scalars_exactly)
        lhs, rhs = _operands(cx, node, compute, 2)
        if alpha != 1:
            rhs = cx.emit(hl.MulOp(rhs, _scalar(cx, alpha, element_type(compute), compute)))
        value = cx.emit(op_class(lhs, rhs))
        return cx.cast(value, element_type(result))

    return convert


_general_pow = binary(hl.PowOp)


POW_SPECIAL_FORMS: dict[float, str] = {
    0.5: "sqrt",
    -0.5: "rsqrt",
    -1.0: "1 / x",
    2.0: "x * x",
    3.0: "x * x * x",
    -2.0: "1 / (x * x)",
}
"""The exponents for which ATen's pow of a tensor by a number does not call `pow`: its
CPU and CUDA kernels compute these forms instead, each operation rounded to the result
dtype (`pow_tensor_scalar_kernel`). They differ from `pow` in last bits (`x * x * x`
rounds twice; `pow` is not correctly rounded either) and at signed zeros and -inf:
`sqrt(-0)` is -0 and `sqrt(-inf)` NaN, where `pow(-0, 0.5)` is +0 and `pow(-inf, 0.5)`
+inf."""

_POW_SPECIAL_DTYPES = (torch.float32, torch.bfloat16)
"""The result dtypes whose eager pow takes the forms above on CPU and CUDA alike. f16
takes them on CUDA only (ATen's CPU kernel calls `pow` for every exponent there), so an
f16 pow stays `hl.pow`, which is the CPU's value."""


_POW_EXACT_FORMS = (0.5, -0.5, -1.0)
"""The exponents ATen compares with the number as given (`Scalar::equal`) before it
rounds it: its kernel tests 2, 3 and -2 on the exponent rounded to a bf16 tensor's
dtype (`pow_tensor_scalar_optimized_kernel`'s `exp_scalar.to<scalar_t>()`), so a bf16
`x ** 3.0000001` is `x * x * x`, but `x ** 0.50000001` is no `sqrt`."""


def convert_pow_tensor_scalar(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.pow.Tensor_Scalar: for an exponent of `POW_SPECIAL_FORMS` and an f32 or bf16
    result, the form ATen computes, op by op in the result dtype (so a compiled `x ** 2`
    or `x ** -0.5` is eager's value bit for bit); otherwise `hl.pow` (`binary`)."""
    exponent, result = node.args[1], cx.dtype(node)
    special = isinstance(exponent, int | float) and not isinstance(exponent, bool)
    if special and result == torch.bfloat16 and exponent not in _POW_EXACT_FORMS:
        rounded = rounded_scalar(float(exponent), torch.bfloat16)  # type: ignore[arg-type]
        exponent = rounded if rounded not in _POW_EXACT_FORMS else exponent
    if not special or result not in _POW_SPECIAL_DTYPES or exponent not in POW_SPECIAL_FORMS:
        return _general_pow(cx, node)
    (x,) = _operands(cx, node, result, 1)
    element = element_type(result)
    if exponent == 0.5:
        return cx.emit(hl.SqrtOp(x))
    if exponent == -0.5:
        return cx.emit(hl.RsqrtOp(x))
    if exponent == -1:
        return cx.emit(hl.DivOp(cx.constant(1.0, element), x))
    square = cx.emit(hl.MulOp(x, x))
    if exponent == 2:
        return square
    if exponent == 3:
        return cx.emit(hl.MulOp(square, x))
    return cx.emit(hl.DivOp(cx.constant(1.0, element), square))


def scalar_alpha(node: fx.Node) -> str | None:
    """add/sub's `alpha` is imported when it is a number of the operands' kind (ATen
    refuses a float alpha for integers) and the result is not a bool."""
    alpha = node.kwargs.get("alpha", 1)
    if alpha == 1:
        return None
    result = node.meta.get("val")
    if not isinstance(alpha, int | float) or isinstance(alpha, bool):
        return f"alpha={alpha} is not a number"
    if not isinstance(result, torch.Tensor) or result.dtype == torch.bool:
        return f"alpha={alpha} of a bool result is not imported"
    return None


def unary(op_class: type[hl.ElementwiseUnaryOp]) -> Converter:
    """neg/rsqrt/exp/...: the input in the result dtype, then the op."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        (x,) = _operands(cx, node, cx.dtype(node), 1)
        return cx.emit(op_class(x))

    return convert


def convert_reciprocal(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.reciprocal: 1 / x in the result dtype (an integer input is a float result,
    as in ATen). MPT's attention scale is one."""
    result = cx.dtype(node)
    (x,) = _operands(cx, node, result, 1)
    return cx.emit(hl.DivOp(cx.constant(1.0, element_type(result)), x))


def convert_gelu(cx: ImportContext, node: fx.Node) -> SSAValue:
    (x,) = _operands(cx, node, cx.dtype(node), 1)
    return cx.emit(hl.GeluOp(x, str(node.kwargs.get("approximate", "none"))))


def convert_to_copy(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten._to_copy with only a dtype change (device changes are refused by the table);
    prims.convert_element_type(x, dtype), the same cast. A cast of an input that arrives
    cast, to that input's own dtype (`table.arrives_cast`), is the input as it arrived."""
    if not is_imported(cx.dtype(node)):
        return cx.value(node.args[0])
    return cx.cast(cx.value(node.args[0]), element_type(cx.dtype(node)))


def identity(cx: ImportContext, node: fx.Node) -> SSAValue:
    """alias / clone / lift_fresh_copy / detach: value semantics make them the input."""
    return cx.value(node.args[0])


def common_dtype(args: Sequence[object]) -> torch.dtype | None:
    """torch's type promotion of an op's tensor and number arguments (nodes or literals;
    others are left out), or None where it refuses them. A 0-d tensor does not promote
    a dimensioned one of its category: a bf16 `x >= torch.tensor(0.1)` compares in bf16,
    as eager does, and a float64 0-d tensor leaves an f32 product f32."""
    values = []
    for arg in args:
        value = arg.meta.get("val") if isinstance(arg, fx.Node) else arg
        if isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
            value = {torch.SymInt: 1, torch.SymFloat: 1.0, torch.SymBool: True}[type(value)]
        if isinstance(value, torch.Tensor | int | float | bool):
            values.append(value)
    if not values:
        return None
    try:
        _, dtype = elementwise_dtypes(*values, type_promotion_kind=_DEFAULT_PROMOTION)
    except Exception:  # an argument torch's promotion does not take (a complex number)
        return None
    return dtype


def emit_compare(
    cx: ImportContext, predicate: str, lhs: SSAValue, rhs: SSAValue, shape: Sequence[int]
) -> SSAValue:
    """`hl.compare` of two values of one element type, giving i1 of `shape`."""
    op = hl.CompareOp(
        operands=[lhs, rhs],
        result_types=[TensorType(i1, list(shape))],
        properties={"predicate": StringAttr(predicate)},
    )
    return cx.emit(op)


def compare(predicate: str) -> Converter:
    """eq/ne/lt/le/gt/ge (Tensor and Scalar overloads) -> hl.compare, giving i1."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        dtype = common_dtype(node.args[:2])
        assert dtype is not None, node
        lhs, rhs = _operands(cx, node, dtype, 2)
        return emit_compare(cx, predicate, lhs, rhs, cx.shape(node))

    return convert


def convert_logical_not(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.logical_not, and aten.bitwise_not of a bool: `x == 0`, a bool (NaN is true,
    so it gives false, as in ATen), cast to the result dtype."""
    x = cx.value(node.args[0])
    assert isinstance(x.type, TensorType)
    element = x.type.element_type
    zero = cx.constant(0.0 if cx.dtype(node.args[0]).is_floating_point else 0, element)  # type: ignore[arg-type]
    is_zero = emit_compare(cx, "eq", x, zero, cx.shape(node))
    return cx.cast(is_zero, element_type(cx.dtype(node)))


def convert_isnan(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.isnan: `x != x`, true exactly for NaN (never for an integer). torch's clamp
    decomposition asks it, so that a NaN input stays NaN."""
    x = cx.value(node.args[0])
    return emit_compare(cx, "ne", x, x, cx.shape(node))


def signed_infinity(sign: float) -> Converter:
    """aten.isposinf / isneginf: `x == sign * inf`, for a floating x. torch's
    `nan_to_num` decomposition asks them."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        x = cx.value(node.args[0])
        assert isinstance(x.type, TensorType)
        infinity = cx.constant(sign * math.inf, x.type.element_type)
        return emit_compare(cx, "eq", x, infinity, cx.shape(node))

    return convert


def floating_input(node: fx.Node) -> str | None:
    """The first argument is a floating tensor (an integer one has no infinity)."""
    value = node.args[0].meta.get("val") if isinstance(node.args[0], fx.Node) else None
    if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
        return f"{node.target} of an operand that is not a floating tensor"
    return None


def floating_result(node: fx.Node) -> str | None:
    """The result is a floating tensor (`hl.fmod` has no integer form: an integer fmod
    is lumir.frontend.exact_decompositions' truncating division, before the table)."""
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
        kind = value.dtype if isinstance(value, torch.Tensor) else type(value).__name__
        return f"{node.target} with a result of {kind} (floating point only)"
    return None


def rounded_division(node: fx.Node) -> str | None:
    """floor_divide / remainder / div(rounding_mode="floor" or "trunc") of integer
    operands with an integer result, or with a floating result (DETR's sine position
    embedding floor-divides a float range): `hl.floor_divide` and `hl.remainder` take
    both, and the runtime runs ATen's own kernel for them, whose floating rounding near
    integer quotients (`div_floor_floating`) is then eager's. A bool operand or result
    stays in eager (ATen refuses most of them), and so does a floor or truncating
    division with a half result: ATen's CPU kernel rounds it one way in its vectorised
    loop and another in its scalar one (bf16 6 / 0.3008 truncates to 20 in a
    contiguous tensor and to 19 alone), so eager's own value depends on the layout.
    Its remainder is the same in both."""
    mode = _rounding_mode(node)
    if mode not in ("floor", "trunc"):
        return f"a division with rounding_mode={mode!r}"
    result = node.meta.get("val")
    floating = isinstance(result, torch.Tensor) and result.dtype.is_floating_point
    if floating and result.dtype in HALF_DTYPES and not _is_remainder(node):
        return (
            f"a {mode} division of {result.dtype}, whose value in ATen's CPU kernel "
            "depends on the layout (its vectorised and scalar loops round differently)"
        )
    check = _numeric if floating else _integral
    for value in [result, *node.args[:2]]:
        value = value.meta.get("val") if isinstance(value, fx.Node) else value
        if not check(value):
            kind = value.dtype if isinstance(value, torch.Tensor) else type(value).__name__
            return f"a floor division or remainder of {kind} (integers or floats only)"
    return None


def _numeric(value: object) -> bool:
    """An integer or floating tensor or a Python int or float (not a bool)."""
    if isinstance(value, torch.Tensor):
        return value.dtype.is_floating_point or _integral(value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def _integral(value: object) -> bool:
    """An integer tensor or a Python int (bool, in either form, is not one)."""
    if isinstance(value, torch.Tensor):
        return _is_integer(value.dtype) and value.dtype != torch.bool
    return isinstance(value, int) and not isinstance(value, bool)


def _is_remainder(node: fx.Node) -> bool:
    remainder = torch.ops.aten.remainder
    return node.target in (remainder.Tensor, remainder.Scalar, remainder.Scalar_Tensor)


def _rounding_mode(node: fx.Node) -> object:
    """A division node's rounding mode: "floor" for floor_divide and remainder."""
    if node.target in (torch.ops.aten.div.Tensor_mode, torch.ops.aten.div.Scalar_mode):
        return node.args[2] if len(node.args) > 2 else node.kwargs.get("rounding_mode")
    return "floor"


def convert_rounded_division(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.div(a, b, rounding_mode=...) (`rounded_division`): "floor" is
    `hl.floor_divide`. "trunc" of integers rounds toward zero, which is the floor
    quotient plus one where the division is inexact and the operands' signs differ; of
    floats it is ATen's `trunc(a / b)`, the operands rounded to the result dtype and
    divided in f32 for half types (`div_trunc_kernel`)."""
    result = cx.dtype(node)
    a, b = _operands(cx, node, result, 2)
    if result.is_floating_point and _rounding_mode(node) == "trunc":
        wide = element_type(opmath_dtype(result))
        quotient = cx.emit(hl.DivOp(cx.cast(a, wide), cx.cast(b, wide)))
        return cx.cast(cx.emit(hl.TruncOp(quotient)), element_type(result))
    quotient = cx.emit(hl.FloorDivideOp(a, b))
    if _rounding_mode(node) == "floor":
        return quotient
    element = element_type(cx.dtype(node))
    shape = cx.shape(node)
    zero = cx.constant(0, element)
    inexact = emit_compare(cx, "ne", cx.emit(hl.RemainderOp(a, b)), zero, shape)
    a_negative = emit_compare(cx, "lt", a, zero, a.type.get_shape())  # type: ignore[union-attr]
    b_negative = emit_compare(cx, "lt", b, zero, b.type.get_shape())  # type: ignore[union-attr]
    signs_differ = emit_compare(cx, "ne", a_negative, b_negative, shape)
    adjust = cx.emit(hl.BitwiseAndOp(inexact, signs_differ))
    return cx.emit(hl.AddOp(quotient, cx.cast(adjust, element)))


def _is_integer(dtype: object) -> bool:
    return isinstance(dtype, torch.dtype) and not dtype.is_floating_point and not dtype.is_complex


def _truth(cx: ImportContext, arg: object) -> SSAValue:
    """An operand of a logical op as an i1 value: a tensor cast to bool (nonzero is
    true, NaN included, as in ATen), a Python bool (`mask ^ True`) a 0-d constant."""
    if isinstance(arg, fx.Node):
        return cx.cast(cx.value(arg), i1)
    return cx.constant(int(bool(arg)), i1)


def logical(kind: str) -> Converter:
    """aten.logical_and / logical_or / logical_xor, and bitwise_or / bitwise_xor of bools
    (with a bool number too, either side: `mask | False`, `True ^ mask`): both operands
    as bools (`_truth`), then `where(a, b, false)`, `where(a, true, b)` or `a != b`; the
    result is a bool."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        a, b = (_truth(cx, arg) for arg in node.args[:2])
        if kind == "xor":
            return emit_compare(cx, "ne", a, b, cx.shape(node))
        operands = [a, b, cx.constant(0, i1)] if kind == "and" else [a, cx.constant(1, i1), b]
        return cx.emit(hl.WhereOp(operands=operands, result_types=[cx.tensor_type(node)]))

    return convert


def convert_where(cx: ImportContext, node: fx.Node) -> SSAValue:
    condition = cx.cast(cx.value(node.args[0]), i1)
    dtype = cx.dtype(node)
    element = element_type(dtype)
    branches = []
    for arg in node.args[1:3]:
        if isinstance(arg, fx.Node):
            branches.append(cx.cast(cx.value(arg), element))
        else:
            branches.append(_scalar(cx, arg, element, dtype))
    op = hl.WhereOp(operands=[condition, *branches], result_types=[cx.tensor_type(node)])
    return cx.emit(op)


def reduction(op_class: type[hl.ReductionOp]) -> Converter:
    """sum/mean/amax over a dim list; a `dtype=` argument is a cast of the input first."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        x = cx.cast(cx.value(node.args[0]), element_type(cx.dtype(node)))
        dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", [])
        keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
        dims = [] if dims is None else list(dims)
        return cx.emit(op_class(x, [int(d) for d in dims], bool(keepdim), cx.tensor_type(node)))

    return convert


def convert_arg_reduction(op_class: type[hl.ArgReductionOp]) -> Converter:
    """argmax/argmin(x, dim=None, keepdim=False): the i64 position along `dim`, or in
    the flattened input."""

    def convert(cx: ImportContext, node: fx.Node) -> SSAValue:
        dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
        keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
        dims = [] if dim is None else [int(dim)]  # type: ignore[arg-type]
        return cx.emit(op_class(cx.value(node.args[0]), dims, bool(keepdim)))

    return convert


def convert_any_all(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.any / aten.all (whole tensor, one dim or a dim list): whether any (every)
    element is nonzero, as the maximum (minimum) of `x != 0` taken as 0.0 / 1.0, then
    compared with 0. NaN is nonzero, as in torch. Exact: the reduced values are 0 and 1."""
    x = cx.value(node.args[0])
    shape = x.type.get_shape()  # type: ignore[union-attr]
    element = x.type.get_element_type()  # type: ignore[union-attr]
    nonzero = emit_compare(cx, "ne", x, cx.constant(0, element), shape)
    as_float = cx.cast(nonzero, element_type(torch.float32))
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    keepdim = bool(node.args[2]) if len(node.args) > 2 else bool(node.kwargs.get("keepdim"))
    dims = [] if dims is None else [int(dims)] if isinstance(dims, int) else [int(d) for d in dims]
    reduced_shape = cx.shape(node)
    if any(shape[d] == 0 for d in dims or range(len(shape))):  # no element: any False, all True
        return cx.constant(int(node.target not in ANY), element_type(torch.bool), reduced_shape)
    op_class = hl.AmaxOp if node.target in ANY else hl.AminOp
    result_type = TensorType(element_type(torch.float32), list(reduced_shape))
    reduced = cx.emit(op_class(as_float, dims, keepdim, result_type))
    return emit_compare(
        cx, "ne", reduced, cx.constant(0.0, element_type(torch.float32)), reduced_shape
    )


ANY = (torch.ops.aten.any.default, torch.ops.aten.any.dim, torch.ops.aten.any.dims)
"""The `any` overloads (the `all` ones reduce with the minimum)."""


def convert_softmax(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten._softmax(x, dim, half_to_float): the input in the result dtype, then softmax."""
    x = cx.cast(cx.value(node.args[0]), element_type(cx.dtype(node)))
    return cx.emit(hl.SoftmaxOp(x, int(node.args[1])))


def convert_safe_softmax(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten._safe_softmax(x, dim): softmax, except that a row whose every score is -inf
    (a fully masked attention row) is 0 rather than NaN: `where(amax == -inf, 0,
    softmax)`, the row maximum being -inf exactly when every score is."""
    element = element_type(cx.dtype(node))
    x = cx.cast(cx.value(node.args[0]), element)
    dim = int(node.args[1])  # type: ignore[arg-type]
    probabilities = cx.emit(hl.SoftmaxOp(x, dim))
    peak = cx.emit(hl.AmaxOp(x, [dim], True))
    assert isinstance(peak.type, TensorType)
    minus_infinity = cx.constant(float("-inf"), element)
    masked = emit_compare(cx, "eq", peak, minus_infinity, peak.type.get_shape())
    zero = cx.constant(0.0, element)
    where = hl.WhereOp(operands=[masked, zero, probabilities], result_types=[probabilities.type])
    return cx.emit(where)


def convert_full(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.full / full_like / scalar_tensor: a splat constant of the node's shape and dtype.
    A bool fill is the number's truth, as ATen's `Scalar::to<bool>()` reads it (0.5 and -2
    are True), not its integer part."""
    dtype = cx.dtype(node)
    fill = node.args[1] if node.target != torch.ops.aten.scalar_tensor.default else node.args[0]
    value = cx.scalar(fill)  # a literal, or a size or its float computed in the graph
    if dtype.is_floating_point:
        literal: int | float = float(value)
    else:
        literal = int(bool(value)) if dtype == torch.bool else int(value)
    return cx.constant(literal, element_type(dtype), cx.shape(node))
