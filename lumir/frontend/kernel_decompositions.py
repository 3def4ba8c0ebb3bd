"""Decompositions that compute what ATen's CPU kernel computes where torch's reference
decomposition gives another value (a zero of the other sign, a bound read at another
precision). Each was found by comparing compiled and eager values bit for bit on
special operands (docs/backend.md, next to pow's special forms).

- `clamp` with tensor bounds is, in ATen, `maximum` then `minimum`: its CPU kernel
  calls the same vectorised `maximum`/`minimum`, which on a tie of zeros return the
  second operand (`clamp(0.0, min=-0.0)` is -0; a scalar tail element returns the
  first, in both). torch's reference is a `where` that keeps the input on every tie;
  lumir now emits `maximum` and `minimum`, whose kernels are eager's;
- `clamp` with number bounds of a half tensor compares with the bounds rounded to the
  half type (the kernel's `min.to<scalar_t>()`), so `clamp(-0.0, min=1e-8)` of an f16
  tensor is -0 (the bound is 0 there). torch's reference compares in f32 with the
  unrounded bound (+0 then);
- `softshrink` is, in the CPU kernel's vectorised loop (and in the CUDA kernel), +0
  where |x| <= lambd, and NaN where x is. torch's reference, `x * 0` there, gives -0
  for a negative x. torch decomposes it while tracing (a `py_impl` of its Autograd
  key), before any decomposition table is asked, so `softshrink` here is a call that
  lumir.frontend.decompositions.with_eager_layouts puts in the graph in its place.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch._refs import clamp as _reference_clamp
from torch._subclasses.fake_tensor import unset_fake_temporarily
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing

from lumir.frontend.dtypes import HALF_DTYPES, opmath_dtype

aten = torch.ops.aten


def rounded_scalar(value: object, dtype: torch.dtype) -> object:
    """A Python float as ATen's `Scalar::to<dtype>()` reads it (through f32, as c10's
    half types convert), for a half `dtype`; anything else as it is (an int, a symbolic
    number, a float of an f32 or wider tensor). Computed on real tensors, outside the
    tracing modes a decomposition runs under."""
    if dtype not in HALF_DTYPES or not isinstance(value, float):
        return value
    with unset_fake_temporarily(), disable_proxy_modes_tracing():
        return torch.tensor(value, dtype=torch.float32).to(dtype).item()


def _clamp(x: torch.Tensor, min: object = None, max: object = None) -> object:
    """aten.clamp (both overloads), clamp_min and clamp_max, as the CPU kernel computes
    them: tensor bounds through `maximum`/`minimum`, number bounds of a half tensor
    rounded to it first, then torch's reference (a `where` that keeps NaN)."""
    bounds = [bound for bound in (min, max) if bound is not None]
    if bounds and all(isinstance(bound, torch.Tensor) for bound in bounds):
        result = x
        if min is not None:
            result = torch.maximum(result, min)  # type: ignore[arg-type]
        if max is not None:
            result = torch.minimum(result, max)  # type: ignore[arg-type]
        return result
    if x.dtype.is_floating_point:
        min, max = rounded_scalar(min, x.dtype), rounded_scalar(max, x.dtype)
    return _reference_clamp(x, min, max)  # type: ignore[arg-type]


def _clamp_min(x: torch.Tensor, min: object) -> object:
    return _clamp(x, min=min)


def _clamp_max(x: torch.Tensor, max: object) -> object:
    return _clamp(x, max=max)


def softshrink(x: torch.Tensor, lambd: float = 0.5) -> torch.Tensor:
    """`F.softshrink` as ATen's CPU kernel computes it in its vectorised loop: in f32
    for a half tensor with the unrounded `lambd`, x - lambd above it, x + lambd below
    -lambd (so a NaN, for which neither comparison holds, is x + lambd: NaN), else +0.
    The loop's scalar tail (the last elements of a row shorter than a vector, or of a
    strided tensor) computes the `x * 0` of torch's reference instead; the CUDA kernel
    gives +0 as here. The lambd check is torch's (`F.softshrink` raises on a negative
    one); a tensor that is not floating is left to ATen (which refuses it)."""
    if not x.dtype.is_floating_point:
        return torch._C._nn.softshrink(x, lambd)
    torch._check(
        0 <= lambd <= torch.finfo(x.dtype).max,
        lambda: (
            f"lambda must be in range [0, {torch.finfo(x.dtype).max}] for input dtype "
            f"{x.dtype}, but found {lambd}"
        ),
    )
    wide = x.to(opmath_dtype(x.dtype))
    shrunk = torch.where(wide > lambd, wide - lambd, wide + lambd)
    return torch.where(wide.abs() <= lambd, 0.0, shrunk).to(x.dtype)


KERNEL_DECOMPOSITIONS: dict[object, Callable[..., object]] = {
    aten.clamp.default: _clamp,
    aten.clamp.Tensor: _clamp,
    aten.clamp_min.default: _clamp_min,
    aten.clamp_min.Tensor: _clamp_min,
    aten.clamp_max.default: _clamp_max,
    aten.clamp_max.Tensor: _clamp_max,
}
"""Overload -> lumir's decomposition of it that follows ATen's CPU kernel."""
