"""Convolutions and pools through `backend="lumir"` return eager's strides.

ATen lays a pool's result out as `Tensor::suggest_memory_format` of its input says, and a
convolution's as its backend's rule says (asked of ATen: `_select_conv_backend`); a 1-d
op runs as the 2-d one on the input with a size-1 dimension inserted. Inputs whose
layout only size-1 dimensions make ambiguous, or that are strided like channels last
without being dense, are where a rule of lumir's own (`is_contiguous(channels_last)`)
differed. Values are eager's too; no op falls back.
"""

from __future__ import annotations

import itertools
import warnings

import pytest
import torch
import torch.nn.functional as F

import lumir.backend  # registers "lumir" where lumir is not pip-installed


def _layouts(shape: tuple[int, ...]) -> list[torch.Tensor]:
    """A tensor of `shape` laid out in each order of its dimensions."""
    tensors = []
    for order in itertools.permutations(range(len(shape))):
        base = torch.randn([shape[d] for d in order])
        tensors.append(base.permute([order.index(d) for d in range(len(shape))]))
    return tensors


def _weight(channels: int, rank: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randn(4, channels, *([1] * rank)).to(dtype)


def _conv(rank: int, dtype: torch.dtype = torch.float32, **kwargs: object):
    conv = (F.conv1d, F.conv2d, F.conv3d)[rank - 1]

    def make(channels: int):
        weight = _weight(channels, rank, dtype)
        return lambda x: conv(x.to(dtype), weight, **kwargs)

    return make


def _conv_transpose(channels: int):
    weight = torch.randn(channels, 2, 1, 1)
    return lambda x: F.conv_transpose2d(x, weight)


def _op(f):
    return lambda c: f


OPS = {
    "avg_pool1d": _op(lambda x: F.avg_pool1d(x, 2, 2, 0, ceil_mode=True, count_include_pad=False)),
    "max_pool1d_indices": _op(lambda x: F.max_pool1d(x, 2, ceil_mode=True, return_indices=True)[0]),
    "adaptive_avg_pool1d": _op(lambda x: F.adaptive_avg_pool1d(x, 3)),
    "conv1d": _conv(1),
    "conv1d_padded": _conv(1, padding=1),
    "conv1d_bf16": _conv(1, torch.bfloat16),
    "avg_pool2d": _op(lambda x: F.avg_pool2d(x, 1)),
    "max_pool2d": _op(lambda x: F.max_pool2d(x, 1)),
    "adaptive_avg_pool2d": _op(lambda x: F.adaptive_avg_pool2d(x, 2)),
    "conv2d": _conv(2),
    "conv_transpose2d": _conv_transpose,
    "conv3d": _conv(3),
    "avg_pool3d": _op(lambda x: F.avg_pool3d(x, 1)),
}
"""Name -> (input channels -> the function compiled), its weights made outside it."""

SHAPES = {
    1: [(2, 3, 8), (1, 4, 8), (2, 1, 4), (2, 3, 1), (1, 1, 5)],
    2: [(2, 3, 4, 5), (1, 3, 1, 4), (2, 1, 3, 3), (2, 3, 1, 1)],
    3: [(2, 3, 2, 2, 2), (2, 1, 2, 1, 3)],
}


def _cases() -> list[tuple[str, tuple[int, ...], int]]:
    cases = []
    for name in OPS:
        rank = next(int(c) for c in name if c.isdigit())
        for shape in SHAPES[rank]:
            count = len(list(itertools.permutations(shape)))
            cases.extend((name, shape, i) for i in range(0, count, 2 if rank == 1 else 5))
    return cases


@pytest.mark.parametrize(("name", "shape", "order"), _cases())
def test_window_result_has_eager_strides(name: str, shape: tuple[int, ...], order: int) -> None:
    torch.manual_seed(0)
    x = _layouts(shape)[order]
    function = OPS[name](x.shape[1])
    expected = function(x)
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", lumir.backend.LumirFallbackWarning)
        result = torch.compile(function, backend="lumir")(x)
    assert result.stride() == expected.stride(), (x.stride(), result.stride(), expected.stride())
    tolerance = 1e-5 if expected.dtype == torch.float32 else 1e-2
    torch.testing.assert_close(result, expected, atol=tolerance, rtol=tolerance)


def test_avg_pool1d_of_an_ambiguous_input_is_contiguous() -> None:
    """avg_pool1d of a (1, 4, 8) tensor with strides (1, 1, 4): its 2-d form's input
    (1, 4, 1, 8) with strides (1, 1, 32, 4) is contiguous to ATen, although
    `is_contiguous(channels_last)` holds; eager (16, 4, 1)."""
    x = torch.randn(8, 4, 1).transpose(0, 2)
    function = lambda x: F.avg_pool1d(x, 2, 2, 0, ceil_mode=True, count_include_pad=False) - 0.7  # noqa: E731
    torch._dynamo.reset()
    result = torch.compile(function, backend="lumir")(x)
    assert result.stride() == function(x).stride() == (16, 4, 1)


def test_repro_conv1d_single_channel_comes_back_channels_last() -> None:
    """Conv1d(1, 4, 1) of a (2, 1, 4) input with strides (4, 1, 1): eager (16, 1, 4)."""
    torch.manual_seed(0)
    module = torch.nn.Conv1d(1, 4, 1).eval().requires_grad_(False)
    x = torch.randn(2, 4, 1).transpose(1, 2)
    torch._dynamo.reset()
    result = torch.compile(module, backend="lumir")(x)
    assert result.stride() == module(x).stride() == (16, 1, 4)
