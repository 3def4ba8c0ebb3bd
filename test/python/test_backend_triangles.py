"""tril / triu compile in lumir, as eager computes them, at static and marked-dynamic sizes."""

from __future__ import annotations

import warnings

import pytest
import torch

from lumir.backend import LumirFallbackWarning


def _compiled(fn, **options):
    torch._dynamo.reset()
    return torch.compile(fn, backend="lumir", **options)


@pytest.mark.parametrize("upper", [True, False], ids=["triu", "tril"])
def test_a_triangle_of_a_slice_whose_rows_depend_on_a_marked_length_compiles(upper):
    """`x[:, -2:4]` has min(4, L) - max(L - 2, 0) rows; Dynamo bounds L to [4, 6] there.
    Tracing torch's decomposition of triu/tril made an `arange` of those rows, whose
    metadata guard pinned L to 4: a ConstraintViolationError at the first call
    (torch-level fuzzer, program 110 of seed 7), where eager and aot_eager run. (At L 5
    and 6 aot_eager fails too: one row, or none, is specialised by Dynamo's own trace.)"""

    def program(x):
        part = x[:, -2:4]
        return part.triu(1) if upper else part.tril(-1)

    compiled = _compiled(program)
    for length in (4, 7, 8):
        x = torch.randn(3, length, 8)
        torch._dynamo.mark_dynamic(x, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", LumirFallbackWarning)
            result = compiled(x)
        expected = program(x)
        assert torch.equal(result, expected)
        assert result.stride() == expected.stride()


DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.bool]


def _input(dtype: torch.dtype, shape: tuple[int, ...]) -> torch.Tensor:
    values = torch.randn(shape)
    values[..., 0] = -0.0  # a kept -0 stays -0, a dropped one becomes +0
    if dtype == torch.bool:
        return values > 0
    if dtype == torch.int64:
        return (values * 10).to(dtype)
    return values.to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("diagonal", [0, 1, -1, 2, -5, 9])
def test_triangles_are_eagers_bits_and_strides(dtype, diagonal):
    def program(a, b):
        return a.triu(diagonal), torch.tril(b, diagonal=diagonal), a.mT.tril(diagonal)

    a = _input(dtype, (2, 4, 6))
    b = _input(dtype, (6, 3)).mT  # transposed: eager's result is contiguous
    results, expected = _compiled(program)(a, b), program(a, b)
    for result, want in zip(results, expected, strict=True):
        assert result.dtype == want.dtype and result.stride() == want.stride()
        assert torch.equal(result.view(torch.uint8), want.view(torch.uint8))


def test_an_empty_triangle_compiles():
    x = torch.randn(3, 0, 5)
    result = _compiled(lambda a: a.triu(1) + 1)(x)
    assert result.shape == (3, 0, 5)
