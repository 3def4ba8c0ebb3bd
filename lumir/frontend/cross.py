"""aten.linalg_cross (`torch.cross`, `torch.linalg.cross`) as ATen's kernels compute it.

ATen's CPU kernel (CrossKernel.cpp) writes each component as `a1 * b2 - a2 * b1` in the
result dtype. A half type's arithmetic is c10's (each product and the difference
rounded), and an integer's wraps, so `hl.mul` and `hl.sub` of the components in that
dtype give its bits. In f32 the compiler contracts the expression where it can
(lumir.frontend.contraction): under ATen's AVX2 and AVX512 CPU kernels each component
is `fma(a1, b2, -(a2 * b1))`, rounded once after the first product, which no `hl`
composition computes exactly (an exact product of two arbitrary floats needs a
splitting that overflows at the ends of the range, and a correctly rounded sum of three
terms after it), so an f32 cross there stays in eager, the warning saying why; under
the DEFAULT kernels it rounds each product and the difference, and compiles.
"""

from __future__ import annotations

import torch
from torch import fx
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import SSAValue

from lumir.dialects import hl
from lumir.frontend.context import ImportContext
from lumir.frontend.contraction import contracted
from lumir.frontend.views import slice_along


def _dim(node: fx.Node) -> int:
    dim = node.args[2] if len(node.args) > 2 else node.kwargs.get("dim", -1)
    return int(dim)  # type: ignore[arg-type]


def cross_check(node: fx.Node) -> str | None:
    """A result whose kernel arithmetic the `hl` ops reproduce: a half or integer dtype,
    or f32 where ATen's kernel does not contract (`contraction.contracted`)."""
    result = node.meta.get("val")
    if not isinstance(result, torch.Tensor) or result.dtype == torch.bool:
        return "a cross product that is not of numbers"
    if result.dtype != torch.float32:
        return None
    fused = contracted(node)
    if isinstance(fused, str):
        return fused
    if fused:
        return (
            "an f32 cross product, which ATen's kernel computes as fma(a1, b2, -(a2 * b1)) "
            "(one rounding for a product and the difference): no hl op computes it"
        )
    return None


def convert_cross(cx: ImportContext, node: fx.Node) -> SSAValue:
    """linalg_cross(a, b, dim): components i of the result are a[i+1] * b[i+2] -
    a[i+2] * b[i+1] (indices mod 3, each a size-1 slice along `dim`), each operation in
    the result dtype with ATen's broadcasting, concatenated along `dim`."""
    result = cx.tensor_type(node)
    dim = _dim(node) % len(result.get_shape())
    a, b = (cx.cast(cx.value(arg), result.element_type) for arg in node.args[:2])
    pieces = [
        (slice_along(cx, a, dim, i, i + 1, 1), slice_along(cx, b, dim, i, i + 1, 1))
        for i in range(3)
    ]
    components = []
    for i in range(3):
        (a1, b1), (a2, b2) = pieces[(i + 1) % 3], pieces[(i + 2) % 3]
        first, second = cx.emit(hl.MulOp(a1, b2)), cx.emit(hl.MulOp(a2, b1))
        components.append(cx.emit(hl.SubOp(first, second)))
    properties = {"dim": IntegerAttr(dim, i64)}
    return cx.emit(hl.CatOp(operands=[components], result_types=[result], properties=properties))
