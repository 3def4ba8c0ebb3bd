"""Two differences from eager that a bitwise sweep found (docs/backend.md, next to pow's
special forms), now eager's value bit for bit, signed zeros and NaN included.

- `torch.max(x, dim)` / `torch.min(x, dim)`: eager's values are the elements at the
  returned indices. lumir imported them as `amax` / `amin`, whose vectorised CPU loop
  may give the other zero of a tie of -0.0 and +0.0 (a third of the 64-wide rows of
  zeros below differed) and need not give the first NaN of a row; they are now the
  gather at the indices (lumir.frontend.generators.extreme_piece).
- `F.softshrink`: torch decomposes it while tracing into a `where` with `x * 0`, -0
  for a small negative x where ATen's vectorised kernel gives +0; lumir's graph calls
  its own decomposition instead (lumir.frontend.kernel_decompositions.softshrink).
  Eager is compared on rows of 64 elements, a multiple of every vector width: ATen's
  scalar tail past the vectorised loop computes `x * 0` itself.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from lumir.backend import LumirFallbackWarning
from lumir.testing.bits import assert_eagers_bits, assert_same_bits

DTYPES = [torch.float32, torch.bfloat16, torch.float16]

NAN = float("nan")


def _zero_ties(dtype: torch.dtype, rows: int, width: int) -> torch.Tensor:
    """Rows of -0.0 and +0.0 in a seeded order, some with a negative number, an
    infinity or NaNs of both signs among them: every row's extreme is a tie of zeros
    or a NaN."""
    generator = torch.Generator().manual_seed(width)
    signs = torch.randint(0, 2, (rows, width), generator=generator)
    x = torch.where(signs == 1, -0.0, 0.0)
    x[1, 3] = -1.0
    x[2, width // 2] = float("-inf")
    x[3, 5], x[3, 9] = -NAN, NAN
    x[4, 2], x[4, 7] = NAN, -NAN
    return x.to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("width", [64, 17])
@pytest.mark.parametrize("extreme", [torch.max, torch.min])
def test_max_and_min_along_a_dim_are_the_elements_at_their_indices(dtype, width, extreme):
    x = _zero_ties(dtype, 12, width)
    assert_eagers_bits(lambda a: extreme(a, 1), x)
    assert_eagers_bits(lambda a: extreme(a, -1, keepdim=True), x)
    assert_eagers_bits(lambda a: extreme(a.t(), 0), x)  # along rows, across columns
    assert_eagers_bits(lambda a: extreme(a.view(3, 4, width), 1).values * 2, x)
    assert_eagers_bits(lambda a: extreme(a, -2, keepdim=True).values, x.t().contiguous())


def test_max_of_a_0d_tensor_is_itself() -> None:
    assert_eagers_bits(lambda a: torch.max(a, 0), torch.tensor(-0.0))
    assert_eagers_bits(lambda a: torch.min(a, -1, keepdim=True).values, torch.tensor(NAN))


@pytest.mark.parametrize("extreme", [torch.max, torch.min])
def test_max_along_a_dim_under_dynamic_sizes(extreme) -> None:
    torch._dynamo.reset()

    def fn(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return extreme(a, -1)

    compiled = torch.compile(fn, backend="lumir", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for rows, width in ((12, 64), (7, 96), (12, 40)):
            x = _zero_ties(torch.float32, rows, width)
            assert_same_bits(compiled(x), fn(x))


SHRINK_SPECIALS = [0.0, -0.0, -0.3, 0.3, -0.5, 0.5, -0.7, 0.7, 1e-30, -1e-30]
SHRINK_SPECIALS += [NAN, -NAN, float("inf"), float("-inf"), 0.1, -0.1, 2.5, -2.5]


def _shrink_operand(dtype: torch.dtype) -> torch.Tensor:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(4, 64, generator=generator)
    x[0, : len(SHRINK_SPECIALS)] = torch.tensor(SHRINK_SPECIALS)
    x[1] = x[1] * 1e-3  # mostly small: inside any lambd below
    return x.to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lambd", [0.5, 0.1, 0.0, 1e-8, 0.30000001, 2.5])
def test_softshrink_is_eagers_value(dtype, lambd) -> None:
    x = _shrink_operand(dtype)
    assert_eagers_bits(lambda a: F.softshrink(a, lambd), x)


def test_softshrink_module_and_default_lambda() -> None:
    x = _shrink_operand(torch.float32)
    assert_eagers_bits(torch.nn.Softshrink(), x)
    assert_eagers_bits(lambda a: F.softshrink(a * 2) + 1, x)
