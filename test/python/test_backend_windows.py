"""Convolutions, pools, batch norm and resampling modules through `backend="lumir"`.

Each module compiles with no fallback warning and gives eager's result: f32 within
1e-5, bf16 as close to the f64 result as eager bf16 is (within a rounding). The
importer tests (test_importer_table.py) check each decomposition's semantics on the
reference interpreter; these check what a user compiles, parameters and buffers bound
as graph inputs.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.backend import LumirFallbackWarning
from lumir.testing.devices import ON_CUDA


def _batch_norm() -> torch.nn.Module:
    norm = torch.nn.BatchNorm2d(4)
    norm.running_mean.normal_()
    norm.running_var.uniform_(0.5, 2.0)
    norm.weight.data.normal_()
    norm.bias.data.normal_()
    return torch.nn.Sequential(torch.nn.Conv2d(4, 4, 3, padding=1), norm, torch.nn.ReLU())


MODULES = {
    "conv-batch-norm-relu": _batch_norm,
    "conv-weight-norm": lambda: torch.nn.Sequential(
        torch.nn.Flatten(2),
        torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 6, 5, padding=2)),
    ),
    "conv-transpose": lambda: torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1),
    "conv-reflect": lambda: torch.nn.Conv2d(4, 6, 3, padding=1, padding_mode="reflect"),
    "conv-circular": lambda: torch.nn.Conv2d(4, 6, 3, padding=(2, 1), padding_mode="circular"),
    "depthwise-separable": lambda: torch.nn.Sequential(
        torch.nn.Conv2d(4, 4, 7, padding=3, groups=4), torch.nn.Conv2d(4, 8, 1)
    ),
    "max-pool": lambda: torch.nn.MaxPool2d(3, 2, 1),
    "avg-pool": lambda: torch.nn.AvgPool2d(3, 2, 1, count_include_pad=False),
    "adaptive-avg-pool": lambda: torch.nn.AdaptiveAvgPool2d(1),
    "upsample-bilinear": lambda: torch.nn.Upsample(scale_factor=2, mode="bilinear"),
    "pixel-shuffle": lambda: torch.nn.Sequential(
        torch.nn.Conv2d(4, 16, 1), torch.nn.PixelShuffle(2)
    ),
}


def _compile(module: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(module, backend="lumir")(x)
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert fallbacks == []
    return got


@torch.no_grad()
@pytest.mark.parametrize("device", ["cpu", ON_CUDA])
@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_compiles_whole_and_matches_eager(name: str, device: str) -> None:
    """Against eager on the CPU, on either device."""
    torch.manual_seed(0)
    module = MODULES[name]().eval()
    x = torch.randn(2, 4, 9, 10)
    want = module(x)
    got = _compile(module.to(device), x.to(device)).cpu()
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@torch.no_grad()
@pytest.mark.parametrize("name", ["conv-batch-norm-relu", "conv-transpose", "avg-pool"])
def test_bf16_module_is_as_close_to_f64_as_eager_bf16(name: str) -> None:
    torch.manual_seed(0)
    module = MODULES[name]().eval()
    x = torch.randn(2, 4, 9, 10)
    exact = module.double()(x.double())
    module = module.to(torch.bfloat16)
    half = x.to(torch.bfloat16)
    got = _compile(module, half)
    eager_error = (module(half).double() - exact).abs()
    ulp = exact.abs().clamp_min(1.0) * 2**-7
    assert ((got.double() - exact).abs() <= eager_error + ulp).all()


class _ViewsTheLayout(torch.nn.Module):
    """`module`, then a `.view` that only works on the strides ATen's kernels give:
    channels-last results permuted to channels-last order, a repeated permuted tensor
    (WavLM's relative-position bias)."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.module(x)
        flat = y.permute(0, 2, 3, 1).view(y.shape[0], -1)
        repeated = x.permute(0, 3, 1, 2).repeat(2, 1, 1, 1).view(-1, x.shape[2])
        return torch.cat([flat.flatten(), repeated.flatten()])


@torch.no_grad()
@pytest.mark.parametrize(
    "name", ["conv-batch-norm-relu", "max-pool", "avg-pool", "adaptive-avg-pool"]
)
def test_user_views_see_atens_strides_after_a_decomposed_op(name: str) -> None:
    """aot_autograd traces the code after a decomposed op with the decomposition's
    strides: a channels-last convolution or pool must stay channels last and `repeat`
    must be contiguous, or a `.view` eager runs fails the trace and the whole graph
    falls back."""
    torch.manual_seed(0)
    module = _ViewsTheLayout(MODULES[name]().eval())
    x = torch.randn(2, 4, 9, 10).to(memory_format=torch.channels_last)
    torch.testing.assert_close(_compile(module, x), module(x), atol=1e-5, rtol=1e-5)
