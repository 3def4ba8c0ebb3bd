"""Training through `backend="lumir"`: the forward is lumir's, gradients are eager's.

aot_autograd hands lumir the forward graph, which also returns what the backward
saves; the backward runs in eager. A training loop mutates the weights in place
(`optimizer.step()`), which the bound weights see, so every step must give eager's
loss and gradients.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import transformers

import lumir.backend  # noqa: F401  (registers "lumir")
from lumir.backend import LumirFallbackWarning, stats
from lumir.testing.devices import ON_CUDA


class ResidualMLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 16)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(x)))


def _train_side_by_side(model, reference, batch, loss_of, steps=3):
    """Per step: (compiled loss, eager loss, largest gradient difference)."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(model, backend="lumir")
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, reference)]
    history = []
    for _ in range(steps):
        losses = [loss_of(compiled, batch), loss_of(reference, batch)]
        for loss in losses:
            loss.backward()
        pairs = zip(model.parameters(), reference.parameters(), strict=True)
        worst = max((p.grad - q.grad).abs().max().item() for p, q in pairs)
        history.append((losses[0].item(), losses[1].item(), worst))
        for optimizer in optimizers:
            optimizer.step()
            optimizer.zero_grad()
    return history


@pytest.mark.parametrize("device", ["cpu", ON_CUDA])
def test_mlp_steps_match_eager(device):
    torch.manual_seed(0)
    model, reference = ResidualMLP().to(device), ResidualMLP().to(device)
    reference.load_state_dict(model.state_dict())
    x = torch.randn(8, 16, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        history = _train_side_by_side(model, reference, x, lambda m, b: m(b).square().mean())
    assert stats.GRAPHS and stats.GRAPHS[0].partitions, "the forward was not lumir's"
    for got, want, gradient_error in history:
        assert abs(got - want) <= 1e-5 * max(1.0, abs(want))
        assert gradient_error <= 1e-5
    assert history[0][1] != history[-1][1], "the weights did not move"


def test_input_gradients_match_eager():
    torch.manual_seed(0)
    model = ResidualMLP()
    x = torch.randn(8, 16, requires_grad=True)
    x_eager = x.detach().clone().requires_grad_(True)
    torch._dynamo.reset()
    torch.compile(model, backend="lumir")(x).sum().backward()
    model(x_eager).sum().backward()
    torch.testing.assert_close(x.grad, x_eager.grad, atol=1e-6, rtol=1e-5)


def test_tiny_llama_training_steps_match_eager():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
    )
    model = transformers.LlamaForCausalLM(config).train()
    reference = transformers.LlamaForCausalLM(config).train()
    reference.load_state_dict(model.state_dict())
    ids = torch.randint(0, 128, (2, 7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LumirFallbackWarning)  # the attention's backward
        history = _train_side_by_side(model, reference, ids, lambda m, b: m(b, labels=b).loss)
    assert stats.GRAPHS and stats.GRAPHS[0].partitions
    for got, want, gradient_error in history:
        assert abs(got - want) <= 1e-5 * max(1.0, abs(want))
        assert gradient_error <= 1e-5


class ConvBatchNorm(torch.nn.Module):
    """A ResNet stem in miniature: convolution, batch norm, ReLU, pooled to a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8, 4)

    def forward(self, x):
        h = torch.relu(self.norm(self.conv(x)))
        return self.head(h.mean((2, 3)))


def test_batch_norm_training_steps_match_eager_in_one_partition():
    """A training-mode batch norm (its functional overload returns the new running
    statistics) is lumir's: one partition, eager's losses, gradients and running
    statistics. It ran in eager before and split the graph around each norm."""
    torch.manual_seed(0)
    model, reference = ConvBatchNorm().train(), ConvBatchNorm().train()
    reference.load_state_dict(model.state_dict())
    x = torch.randn(4, 3, 8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        history = _train_side_by_side(model, reference, x, lambda m, b: m(b).square().mean())
    assert [len(graph.partitions) for graph in stats.GRAPHS] == [1]
    for got, want, gradient_error in history:
        assert abs(got - want) <= 1e-5 * max(1.0, abs(want))
        assert gradient_error <= 1e-5
    assert history[0][1] != history[-1][1], "the weights did not move"
    for got, want in zip(model.norm.buffers(), reference.norm.buffers(), strict=True):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-5)
    assert int(model.norm.num_batches_tracked) == 3


class TwoBranchDropout(torch.nn.Module):
    """Five train-mode dropouts over two independent branches: the second branch's first
    dropout comes after the first branch's in eager, and a partition that merged its
    LayerNorm into the first branch's would move that dropout ahead of them."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.norm = torch.nn.LayerNorm(16)
        self.linears = torch.nn.ModuleList(torch.nn.Linear(16, 16) for _ in range(4))

    def forward(self, x, y):
        drop = torch.nn.functional.dropout
        first, second, third, last = self.linears
        a = drop(self.norm(x), 0.5, True)
        a = a + drop(first(a), 0.5, True)
        a = a + drop(second(a), 0.5, True)
        b = drop(self.norm(y), 0.5, True)
        b = b + drop(third(b), 0.5, True)
        return last(b) + a.sum(0, keepdim=True)


def test_seeded_dropout_draws_its_masks_in_eagers_order():
    """A seeded training step is eager's: the random ops run in their order, so each
    dropout gets the mask eager gives it (lumir.backend.random_order)."""
    model = TwoBranchDropout()
    x, y = torch.randn(4, 16), torch.randn(4, 16)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="lumir")
    for seed in (1, 123):
        torch.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LumirFallbackWarning)
            got = compiled(x, y)
        torch.manual_seed(seed)
        expected = model(x, y)
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)
    assert stats.GRAPHS[-1].partitions, "the linears and norms are lumir's"


def test_the_ordering_links_are_gone_after_partitioning():
    from lumir.backend.random_order import draws_random_numbers, random_ops_in_order

    gm = torch.fx.symbolic_trace(
        lambda x: torch.ops.aten.rand_like.default(torch.ops.aten.rand_like.default(x))
    )
    nodes = [n for n in gm.graph.nodes if draws_random_numbers(n)]
    assert len(nodes) == 2
    with random_ops_in_order(gm, lambda node: True):
        assert nodes[0] in nodes[1].all_input_nodes and nodes[0] in nodes[1].kwargs.values()
    assert all(not n.kwargs for n in nodes)
    gm.recompile()
    assert gm(torch.zeros(3)).shape == (3,)


_NORMED = {
    "layer": lambda: torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4)
    ),
    "group": lambda: torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3),
        torch.nn.GroupNorm(2, 8),
        torch.nn.Flatten(),
        torch.nn.Linear(288, 4),
    ),
    "batch": lambda: torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.BatchNorm1d(32), torch.nn.Linear(32, 4)
    ),
    "instance": lambda: torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3),
        torch.nn.InstanceNorm2d(8, affine=True),
        torch.nn.Flatten(),
        torch.nn.Linear(288, 4),
    ),
}


@pytest.mark.parametrize("norm", sorted(_NORMED))
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_norms_under_autocast_train_as_eager_does(norm, dtype):
    """Under autocast a norm runs in f32 on a half-precision input; its decomposed forward
    saves half-precision statistics, which ATen's fused backward kernel refuses (the
    backward raised at `loss.backward()`), so the backward is decomposed too. The
    gradients must be as close to the f32 ones as eager's mixed-precision gradients are."""
    torch.manual_seed(0)
    model = _NORMED[norm]()
    x = torch.randn(2, 3, 8, 8) if norm in ("group", "instance") else torch.randn(8, 16)

    def gradients(autocast, compiled):
        torch._dynamo.reset()
        copy = _NORMED[norm]()
        copy.load_state_dict(model.state_dict())
        run = torch.compile(copy, backend="lumir") if compiled else copy
        with torch.autocast("cpu", dtype=dtype, enabled=autocast):
            y = run(x)
        (y.float() * torch.linspace(-1, 1, y.numel()).view(y.shape)).sum().backward()
        return torch.cat([p.grad.flatten() for p in copy.parameters()])

    exact = gradients(autocast=False, compiled=False)
    eager_error = (gradients(autocast=True, compiled=False) - exact).abs().mean()
    lumir_error = (gradients(autocast=True, compiled=True) - exact).abs().mean()
    assert lumir_error <= 1.5 * eager_error
