"""Convolutions and pools under dynamic shapes: the windows gathered one axis at a time.

Under dynamic shapes every slice and stacked piece of a decomposition costs symbolic
reasoning in torch's metas while aot_autograd traces (about 10 ms each on the CPU), so
`windows` gathers a k x k kernel's windows with k slices per axis instead of two per
offset (lumir.frontend.window_decompositions._windows_by_axis). A tiny ConvNeXt's first
call under `dynamic=True` went from 12.2 to 8.1 CPU seconds with it (docs/perf-notes.md,
2026-12-07). The count of slices is the test of that, not a time; the modules check the
values of the per-axis form against eager at two batch sizes and two image sizes.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.backend import LumirFallbackWarning
from lumir.frontend import window_decompositions


def _depthwise_7x7(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return window_decompositions.convolution(
        x, weight, None, [1, 1], [3, 3], [1, 1], False, [0, 0], x.shape[1]
    )


def _slices(tracing_mode: str) -> int:
    graph = make_fx(_depthwise_7x7, tracing_mode=tracing_mode)(
        torch.randn(2, 4, 8, 8), torch.randn(4, 1, 7, 7)
    )
    return sum(node.target == torch.ops.aten.slice.Tensor for node in graph.graph.nodes)


def test_symbolic_windows_take_one_slice_per_offset_and_axis() -> None:
    """A 7x7 kernel traced with symbolic sizes: 7 slices per axis (14), where the
    one-step form took two per offset (98), each a symbolic slice meta."""
    assert _slices("symbolic") == 2 * 7


def test_static_windows_keep_the_one_step_form() -> None:
    """With static sizes each offset is sliced along both axes once, as before: the
    program a static compile runs is unchanged."""
    assert _slices("real") == 2 * 7 * 7


MODULES = {
    "depthwise-7x7": lambda: torch.nn.Conv2d(4, 4, 7, padding=3, groups=4),
    "dense-strided": lambda: torch.nn.Conv2d(4, 6, 3, stride=2, padding=1),
    "grouped-dilated": lambda: torch.nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2),
    "conv1d": lambda: torch.nn.Sequential(torch.nn.Flatten(2), torch.nn.Conv1d(4, 6, 5)),
    "conv3d": lambda: torch.nn.Sequential(
        torch.nn.Unflatten(2, (2, -1)), torch.nn.Conv3d(4, 4, (2, 3, 3), padding=(0, 1, 1))
    ),
    "max-pool": lambda: torch.nn.MaxPool2d(3, 2, 1),
    "avg-pool": lambda: torch.nn.AvgPool2d(3, 2, 1, count_include_pad=False),
    "avg-pool-ceil": lambda: torch.nn.AvgPool2d(3, 2, ceil_mode=True),
    "max-pool-indices": lambda: torch.nn.MaxPool2d(3, 2, 1, return_indices=True),
}


@torch.no_grad()
@pytest.mark.parametrize("name", sorted(MODULES))
def test_windowed_module_matches_eager_at_each_size_under_dynamic_shapes(name: str) -> None:
    """Batch and image size both change; every size is eager's values, with no
    fallback."""
    torch.manual_seed(0)
    module = MODULES[name]().eval()
    torch._dynamo.reset()
    compiled = torch.compile(module, backend="lumir", dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for batch, size in ((2, 8), (3, 8), (2, 12)):
            x = torch.randn(batch, 4, size, size)
            torch.testing.assert_close(compiled(x), module(x), atol=1e-5, rtol=1e-5)
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert fallbacks == []
