"""clamp is eager's value bit for bit, signed zeros included
(`lumir.frontend.kernel_decompositions`).

With tensor bounds ATen's CPU clamp is `maximum` then `minimum` (their vectorised
loops return the bound on a tie of zeros, so `clamp(0.0, min=-0.0)` is -0); torch's
reference decomposition, a `where`, kept the input (+0): 2 of the f32 pairs below
differed, 40 of the f16 ones. With number bounds of a half tensor ATen rounds the bound
to the half type first: f16 `clamp(-0.0, min=1e-8)` is -0 (the bound is 0), where the
reference compared in f32 and gave the bound (+0).
"""

from __future__ import annotations

import pytest
import torch

from lumir.testing.bits import assert_eagers_bits as _check

VALUES = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0, 1e-40, 2.5, -3.0]


DTYPES = [torch.float32, torch.bfloat16, torch.float16]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bounds", ["min", "max", "both"])
def test_clamp_by_tensors_is_eagers_value(dtype: torch.dtype, bounds: str) -> None:
    values = torch.tensor(VALUES * 3, dtype=dtype)  # 30: vectorised loop and scalar tail
    x, bound = values[:, None], values[None, :]
    if bounds == "min":
        _check(lambda x, b: torch.clamp(x, min=b), x, bound)
    elif bounds == "max":
        _check(lambda x, b: torch.clamp(x, max=b), x, bound)
    else:
        _check(lambda x, b: torch.clamp(x, b, b + 1), x, bound)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bound", [1e-8, 1e-45, -1e-8, 0.1, 3e-5])
def test_clamp_by_a_number_rounds_it_to_a_half_tensor(dtype: torch.dtype, bound: float) -> None:
    x = torch.tensor(VALUES * 3, dtype=dtype)
    _check(lambda x: torch.clamp(x, min=bound), x)
    _check(lambda x: torch.clamp(x, max=bound), x)
    _check(lambda x: torch.clamp(x, -bound, bound), x)
