"""An integer (or bool) `prod` compiles in lumir and gives eager's value; a floating one
stays in eager, named.

Qwen2-VL's vision tower counts its patches per image with `grid_thw.prod(-1)`; before,
every `prod` ran in eager. An integer product is the same in any order (wrapping
included), so it is the last element of `cumprod` along the dimension
(lumir.frontend.exact_decompositions); a floating one depends on ATen's reduction order.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.backend import LumirFallbackWarning
from lumir.testing.bits import assert_eagers_bits as _check

PRODUCTS = {
    "last-dim": lambda x: x.prod(-1),
    "first-dim-keepdim": lambda x: torch.prod(x, 0, keepdim=True),
    "whole": lambda x: x.prod(),
    "as-int32": lambda x: x.prod(1, dtype=torch.int32),
    "wrapping": lambda x: (x * 1000003).prod(1),
}


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_an_integer_product_is_eagers(name: str, dtype: torch.dtype) -> None:
    """(A bool times 1000003 is an int64: "wrapping" of a bool is an int64 product.)"""
    x = torch.randint(-4, 5, (3, 5, 2), generator=torch.Generator().manual_seed(2))
    _check(PRODUCTS[name], x.to(dtype))


@torch.no_grad()
def test_qwen2_vl_counts_its_patches_per_image() -> None:
    """`cu_seqlens` from `grid_thw`: repeat_interleave aside, the prod and the cumsum."""
    grid = torch.tensor([[1, 4, 4], [2, 6, 8]])
    _check(lambda g: torch.cumsum(g.prod(-1) * 2, 0, dtype=torch.int32), grid)


@torch.no_grad()
def test_a_floating_product_stays_in_eager() -> None:
    torch._dynamo.reset()
    x = torch.randn(3, 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(lambda x: x.prod(1) + 1, backend="lumir")(x)
    messages = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert len(messages) == 1 and "aten.prod.dim_int" in messages[0], messages
    assert torch.equal(got, x.prod(1) + 1)
