"""A bool tensor filled with a number holds the number's truth, as in eager: ATen reads
the fill with `Scalar::to<bool>()`, so 0.5, -2 and NaN are True and only zero is False.
lumir's `convert_full` took the integer part of the fill for every non-float dtype, so
`torch.full_like(mask, 0.5)` was all False (the torch-level fuzzer's program 291 of
seed 4), and a negative fill such as -2 was no valid bool literal: the partition failed
to compile and ran in eager."""

from __future__ import annotations

import warnings

import pytest
import torch

from lumir.backend import LumirFallbackWarning

FILLS = {
    "full_like": lambda x, fill: torch.full_like(x > 0, fill),
    "new_full": lambda x, fill: (x > 0).new_full((2, x.shape[1]), fill),
    "full": lambda x, fill: torch.full((x.shape[0], 3), fill, dtype=torch.bool) & (x[:, :3] > 0),
    "fill_": lambda x, fill: (x > 0).fill_(fill),
    "scalar_tensor": lambda x, fill: torch.scalar_tensor(fill, dtype=torch.bool) | (x > 0),
}


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "mark_dynamic"])
@pytest.mark.parametrize("fill", [0.5, -2, 0.0, 3, float("nan"), -1e-30])
@pytest.mark.parametrize("name", sorted(FILLS))
def test_a_bool_fill_is_the_numbers_truth(name: str, fill: float, dynamic: bool) -> None:
    function = FILLS[name]
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: function(x, fill), backend="lumir")
    generator = torch.Generator().manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for rows in (4, 7):
            x = torch.randn(rows, 5, generator=generator)
            if dynamic:
                torch._dynamo.mark_dynamic(x, 0)
            actual, expected = compiled(x), function(x, fill)
            assert actual.dtype == expected.dtype == torch.bool
            assert torch.equal(actual, expected), f"{actual} != {expected}"
