"""Upsampling and `max_pool1d` through `backend="lumir"` return eager's strides.

torch decomposes `F.interpolate`'s ATen ops (`upsample_nearest2d.vec`, ...) while
tracing through kernels of its own (torch._decomp's `py_impl`s), before aot_autograd's
decomposition table is asked, and lays their results out unlike ATen: a 3-d input keeps
its permutation (ATen: contiguous), a size-1 dimension keeps an odd stride (ATen: a fresh
tensor in the input's suggested format). ATen's `max_pool1d` of a CPU tensor that needs
no gradient runs its own kernel into a contiguous tensor, but under tracing takes the
`max_pool1d_with_indices` path. lumir's backend calls these with eager's layout
(lumir.frontend.decompositions.with_eager_layouts); the ops after them see it too.
torch's own `aot_eager` differs from eager on every case marked here.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from test_backend_window_layouts import _layouts  # each order of a shape's dimensions

import lumir.backend  # registers "lumir" where lumir is not pip-installed


def _interpolate(**kwargs: object):
    return lambda x: F.interpolate(x, **kwargs)


OPS = {
    "nearest1d": _interpolate(scale_factor=2.0, mode="nearest"),
    "nearest_exact1d": _interpolate(scale_factor=1.5, mode="nearest-exact"),
    "linear1d": _interpolate(size=7, mode="linear"),
    "linear1d_corners": _interpolate(scale_factor=2.0, mode="linear", align_corners=True),
    "nearest2d": _interpolate(scale_factor=2.0, mode="nearest"),
    "nearest_exact2d": _interpolate(size=(5, 3), mode="nearest-exact"),
    "bilinear2d": _interpolate(scale_factor=2.0, mode="bilinear"),
    "bilinear2d_corners": _interpolate(scale_factor=1.5, mode="bilinear", align_corners=True),
    "bicubic2d": _interpolate(size=(6, 4), mode="bicubic"),
    "bicubic2d_corners": _interpolate(scale_factor=2.0, mode="bicubic", align_corners=True),
    "upsample_module2d": torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
    "upsample_then_add2d": lambda x: F.interpolate(x, scale_factor=2.0) + 1,
    "nearest3d": _interpolate(scale_factor=2.0, mode="nearest"),
    "trilinear3d": _interpolate(scale_factor=(1.0, 2.0, 1.5), mode="trilinear"),
    "trilinear3d_corners": _interpolate(size=(3, 2, 4), mode="trilinear", align_corners=True),
    "max_pool1d": lambda x: F.max_pool1d(x, 2),
    "max_pool1d_then_add1d": lambda x: torch.max_pool1d(x, 2, 1, 1) + 1,
    "max_pool1d_module1d": torch.nn.MaxPool1d(3, 2, ceil_mode=True),
}
"""Name (its rank the last digit) -> the function compiled."""

SHAPES = {
    1: [(2, 3, 8), (1, 4, 8), (2, 1, 4), (3, 2, 1)],
    2: [(2, 3, 4, 5), (1, 3, 1, 4), (2, 1, 3, 3), (2, 4, 1, 1)],
    3: [(2, 3, 2, 2, 2), (2, 1, 2, 1, 3)],
}


ORDERS = {1: (1, 2, 5), 2: (1, 6, 17), 3: (1, 60)}
"""The dimension orders (indices into `_layouts`) tried at each rank: the last two
swapped, the first two swapped, and one more."""


def _cases() -> list[tuple[str, tuple[int, ...], int]]:
    cases = []
    for name in OPS:
        rank = int(next(c for c in reversed(name) if c.isdigit()))
        for shape in SHAPES[rank]:
            if name.startswith("max_pool") and shape[-1] < 3:
                continue  # no window fits
            cases.extend((name, shape, i) for i in ORDERS[rank])
    return cases


def _compiled(function, *args: torch.Tensor, **options: object) -> object:
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", lumir.backend.LumirFallbackWarning)
        return torch.compile(function, backend="lumir", **options)(*args)


@pytest.mark.parametrize(("name", "shape", "order"), _cases())
def test_upsampled_result_has_eager_strides(name: str, shape: tuple[int, ...], order: int) -> None:
    torch.manual_seed(0)
    x = _layouts(shape)[order]
    function = OPS[name]
    expected = function(x)
    result = _compiled(function, x)
    assert result.stride() == expected.stride(), (x.stride(), result.stride(), expected.stride())
    torch.testing.assert_close(result, expected, atol=1e-5, rtol=1e-5)


def test_repro_bilinear_of_one_channel_is_channels_last() -> None:
    """A (2, 1, 3, 3) input with strides (9, 1, 3, 1) suggests channels last to ATen:
    eager's result is a fresh channels-last tensor, strides (36, 1, 6, 1); torch's
    decomposition keeps (36, 36, 6, 1)."""
    x = torch.randn(2, 1, 3, 3).as_strided((2, 1, 3, 3), (9, 1, 3, 1))
    function = _interpolate(scale_factor=2.0, mode="bilinear")
    assert _compiled(function, x).stride() == function(x).stride() == (36, 1, 6, 1)


def test_repro_nearest1d_of_a_permuted_input_is_contiguous() -> None:
    x = torch.randn(4, 3, 2).transpose(0, 1)
    function = _interpolate(scale_factor=2.0, mode="nearest")
    assert _compiled(function, x).stride() == function(x).stride() == (16, 4, 1)


def test_repro_max_pool1d_without_grad_is_contiguous() -> None:
    x = torch.randn(2, 8, 3).transpose(1, 2)
    function = lambda x: F.max_pool1d(x, 2) + 1  # noqa: E731
    result = _compiled(function, x)
    assert result.stride() == function(x).stride() == (12, 4, 1)
    torch.testing.assert_close(result, function(x))


def test_max_pool1d_with_grad_keeps_the_indices_layout() -> None:
    """With a gradient, eager's max_pool1d is max_pool1d_with_indices's (a 2-d pool of
    the unsqueezed input: channels last for a transposed one), and so is lumir's; the
    gradients are eager's."""
    base = torch.randn(2, 8, 3).transpose(1, 2)
    x, y = base.clone().requires_grad_(), base.clone().requires_grad_()
    x.grad = None
    function = lambda x: F.max_pool1d(x * 2, 2)  # noqa: E731
    expected = function(y)
    result = _compiled(function, x)
    assert result.stride() == expected.stride()
    result.sum().backward()
    expected.sum().backward()
    torch.testing.assert_close(x.grad, y.grad)


def test_max_pool1d_under_no_grad_in_a_graph_that_needs_grad() -> None:
    """torch.no_grad() inside the compiled function: eager's CPU kernel, contiguous."""
    weight = torch.randn(3, requires_grad=True)

    def function(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        with torch.no_grad():
            pooled = F.max_pool1d(x * weight[:, None], 2)
        return pooled, (x * weight[:, None]).sum()

    x = torch.randn(2, 8, 3).transpose(1, 2)
    result, expected = _compiled(function, x), function(x)
    assert result[0].stride() == expected[0].stride() == (12, 4, 1)


def test_upsampling_with_grad_has_eager_strides_and_gradients() -> None:
    base = torch.randn(2, 3, 4).transpose(0, 1)
    x, y = base.clone().requires_grad_(), base.clone().requires_grad_()
    function = _interpolate(scale_factor=2.0, mode="linear")
    expected = function(y)
    result = _compiled(function, x)
    assert result.stride() == expected.stride() == (16, 8, 1)
    (result * torch.arange(8.0)).sum().backward()
    (expected * torch.arange(8.0)).sum().backward()
    torch.testing.assert_close(x.grad, y.grad)


def test_upsampling_under_dynamic_shapes() -> None:
    function = _interpolate(scale_factor=2.0, mode="nearest")
    torch._dynamo.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=True)
    for length in (3, 5):
        x = torch.randn(4, 3, length).transpose(0, 1)
        assert compiled(x).stride() == function(x).stride() == (8 * length, 2 * length, 1)
        torch.testing.assert_close(compiled(x), function(x))
