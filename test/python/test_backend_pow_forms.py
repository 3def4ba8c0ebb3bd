"""A tensor to the power of a number is eager's value bit for bit, signed zeros and
infinities included.

ATen computes `x ** 0.5`, `** -0.5`, `** -1`, `** 2`, `** 3` and `** -2` of an f32 or
bf16 tensor without `pow` (sqrt, rsqrt, a reciprocal, products, each rounded to the
result dtype), and lumir imports those forms (`elementwise.convert_pow_tensor_scalar`).
Imported as `hl.pow` they differed from eager in the last bit of up to a quarter of
the elements (`x * x * x` rounds twice, the CPU's vectorised `pow` is not correctly
rounded) and in sign or value at -0 and -inf (`sqrt(-0)` is -0, `sqrt(-inf)` NaN). Other
exponents, and every exponent of an f16 tensor (ATen's CPU kernel calls `pow` there),
stay `hl.pow`, which these cases check against eager too.
"""

from __future__ import annotations

import pytest
import torch

from lumir.testing.bits import assert_eagers_bits

SPECIALS = [float("-inf"), float("inf"), -0.0, 0.0, float("nan"), -1.0, 1.0, 1e-30, -3.5]


def _operand(dtype: torch.dtype) -> torch.Tensor:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(512, 8, generator=generator) * 3
    x[0, :] = torch.tensor(SPECIALS[:8])
    x[1, 0] = SPECIALS[8]
    return x.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize(
    "exponent",
    [0.5, -0.5, -1, -1.0, 2, 2.0, 3, -2, 2.5, -3, 0.25, 3.0000001, 2.001, -2.0001, 0.50000001],
)
def test_power_of_a_number_is_eagers_value(dtype: torch.dtype, exponent: float) -> None:
    def power(x: torch.Tensor) -> torch.Tensor:
        return (x + 0) ** exponent

    assert_eagers_bits(power, _operand(dtype))


def test_square_root_form_of_an_integer_tensor_is_eagers_value() -> None:
    """An integer base is promoted to the default float dtype first, then the form."""
    assert_eagers_bits(lambda x: (x * 1) ** 0.5, torch.arange(-4, 12).reshape(4, 4))
