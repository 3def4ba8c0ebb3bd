"""Floating floor division, remainder and truncating division compile in lumir and give
eager's bits (`hl.floor_divide` / `hl.remainder` of floats run ATen's own kernel;
`div(rounding_mode="trunc")` of f32 is ATen's `trunc(a / b)`). A half floor or
truncating division stays in eager: ATen's CPU kernel gives it one value in its
vectorised loop and another in its scalar one, so eager's value depends on the layout.

DETR's sine position embedding (and the DETR family's: Conditional, DAB, Deformable,
Mask2Former) writes `torch.div(dim_t, 2, rounding_mode="floor")` of a float range;
before, every floating one ran in eager and split the graph around it.
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from test_backend_fmod_bits import VALUES as FMOD_VALUES

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.backend import LumirFallbackWarning
from lumir.testing.bits import assert_eagers_bits as _check
from lumir.testing.bits import assert_same_bits

VALUES = [*FMOD_VALUES, 0.3, 0.1 * 3, 6.0000005, -5.9999995]
"""fmod's special values, and quotients near an integer (0.3 / 0.1 is not 3)."""
DTYPES = [torch.float32, torch.bfloat16, torch.float16]

HALF_DIVISIONS = ("floor_divide", "floordiv-operator", "div-floor", "div-trunc")
"""The divisions a half result keeps in eager (named in the fallback warning)."""

DIVISIONS = {
    "floor_divide": lambda a, b: torch.floor_divide(a, b),
    "floordiv-operator": lambda a, b: a // b,
    "div-floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div-trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "remainder": lambda a, b: torch.remainder(a, b),
    "mod-operator": lambda a, b: a % b,
}


@torch.no_grad()
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(DIVISIONS))
def test_floating_division_by_a_tensor_is_eagers_value(name: str, dtype: torch.dtype) -> None:
    """Every pair of special and ordinary values (400: vectorised loop and scalar tail)."""
    values = torch.tensor(VALUES, dtype=dtype)
    if dtype != torch.float32 and name in HALF_DIVISIONS:
        return _check_kept_in_eager(DIVISIONS[name], values[:, None], values[None, :])
    _check(DIVISIONS[name], values[:, None], values[None, :])


@torch.no_grad()
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("divisor", [2, 0.1, -0.7, 0.0, 3])
@pytest.mark.parametrize("name", sorted(DIVISIONS))
def test_floating_division_by_a_number_is_eagers_value(
    name: str, divisor: float, dtype: torch.dtype
) -> None:
    """ATen rounds the number to the tensor's dtype (0.1 in bf16 is 0.10009765625)."""
    x = torch.tensor(VALUES * 2, dtype=dtype) * torch.linspace(-9, 9, 2 * len(VALUES)).to(dtype)
    if dtype != torch.float32 and name in HALF_DIVISIONS:
        return _check_kept_in_eager(lambda a: DIVISIONS[name](a, divisor), x)
    _check(lambda a: DIVISIONS[name](a, divisor), x)
    _check(lambda a: DIVISIONS[name](divisor * 3.5, a + 1), x)


def _check_kept_in_eager(fn, *args: torch.Tensor) -> None:
    """`fn` compiled gives eager's bits, its division named in the fallback warning."""
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(fn, backend="lumir")(*args)
    messages = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert len(messages) == 1, messages
    assert "vectorised and scalar loops round differently" in messages[0], messages
    assert_same_bits(got, fn(*args))


@torch.no_grad()
def test_an_integer_tensor_divided_by_a_float_number_is_a_float_division() -> None:
    """`arange(8) // 2.5`: the result is float (ATen promotes), computed as floats."""
    x = torch.arange(-8, 8)
    _check(
        lambda a: (a // 2.5, torch.remainder(a, -1.5), torch.div(a, 0.75, rounding_mode="trunc")), x
    )


@torch.no_grad()
def test_a_detr_sine_position_embedding_compiles_whole() -> None:
    """DETR's `DetrSinePositionEmbedding`: cumulative sums of a mask, a float range
    floor-divided by 2, powers of the temperature, sin and cos."""

    def embed(mask: torch.Tensor) -> torch.Tensor:
        y = mask.cumsum(1, dtype=torch.float32)
        x = mask.cumsum(2, dtype=torch.float32)
        y = y / (y[:, -1:, :] + 1e-6) * 2 * math.pi
        x = x / (x[:, :, -1:] + 1e-6) * 2 * math.pi
        dim_t = torch.arange(16, dtype=torch.int64).float()
        dim_t = 10000 ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / 16)
        px, py = x[:, :, :, None] / dim_t, y[:, :, :, None] / dim_t
        px = torch.stack((px[..., 0::2].sin(), px[..., 1::2].cos()), dim=4).flatten(3)
        py = torch.stack((py[..., 0::2].sin(), py[..., 1::2].cos()), dim=4).flatten(3)
        return torch.cat((py, px), dim=3).permute(0, 3, 1, 2)

    mask = torch.ones(2, 5, 7, dtype=torch.int64)
    mask[1, 3:, 4:] = 0
    _check(embed, mask)
