"""addmm, addmv and baddbmm with alpha 0: what eager returns when the matrices hold NaN or
inf (issue 10: nothing silently wrong)."""

from __future__ import annotations

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir")


def _compiled(function):
    torch._dynamo.reset()
    return torch.compile(function, backend="lumir")


def _matrices(poison: float) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(3, 4, generator=generator)
    b, bias = torch.randn(4, 5, generator=generator), torch.randn(5, generator=generator)
    a[0, 0], b[1, 2], bias[3] = poison, poison, -0.0
    return a, b, bias


@pytest.mark.parametrize("poison", [float("nan"), float("inf")])
@pytest.mark.parametrize("beta", [1.0, 0.5, 0.0])
def test_addmm_with_alpha_zero_never_reads_the_product(poison: float, beta: float) -> None:
    """ATen's addmm skips the product when alpha is 0 (BLAS's convention): the result is
    beta * bias, broadcast, its -0.0 kept, and no NaN from the matrices."""
    a, b, bias = _matrices(poison)

    def add_product(bias, a, b):
        return torch.addmm(bias, a, b, alpha=0, beta=beta)

    with torch.no_grad():
        expected, got = add_product(bias, a, b), _compiled(add_product)(bias, a, b)
    assert not got.isnan().any()
    torch.testing.assert_close(got, expected, rtol=0, atol=0)
    assert torch.equal(torch.signbit(got), torch.signbit(expected))


def test_addmv_with_alpha_zero_never_reads_the_product() -> None:
    a, b, bias = _matrices(float("nan"))

    def add_product(bias, a, v):
        return torch.addmv(bias[:3], a, v, alpha=0, beta=2.0)

    with torch.no_grad():
        expected, got = add_product(bias, a, b[:, 2]), _compiled(add_product)(bias, a, b[:, 2])
    torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_baddbmm_with_alpha_zero_propagates_nan_as_eager_does() -> None:
    """ATen's baddbmm computes 0 * product, so a NaN in the matrices does reach it."""
    a, b, bias = _matrices(float("nan"))

    def add_product(bias, a, b):
        return torch.baddbmm(bias, a[None], b[None], alpha=0)

    with torch.no_grad():
        expected, got = add_product(bias, a, b), _compiled(add_product)(bias, a, b)
    assert expected.isnan().any()
    torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)
