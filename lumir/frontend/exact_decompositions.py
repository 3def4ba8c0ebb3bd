"""Decompositions lumir writes itself for ops whose torch reference needs a dtype or a
prim that lumir does not import, each giving eager's result bit for bit.

- `eye`: torch's reference counts in the smallest integer type that holds literal sizes
  (uint8 below 256), which lumir does not import;
- `fmod` of integers: torch's reference is `prims.fmod`, which the table does not
  import; the remainder of a division rounded toward zero is exact for integers (a
  float `fmod` is not: `a - trunc(a / b) * b` rounds; the table imports it as
  `hl.fmod`, whose type takes floats only, an integer fmod by zero raising in torch);
- `round` with `decimals`: torch's reference writes `prims.mul` and `prims.round`;
- `prod` of integers or bools: torch's reference is `prims.prod`; an integer product
  is the same in any order (wrapping too), so it is the last element of a `cumprod`
  (a floating one depends on ATen's reduction order and stays in eager).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from lumir.frontend.dtypes import opmath_dtype

aten = torch.ops.aten


def _eye(
    n: int,
    m: int | None = None,
    *,
    dtype: torch.dtype | None = None,
    layout: torch.layout | None = None,
    device: torch.device | None = None,
    pin_memory: bool | None = False,
) -> object:
    """aten.eye (both overloads) as `arange(n)[:, None] == arange(m)` in int64, cast to
    the dtype: exact, and contiguous as ATen's. A sparse or pinned one is left alone."""
    if layout not in (None, torch.strided) or pin_memory:
        return NotImplemented
    rows = torch.arange(n, dtype=torch.int64, device=device)
    columns = torch.arange(n if m is None else m, dtype=torch.int64, device=device)
    return (rows.unsqueeze(-1) == columns).to(dtype or torch.get_default_dtype())


def _integer_fmod(x: torch.Tensor, other: object) -> object:
    """aten.fmod (Tensor or Scalar) of integers as `x - trunc(x / other) * other`: the
    C remainder, with the dividend's sign. A division by zero raises as ATen's does
    (the integer division's own check). A floating result is left alone."""
    result = torch.result_type(x, other)  # type: ignore[arg-type]
    if result.is_floating_point or result.is_complex or result == torch.bool:
        return NotImplemented
    quotient = torch.div(x, other, rounding_mode="trunc")  # type: ignore[arg-type]
    return x - quotient * other


def _round_decimals(x: torch.Tensor, *, decimals: int) -> object:
    """aten.round.decimals as ATen's kernel computes it, in f32 for half inputs:
    `nearbyint(x * 10**d) / 10**d`, or `nearbyint(x / 10**-d) * 10**-d` for a negative
    `d` (both steps rounded in that dtype; 10**d is exact in f32 up to d = 10)."""
    if not x.dtype.is_floating_point:
        return NotImplemented
    compute = opmath_dtype(x.dtype)
    wide, scale = x.to(compute), float(10 ** abs(decimals))
    if decimals >= 0:
        return (torch.round(wide * scale) / scale).to(x.dtype)
    return (torch.round(wide / scale) * scale).to(x.dtype)


def _integer_prod_along(
    x: torch.Tensor, dim: int, keepdim: bool, dtype: torch.dtype | None
) -> object:
    """aten.prod.dim_int of an integer or bool tensor (Qwen2-VL counts its patches with
    `grid_thw.prod(-1)`): the last element of `cumprod` along `dim`, in the result
    dtype (int64 unless `dtype` says otherwise, as ATen promotes). A floating input or
    result, a 0-d input or an empty dimension (whose product is 1) is left alone."""
    result = dtype or (x.dtype if x.dtype.is_floating_point else torch.int64)
    if x.dtype.is_floating_point or result.is_floating_point or result == torch.bool:
        return NotImplemented
    if x.dim() == 0 or (isinstance(x.shape[dim], int) and x.shape[dim] == 0):
        return NotImplemented
    running = torch.cumprod(x, dim, dtype=result)
    last = running.narrow(dim, running.shape[dim] - 1, 1)
    return last if keepdim else last.squeeze(dim)


def _integer_prod(
    x: torch.Tensor,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    dtype: torch.dtype | None = None,
) -> object:
    """aten.prod (`.default`, the whole tensor, or `.dim_int`) of an integer or bool
    tensor (`_integer_prod_along`)."""
    if dim is not None:
        return _integer_prod_along(x, dim, keepdim, dtype)
    if x.dim() == 0:
        return NotImplemented
    return _integer_prod_along(x.reshape(-1), 0, False, dtype)


EXACT_DECOMPOSITIONS: dict[object, Callable[..., object]] = {
    aten.eye.default: _eye,
    aten.eye.m: _eye,
    aten.fmod.Tensor: _integer_fmod,
    aten.fmod.Scalar: _integer_fmod,
    aten.round.decimals: _round_decimals,
    aten.prod.default: _integer_prod,
    aten.prod.dim_int: _integer_prod,
}
"""Overload -> lumir's exact decomposition of it."""
