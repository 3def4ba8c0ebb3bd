"""`torch.cumprod` compiles (`hl.cumprod`, torch's kernel on each device) and is eager's
value bit for bit. ATen's CPU kernel accumulates an f32 product in double and a half one
in f32, rounding each output from the accumulated value, so no composition of f32 `hl`
products gives its bits (a running f32 product differs from it in 6 of 21 elements of a
3 x 7 tensor); before, it had no import rule and ran in eager. `torch.cumsum` shares the
converter (`lumir.frontend.generators.cumulative`) and the executors' binding: its cases
here passed before and guard that it still gives eager's bits."""

from __future__ import annotations

import pytest
import torch

from lumir.testing.bits import assert_eagers_bits as _check

VALUES = [1.5, -0.0, 0.0, float("inf"), -2.0, float("nan"), 1e-20, -1e20, 0.7, 3.0, -0.3]
"""Zeros of both signs (a product's sign), infinities, a NaN, products that underflow
and overflow, and values that round."""

DTYPES = [torch.float32, torch.bfloat16, torch.float16]
FUNCTIONS = {"cumprod": torch.cumprod, "cumsum": torch.cumsum}


def _rows(dtype: torch.dtype) -> torch.Tensor:
    """Rows of special values and rows of random ones (long enough for rounding to
    accumulate), 3 x 40."""
    generator = torch.Generator().manual_seed(0)
    special = torch.tensor((VALUES * 4)[:40])
    random = torch.rand(2, 40, generator=generator) + 0.55
    return torch.cat([special[None], random]).to(dtype)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [1, 0, -1])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_running_reduction_is_eagers_value(
    name: str, dim: int, dtype: torch.dtype, dynamic: bool
) -> None:
    function = FUNCTIONS[name]
    _check(lambda x: function(x * 1, dim), _rows(dtype), dynamic=dynamic)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_running_reduction_promotes_as_eager(name: str) -> None:
    """With `dtype=` the input is cast first (a bf16 tensor multiplied in f32); an
    integer or bool input counts in int64, as ATen promotes it."""
    function = FUNCTIONS[name]
    x = _rows(torch.float32)
    _check(lambda x: function(x.bfloat16(), 1, dtype=torch.float32), x)
    _check(lambda x: function((x * 3).int(), -1), x.nan_to_num()[1:])
    _check(lambda x: function((x * 5).long() - 4, 1), x.nan_to_num()[1:])
    _check(lambda x: function(x > 1, 1), x)
