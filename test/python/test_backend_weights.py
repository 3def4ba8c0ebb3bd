"""Weights are bound to the compiled program by storage, not copied per call."""

from __future__ import annotations

import torch

from lumir.backend import stats


class TwoLinears(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = torch.nn.Linear(16, 32)
        self.second = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


def _programs():
    return [p for g in stats.GRAPHS for p in g.partitions]


@torch.no_grad()
def test_parameters_are_bound_and_in_place_updates_are_seen():
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    compiled = torch.compile(model, backend="lumir")
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    (partition,) = _programs()
    model.first.weight.mul_(0.5)  # in place: same storage, the program sees it
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    assert partition.loads == 1


@torch.no_grad()
def test_weights_and_biases_are_read_in_place():
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    torch.compile(model, backend="lumir")(x)
    (partition,) = _programs()
    assert partition.bound_inputs == 4  # two weights, two biases; only x is copied


@torch.no_grad()
def test_replaced_parameter_rebinds_without_fusing_again():
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    compiled = torch.compile(model, backend="lumir")
    compiled(x)
    model.second.weight = torch.nn.Parameter(torch.randn(8, 32))
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    (partition,) = _programs()
    assert partition.fuse_runs == 1  # not fused again
    assert partition.loads == 2  # loaded again against the new storage
