"""aten.linspace as ATen's kernels compute it, each element from the nearer end.

ATen (RangeFactoriesKernel.cpp on the CPU, RangeFactories.cu) reads `start` and `end`
in the result dtype, computes `step = (end - start) / (steps - 1)` in it, and element i
as `start + step * i` below `steps // 2`, `end - step * (steps - 1 - i)` from there on,
each operation in the result dtype. A half type's arithmetic is c10's: every operation
(the product with `i` converted to the half type too) rounds to it, so the same `hl`
ops in that dtype give its bits. An f32 element is one fused multiply-add wherever the
compiler contracts `start + step * i` (lumir.frontend.contraction: ATen's AVX2 and
AVX512 CPU kernels, nvcc by default): rounded once, where an `hl.mul` then `hl.add`
round twice (1734 of 2000 random f32 linspaces differed in some element). ATen's
DEFAULT CPU kernels round twice, as those ops do. For the contracted kernels lumir
computes the exact value in int64 and rounds it once: start, end and step are integer
multiples of one power of two 2^E, so `start + step * i` is the integer S + T * i
times 2^E, which the cast to f32 rounds once (to nearest even) and the multiplication
by 2^E leaves exact (E >= -126 keeps every nonzero result normal).
A linspace whose integers need more than int64 (endpoints far apart in magnitude from
the step's last bit) or whose values have bits below 2^-126 is refused (it runs in
eager), as is an f32 one under another CPU capability (not checked against eager).
"""

from __future__ import annotations

import math

import torch
from torch import fx
from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue

from lumir.dialects import hl
from lumir.frontend.context import ImportContext, UnsupportedNodeError
from lumir.frontend.contraction import contracted
from lumir.frontend.dtypes import element_type
from lumir.frontend.elementwise import emit_compare

_SMALLEST_EXPONENT = -126
"""The exponent of f32's smallest normal number: with 2^E at or above it, every nonzero
multiple of 2^E that the int64 path produces is a normal f32, so scaling by 2^E after
the rounding cast is exact."""


def _in(dtype: torch.dtype, value: object) -> torch.Tensor:
    """`value` as ATen's `Scalar::to<scalar_t>()` reads it (a half type through f32),
    a 0-d tensor of `dtype` whose arithmetic rounds as the kernel's does."""
    return torch.tensor(value, dtype=torch.float32).to(dtype)


def ends_and_step(start: object, end: object, steps: int, dtype: torch.dtype) -> list[float]:
    """start, end and step in `dtype`, as the kernel computes them (steps >= 2)."""
    first, last = _in(dtype, start), _in(dtype, end)
    step = (last - first) / _in(dtype, steps - 1)
    return [float(t) for t in (first, last, step)]


def _integer_terms(values: list[float], steps: int) -> tuple[int, list[int]] | str:
    """(E, the integers `values` are of 2^E) for finite f32 values, or why int64 cannot
    hold the products: E is the lowest exponent of a set bit among them."""
    exponents = []
    for value in values:
        if value != 0:
            mantissa, exponent = math.frexp(value)
            integer, exponent = int(mantissa * 2**24), exponent - 24
            exponents.append(exponent + ((integer & -integer).bit_length() - 1))
    scale = min(exponents, default=0)
    if scale < _SMALLEST_EXPONENT:
        return f"a linspace with bits below 2^{_SMALLEST_EXPONENT} ({values})"
    integers = [int(math.ldexp(value, -scale)) for value in values]
    first, last, step = integers
    if max(abs(first), abs(last)) + abs(step) * (steps - 1) >= 2**63:
        return f"a linspace whose exact values need more than int64 ({values}, {steps} steps)"
    return scale, integers


def linspace_check(node: fx.Node) -> str | None:
    """A floating result of numbers (a size is one: `_numbers_from_sizes` in the table
    checks it); an f32 one where lumir knows how ATen's kernel rounds it, and, with
    literal arguments, whose exact values int64 holds."""
    result = node.meta.get("val")
    if not isinstance(result, torch.Tensor) or not result.dtype.is_floating_point:
        return "a linspace that is not of a floating dtype"
    args = [a.meta.get("val") if isinstance(a, fx.Node) else a for a in node.args[:3]]
    if not all(isinstance(a, int | float | torch.SymInt | torch.SymFloat) for a in args):
        return f"a linspace of {args}"
    if result.dtype != torch.float32:
        return None
    fused = contracted(node)
    if isinstance(fused, str):
        return fused
    if fused and all(isinstance(a, int | float) for a in args):
        steps = int(args[2])  # type: ignore[arg-type]
        values = ends_and_step(args[0], args[1], steps, result.dtype) if steps > 1 else []
        if all(math.isfinite(v) for v in values) and steps > 1:
            terms = _integer_terms(values, steps)
            return terms if isinstance(terms, str) else None
    return None


def convert_linspace(cx: ImportContext, node: fx.Node) -> SSAValue:
    """aten.linspace(start, end, steps): no element for 0 steps, `start` for 1 (ATen
    fills), else the two-ended formula (module docstring) over an `hl.arange`."""
    dtype, shape = cx.dtype(node), cx.shape(node)
    element = element_type(dtype)
    start, end = (cx.scalar(a) for a in node.args[:2])
    steps = cx.integer(node.args[2])
    if steps <= 1:
        return cx.constant(float(_in(dtype, start)), element, shape)
    values = ends_and_step(start, end, steps, dtype)
    index = cx.emit(hl.ArangeOp(0, steps, 1, i64))
    from_end = cx.emit(hl.SubOp(cx.constant(steps - 1, i64), index))
    lower = emit_compare(cx, "lt", index, cx.constant(steps // 2, i64), shape)
    counts = (index, from_end)
    finite = all(math.isfinite(v) for v in values)
    if dtype != torch.float32 or not finite or contracted(node) is not True:
        # a non-finite end or step: the fused form rounds as the two roundings do
        return _rounded_twice(cx, lower, counts, values, element)
    terms = _integer_terms(values, steps)
    if isinstance(terms, str):
        raise UnsupportedNodeError(terms)
    scale, (first, last, step) = terms
    near_start = cx.emit(hl.AddOp(cx.constant(first, i64), _times(cx, step, index)))
    near_end = cx.emit(hl.SubOp(cx.constant(last, i64), _times(cx, step, from_end)))
    exact = _select(cx, lower, near_start, near_end)
    rounded_once = cx.emit(hl.MulOp(cx.cast(exact, element), cx.constant(2.0**scale, element)))
    if not any(v == 0 and math.copysign(1, v) < 0 for v in values[:2]):
        return rounded_once
    # A -0.0 end: where the exact value is zero, its sign is the sum's of two signed
    # zeros, which the two roundings also give (the product is exact there).
    zero = emit_compare(cx, "eq", exact, cx.constant(0, i64), shape)
    return _select(cx, zero, _rounded_twice(cx, lower, counts, values, element), rounded_once)


def _times(cx: ImportContext, factor: int, count: SSAValue) -> SSAValue:
    return cx.emit(hl.MulOp(cx.constant(factor, i64), count))


def _select(cx: ImportContext, condition: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return cx.emit(hl.WhereOp(operands=[condition, a, b], result_types=[a.type]))


def _rounded_twice(
    cx: ImportContext,
    lower: SSAValue,
    counts: tuple[SSAValue, SSAValue],
    values: list[float],
    element: object,
) -> SSAValue:
    """start + step * i below halfway, end - step * (steps - 1 - i) from there, each
    operation rounded to `element` (the count converted to it first, as c10's half
    types and the f32 kernel convert the int64)."""
    first, last, step = (cx.constant(v, element) for v in values)  # type: ignore[arg-type]
    index, from_end = (cx.cast(count, element) for count in counts)  # type: ignore[arg-type]
    near_start = cx.emit(hl.AddOp(first, cx.emit(hl.MulOp(step, index))))
    near_end = cx.emit(hl.SubOp(last, cx.emit(hl.MulOp(step, from_end))))
    return _select(cx, lower, near_start, near_end)
