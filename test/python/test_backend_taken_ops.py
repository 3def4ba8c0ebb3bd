"""Ops that ran in eager and now compile through decompositions: `diagonal` (a view:
torch's reference is an `as_strided`), `diag_embed`, `nansum` and `slice_scatter` with
a step above 1 (lumir's `_slice_scatter`). Each gives eager's values, dtype and strides
with no fallback warning; `diagonal` of an input is still a view of it."""

from __future__ import annotations

import warnings

import pytest
import torch

from lumir.backend import LumirFallbackWarning


def _compiled(function, *args):
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        return torch.compile(function, backend="lumir")(*args)


def _nan_input(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 1, float("nan"), x)


CASES = {
    "diagonal": lambda x: torch.diagonal(x, 1, 0, 2) * 2,
    "diagonal-negative": lambda x: torch.diagonal(x * 3, -1, 1, 2),
    "diag_embed": lambda x: torch.diag_embed(x[:, :, 0] + 1),
    "diag_embed-offset": lambda x: torch.diag_embed(x[:, 0] + 1, 1, 0, 2),
    "nansum": lambda x: torch.nansum(_nan_input(x), 1),
    "nansum-all": lambda x: torch.nansum(_nan_input(x)),
    "nansum-keepdim-f32": lambda x: torch.nansum(_nan_input(x), (0, 2), keepdim=True),
    "slice_scatter-step2": lambda x: torch.slice_scatter(x, x[:, ::2] * 2, 1, 0, 5, 2),
    "slice_scatter-step3": lambda x: torch.slice_scatter(x, x[:, :, 1::3] + 1, 2, 1, None, 3),
    "slice_scatter-negative": lambda x: torch.slice_scatter(x, x[:, :, 1:-1:2] * 2, 2, 1, -1, 2),
    "setitem-step": lambda x: _set_every_other(x.clone()),
}


def _set_every_other(x: torch.Tensor) -> torch.Tensor:
    x[:, :, 1::2] = 7.0
    return x


INPUTS = {
    "contiguous": lambda: torch.randn(4, 5, 6),
    "permuted": lambda: torch.randn(6, 5, 4).permute(2, 1, 0),
    "bf16": lambda: torch.randn(4, 5, 6).to(torch.bfloat16),
}


@pytest.mark.parametrize("layout", list(INPUTS))
@pytest.mark.parametrize("name", list(CASES))
def test_op_compiles_with_eager_values_and_strides(name: str, layout: str) -> None:
    if name.startswith("diagonal") and layout == "permuted":
        pytest.skip("an as_strided of a view (the permuted input) stays in eager")
    torch.manual_seed(0)
    x = INPUTS[layout]()
    expected = CASES[name](x)
    result = _compiled(CASES[name], x)
    assert result.dtype == expected.dtype
    assert result.stride() == expected.stride()
    tolerance = 0 if "nansum" not in name else (1e-5 if x.dtype == torch.float32 else 2e-2)
    torch.testing.assert_close(result, expected, atol=tolerance, rtol=tolerance, equal_nan=True)


def test_diagonal_of_an_input_is_a_view_of_it() -> None:
    x = torch.randn(4, 5, 6)
    result = _compiled(lambda x: torch.diagonal(x, 1, 0, 2), x)
    expected = torch.diagonal(x, 1, 0, 2)
    assert (result.stride(), result.storage_offset()) == (
        expected.stride(),
        expected.storage_offset(),
    )
    result.add_(100.0)
    assert torch.equal(torch.diagonal(x, 1, 0, 2), result)


@pytest.mark.parametrize("dynamic", [False, True])
def test_diagonal_of_an_eager_result_laid_out_unlike_its_trace_reads_the_right_elements(
    dynamic: bool,
) -> None:
    # index.Tensor of a permuted input is traced at strides (6, 1, 1, 2) and computed at
    # (6, 6, 3, 1); it runs in eager (the as_strided reads its storage), and diagonal's
    # as_strided addresses it at the traced strides: the copy into them keeps it right.
    def function(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return (-2 * x[:, :, index]).diagonal(0, 1, 2)

    torch._dynamo.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=dynamic)
    for batch in (2, 3):
        generator = torch.Generator().manual_seed(batch)
        x = torch.randn(batch, 3, 3, 1, generator=generator).permute(0, 3, 1, 2)
        index = torch.randint(0, 3, (2,), generator=generator)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LumirFallbackWarning)
            result = compiled(x, index)
        assert torch.equal(result, function(x, index))


GAPPED_INPUTS = {
    "every-other-row": lambda: torch.randn(4, 10, 6)[:, ::2],
    "a-window": lambda: torch.randn(4, 7, 6)[:, 1:6],
    "permuted-every-other": lambda: torch.randn(12, 5, 4).permute(2, 1, 0)[:, :, ::2],
    "expanded": lambda: torch.randn(4, 1, 6).expand(4, 5, 6),
}


@pytest.mark.parametrize("layout", list(GAPPED_INPUTS))
@pytest.mark.parametrize("name", [name for name in CASES if name.startswith("slice_scatter")])
def test_a_strided_slice_scatter_of_an_input_with_gaps_keeps_its_strides(
    name: str, layout: str
) -> None:
    """ATen's slice_scatter writes into a clone of x that keeps x's strides (gaps and
    all: `clone_preserve_strides`; an expanded x becomes dense): the compiled one
    returns them too, not those of a fresh tensor."""
    torch.manual_seed(0)
    x = GAPPED_INPUTS[layout]()
    expected = CASES[name](x)
    result = _compiled(CASES[name], x)
    assert (result.dtype, result.stride()) == (expected.dtype, expected.stride())
    torch.testing.assert_close(result, expected, atol=0, rtol=0)
