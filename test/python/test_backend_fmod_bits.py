"""A floating `torch.fmod` compiles (`hl.fmod`, torch's fmod kernel on each device) and
is eager's value bit for bit: the sign of the dividend on every result, zero included,
NaN for a zero divisor or an infinite dividend, the dividend itself for an infinite
divisor. A number divisor of a half tensor is rounded to the half type first, as
ATen's kernel reads both operands in the tensor's dtype (`torch.fmod(x, 0.7)` of a bf16
x divides by 0.69921875). Before, a floating fmod had no import rule and ran in eager
(an integer one is lumir.frontend.exact_decompositions' truncating division)."""

from __future__ import annotations

import pytest
import torch

from lumir.testing.bits import assert_eagers_bits as _check

VALUES = [
    0.0,
    -0.0,
    float("inf"),
    float("-inf"),
    float("nan"),
    1.0,
    -1.0,
    1e-40,
    -2.5,
    3.0,
    7.3,
    -0.7,
    3.0e38,
    1e30,
    -1e-30,
    65504.0,
]
"""Special values, both signs, a subnormal (zero in f16), values the half types cannot
hold, and quotients far beyond what a float counts exactly (1e30 / 0.7)."""

DTYPES = [torch.float32, torch.bfloat16, torch.float16]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_fmod_of_tensors_is_eagers_value(dtype: torch.dtype, dynamic: bool) -> None:
    values = torch.tensor(VALUES * 2, dtype=dtype)  # 32: vectorised loop and scalar tail
    _check(lambda x, y: torch.fmod(x * 1, y), values[:, None], values[None, :], dynamic=dynamic)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("divisor", [0.7, -0.7, 0.0, -0.0, float("inf"), -2.5, 1e-3, 3])
def test_fmod_by_a_number_reads_it_in_the_tensors_dtype(
    dtype: torch.dtype, divisor: float, dynamic: bool
) -> None:
    x = torch.tensor(VALUES * 2, dtype=dtype)
    _check(lambda x: torch.fmod(x + 0, divisor), x, dynamic=dynamic)


def test_fmod_of_mixed_operands_promotes_as_eager() -> None:
    """An integer tensor by a number is an f32 fmod; a bf16 tensor by an f32 one is f32;
    a bf16 tensor by a 0-d f32 tensor stays bf16, the 0-d divisor cast to bf16."""
    x = torch.tensor(VALUES * 2)
    integers = torch.arange(-16, 16)
    _check(lambda i: torch.fmod(i * 3, 0.7), integers)
    _check(lambda a, b: torch.fmod(a.bfloat16() * 1, b), x, x.flip(0))
    _check(lambda a, b: torch.fmod(a * 1, b), x.bfloat16(), torch.tensor(0.7))
