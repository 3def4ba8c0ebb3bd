"""Commonly used ops that ran in eager and now compile: `torch.eye` (lumir's own
decomposition: torch's counts in uint8, which lumir does not import), `isinf`,
`aminmax`, `count_nonzero`, `heaviside` and `aten.norm` with a `p` and dims
(`F.pairwise_distance`; torch's references), integer `fmod` and `round` with
`decimals` (lumir.frontend.exact_decompositions: torch's references write prims `hl`
lacks), `&` of an integer tensor or a mask and a number (`bitwise_and.Scalar`),
`^` of two masks (`bitwise_xor` of bools, imported as a logical xor) and `^`, `|` and
`&` of a mask and a bool on either side (`bitwise_xor.Scalar`, `bitwise_or.Scalar_Tensor`,
...), and `unsafe_split` / `unsafe_chunk` / `unsafe_split_with_sizes` (`nn.LSTMCell`'s
gates; lumir.frontend.views.SPLITS), and `F.prelu` (`nn.PReLU`: torch's decomposition of
`_prelu_kernel`, a `where`), and `F.channel_shuffle` (`nn.ChannelShuffle`: torch's
decomposition, laid out as ATen's kernel lays it out). Each compiles with
no fallback warning, statically and with `dynamic=True` at two sizes, and gives eager's
values, dtype and strides."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from lumir.backend import LumirFallbackWarning


def _compiled(function, dynamic: bool):
    torch._dynamo.reset()
    return torch.compile(function, backend="lumir", dynamic=dynamic)


def _mask(x: torch.Tensor) -> torch.Tensor:
    return x > 0.3


def _with_infinities(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 1, float("inf"), torch.where(x < -1, float("-inf"), x))


def _lstm_cell(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """`nn.LSTMCell`'s op (its gates cut with `unsafe_chunk`): a step over x's first row,
    with weights fixed by a seed and the state taken from the next."""
    weights = torch.randn(4, 16, 8, generator=torch.Generator().manual_seed(3)).to(x.dtype)
    state = (x[:, 1, :4], x[:, 2, 4:])
    return torch.lstm_cell(x[:, 0], state, weights[0], weights[1, :, :4], weights[2, :, 0], None)


CASES = {
    "eye": lambda x: x[0] + torch.eye(x.shape[1], x.shape[2], dtype=x.dtype),
    "eye-square": lambda x: x[0, :, :1] * torch.eye(x.shape[1], dtype=x.dtype),
    "eye-default-dtype": lambda x: torch.eye(x.shape[2]) * 2 + x[0, 0],
    "eye-int": lambda x: torch.eye(x.shape[1], 3, dtype=torch.int64) + (x[0, :, :3] > 0).long(),
    "eye-bool-mask": lambda x: x.masked_fill(torch.eye(*x.shape[1:], dtype=torch.bool), 0),
    "eye-literal": lambda x: x[0, :4, :4] + torch.eye(4, dtype=x.dtype),
    "isinf": lambda x: torch.isinf(_with_infinities(x * 2)),
    "isinf-int": lambda x: torch.isinf((x * 4).long()),
    "aminmax": lambda x: torch.aminmax(x * 2, dim=-1),
    "aminmax-keepdim": lambda x: torch.aminmax(x + 1, dim=1, keepdim=True),
    "aminmax-all": lambda x: torch.aminmax(x * 2),
    "count_nonzero": lambda x: torch.count_nonzero(_mask(x), -1),
    "count_nonzero-dims": lambda x: torch.count_nonzero(x * (x > 0), (0, 2)),
    "count_nonzero-all": lambda x: torch.count_nonzero(_mask(x)),
    "heaviside": lambda x: torch.heaviside(torch.round(x * 2), x + 1),
    "xor-masks": lambda x: _mask(x) ^ (x < 0.5),
    "and-int-scalar": lambda x: (x * 10).long() & 6,
    "and-int32-negative-scalar": lambda x: (x * 10).int() & -3,
    "and-mask-scalar": lambda x: _mask(x) & True,
    "xor-mask-true": lambda x: _mask(x) ^ True,
    "xor-mask-false": lambda x: (_mask(x) ^ False) & (x < 1),
    "or-mask-false": lambda x: _mask(x) | False,
    "or-mask-true": lambda x: torch.where(_mask(x) | True, x, 0),
    "xor-true-first": lambda x: torch.bitwise_xor(True, _mask(x)),
    "or-false-first": lambda x: torch.bitwise_or(False, _mask(x)) ^ (x < 0),
    "and-true-first": lambda x: torch.bitwise_and(True, _mask(x)),
    "and-int-scalar-first": lambda x: torch.bitwise_and(6, (x * 10).long()),
    "fmod-int": lambda x: torch.fmod((x * 10).long(), 3),
    "fmod-int-negative": lambda x: torch.fmod((x * 10).int(), -4) * 2,
    "fmod-int-tensor": lambda x: torch.fmod((x * 10).long(), (x * 3).long().abs() + 1),
    "round-decimals": lambda x: torch.round(x * 3, decimals=1),
    "round-decimals-2": lambda x: torch.round(x + 1, decimals=2),
    "round-decimals-negative": lambda x: torch.round(x * 300, decimals=-1),
    "pairwise_distance": lambda x: torch.nn.functional.pairwise_distance(x * 2, x + 1),
    "unsafe_chunk": lambda x: tuple(p * 2 for p in torch.unsafe_chunk(x + 1, 4, -1)),
    "unsafe_split": lambda x: torch.unsafe_split(x * 3, 4, 1)[0] + 1,
    "unsafe_split_with_sizes": lambda x: torch.unsafe_split_with_sizes(x - 1, [1, 5, 2], -1)[1],
    "lstm_cell": lambda x: _lstm_cell(x),
    "prelu": lambda x: F.prelu(_with_infinities(x * 2), torch.tensor([0.25], dtype=x.dtype)),
    "prelu-channels": lambda x: F.prelu(x.transpose(1, 2), torch.linspace(-1, 1, 8, dtype=x.dtype)),
    "channel_shuffle": lambda x: F.channel_shuffle(x.transpose(1, 2) * 2, 4),
    "channel_shuffle-channels-last": lambda x: F.channel_shuffle(
        x.reshape(2, x.shape[1], 2, 4).permute(0, 3, 1, 2) + 1, 2
    ),
}
"""Each case reads one [batch, rows, columns] input (lumir computes something around
the op, so the graph is not eager's alone)."""


def _input(dtype: torch.dtype, rows: int, layout: str) -> torch.Tensor:
    torch.manual_seed(rows)
    x = torch.randn(2, 8, rows, dtype=dtype)
    return x.transpose(1, 2) if layout == "transposed" else x.reshape(2, rows, 8)


def _check(result: object, expected: object, dtype: torch.dtype, name: str) -> None:
    if isinstance(expected, tuple):
        assert isinstance(result, tuple) and len(result) == len(expected)
        for part, want in zip(result, expected, strict=True):
            _check(part, want, dtype, name)
        return
    assert isinstance(result, torch.Tensor) and isinstance(expected, torch.Tensor)
    assert (result.dtype, result.shape) == (expected.dtype, expected.shape)
    assert result.stride() == expected.stride(), name
    tolerance = 0.0
    if name in ("pairwise_distance", "lstm_cell"):  # products and sums in another order
        tolerance = 1e-5 if dtype == torch.float32 else 1e-2
    torch.testing.assert_close(result, expected, atol=tolerance, rtol=tolerance)


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(CASES))
def test_op_compiles_without_fallback_and_gives_eagers_result(
    name: str, dynamic: bool, dtype: torch.dtype, layout: str
) -> None:
    function = CASES[name]
    compiled = _compiled(function, dynamic)
    for rows in (6, 5) if dynamic else (6,):
        x = _input(dtype, rows, layout)
        expected = function(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error", LumirFallbackWarning)
            result = compiled(x)
        _check(result, expected, dtype, name)


def test_an_integer_fmod_by_zero_raises_as_eagers_does() -> None:
    def function(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.fmod(x * 2, y) + 1

    x, y = torch.arange(6).reshape(2, 3), torch.tensor([1, 0, 2])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        function(x, y)
    compiled = _compiled(function, dynamic=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        torch.testing.assert_close(compiled(x, y.abs() + 1), function(x, y.abs() + 1))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            compiled(x, y)
