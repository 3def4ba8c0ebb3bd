"""Training losses compile whole: a Hugging Face model computes its loss in its forward
when given labels, so a loss left to eager would split every training graph."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from lumir.backend import LumirFallbackWarning, stats

LOSSES = {
    "cross_entropy": lambda x, t: F.cross_entropy(x, t),
    "ignore_index": lambda x, t: F.cross_entropy(x, t, ignore_index=2),
    "per_element": lambda x, t: F.cross_entropy(x, t, reduction="none"),
    "label_smoothing": lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
    "class_weights": lambda x, t: F.cross_entropy(
        x, t, weight=torch.arange(1.0, 11.0, dtype=x.dtype)
    ),
    "spatial": lambda x, t: F.cross_entropy(x.reshape(2, 3, 10).transpose(1, 2), t.reshape(2, 3)),
    "mse": lambda x, t: F.mse_loss(x, x.flip(0)),
    "huber": lambda x, t: F.huber_loss(x, x.flip(0), delta=0.3),
    "smooth_l1": lambda x, t: F.smooth_l1_loss(x, x.flip(0), reduction="sum"),
    "bce_logits": lambda x, t: F.binary_cross_entropy_with_logits(
        x, (x > 0).to(x.dtype), pos_weight=torch.full((10,), 2.0, dtype=x.dtype)
    ),
    "bce": lambda x, t: F.binary_cross_entropy(x.sigmoid(), (x > 0).to(x.dtype)),
    "logsigmoid": lambda x, t: F.logsigmoid(x * 30),
}
"""Training losses, which a Hugging Face model computes in its forward when given labels."""


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_a_loss_compiles_whole_and_matches_eager(name, dtype):
    """torch's decompositions of the losses import; values as eager's (a per-element
    bf16 log-softmax may differ in its last bit)."""
    x = torch.randn(6, 10, generator=torch.Generator().manual_seed(0)).to(dtype)
    targets = torch.tensor([1, 2, 3, 2, 9, 0])
    torch._dynamo.reset()
    stats.reset()
    loss = LOSSES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        got = torch.compile(loss, backend="lumir")(x, targets)
    want = loss(x, targets)
    tolerance = 1e-6 if dtype == torch.float32 else 2.0**-7 * want.abs().max().item()
    torch.testing.assert_close(got, want, atol=tolerance, rtol=0)
    assert [graph.fallback_ops for graph in stats.GRAPHS] == [[]]
