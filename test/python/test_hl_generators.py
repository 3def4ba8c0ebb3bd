"""hl.arange, cumsum, index, pad, cos, sin, bitwise_and: imported from ATen and run by
the compiled CPU program exactly as torch computes them."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lumir.backend import stats


def _compiled(fn, *inputs):
    torch._dynamo.reset()
    stats.reset()
    got = torch.compile(fn, backend="lumir", options={"report": False})(*inputs)
    (graph,) = stats.GRAPHS
    assert not graph.fallback_ops and len(graph.partitions) == 1, graph
    return got


def _rotary_and_mask(x: torch.Tensor, m: torch.Tensor) -> tuple[torch.Tensor, ...]:
    positions = torch.arange(x.shape[0]).cumsum(-1)
    rows = torch.arange(x.shape[0] - 1, -1, -1).unsqueeze(1)  # reversed, step -1
    table = x[rows, torch.arange(2, 8, 2).unsqueeze(0)]
    mask = (m > 0) & (torch.arange(m.shape[1]) <= 3)
    padded = F.pad(x, (1, -2), value=-1.5)
    return torch.cos(table) + torch.sin(table), mask, padded, positions


@torch.no_grad()
def test_generators_and_gathers_compute_what_torch_computes():
    x, m = torch.randn(5, 9), torch.randn(3, 6)
    got = _compiled(_rotary_and_mask, x, m)
    for actual, expected in zip(got, _rotary_and_mask(x, m), strict=True):
        assert actual.dtype == expected.dtype
        torch.testing.assert_close(actual, expected, atol=0, rtol=0)


@torch.no_grad()
def test_boolean_mask_index_stays_in_eager():
    torch._dynamo.reset()
    stats.reset()
    x = torch.randn(4, 3)
    fn = torch.compile(lambda t, i: t[i] * 2, backend="lumir")
    index = torch.tensor([True, False, True, True])
    torch.testing.assert_close(fn(x, index), x[index] * 2)
