"""`F.fold` (`nn.Fold`, aten.col2im) compiles in lumir and gives eager's bits.

MobileViT V2 folds its patches back into a feature map with `F.fold` (kernel = stride,
so each output pixel has one block element); other users fold overlapping blocks,
which sum. torch's decomposition writes the sum as an `index_put` with `accumulate`,
which lumir keeps in eager; lumir's own (window_decompositions.fold) adds each kernel
offset's block, spread by the stride and padded into place, in ATen's CPU order and
dtype, so the result is eager's bit for bit in f32 and bf16.
"""

from __future__ import annotations

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.testing.bits import assert_eagers_bits

FOLDS = {
    # name: (output size, kernel, dilation, padding, stride, channels)
    "patches": ((8, 6), (2, 2), 1, 0, (2, 2), 3),
    "overlapping": ((7, 9), (3, 3), 1, 0, 1, 2),
    "strided-padded": ((9, 8), (3, 2), 1, (1, 2), (2, 3), 2),
    "dilated": ((10, 7), (2, 3), (3, 1), 1, (1, 2), 2),
}


def _blocks(name: str, batch: tuple[int, ...], dtype: torch.dtype) -> tuple[torch.Tensor, dict]:
    size, kernel, dilation, padding, stride, channels = FOLDS[name]
    arguments = dict(
        output_size=size, kernel_size=kernel, dilation=dilation, padding=padding, stride=stride
    )
    pair = [torch.nn.modules.utils._pair(v) for v in (kernel, dilation, padding, stride)]
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = pair
    rows = (size[0] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    columns = (size[1] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    generator = torch.Generator().manual_seed(len(name))
    x = torch.randn(*batch, channels * kh * kw, rows * columns, generator=generator)
    return x.to(dtype), arguments


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("batch", [(2,), ()], ids=["batched", "unbatched"])
@pytest.mark.parametrize("name", sorted(FOLDS))
def test_fold_compiles_and_gives_eagers_bits(name: str, batch: tuple, dtype: torch.dtype) -> None:
    x, arguments = _blocks(name, batch, dtype)
    assert_eagers_bits(lambda t: torch.nn.functional.fold(t * 2, **arguments), x)


@torch.no_grad()
def test_fold_of_a_negative_zero_is_positive_zero_as_in_eager() -> None:
    """ATen adds each block element to a zeroed output: a lone -0 becomes +0."""
    x = torch.full((1, 4, 4), -0.0)
    x[0, 1, 2] = float("inf")
    x[0, 2, 3] = float("nan")
    assert_eagers_bits(lambda t: torch.nn.functional.fold(t, (4, 4), 2, stride=2), x)


@torch.no_grad()
def test_fold_under_dynamic_shapes_gives_eagers_bits_at_two_sizes() -> None:
    """The number of blocks follows a dynamic length."""
    fold = lambda t: torch.nn.functional.fold(t + 1, (2, t.shape[-1] * 2), 2, stride=2)  # noqa: E731
    for length in (3, 5):
        x = torch.randn(2, 12, length, generator=torch.Generator().manual_seed(length))
        assert_eagers_bits(fold, x, dynamic=True)
