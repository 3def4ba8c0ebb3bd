"""A size that sizes no product of a weight runs its ops in eager, so the weights'
products compile once for every value of it (lumir.backend.cache_lengths): a decode
step's key length."""

from __future__ import annotations

import warnings

import torch

import lumir.backend  # noqa: F401  (registers "lumir")
from lumir.backend import LumirFallbackWarning, stats
from lumir.backend.report import report_line


class Step(torch.nn.Module):
    """`step(x, past)` of one weight, its form chosen by `kind`."""

    def __init__(self, kind: str):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 8, generator=torch.Generator()))
        self.kind = kind

    def forward(self, x, past):
        w = self.weight
        if self.kind == "decode":  # the length sizes the cat and the softmax over it
            keys = torch.cat([past, (x @ w)[None]], dim=1)
            return torch.softmax(keys, dim=1).sum(1) @ w
        if self.kind == "attention":  # ... and products of activations: q @ k^T, p @ v
            keys = torch.cat([past, (x @ w)[None]], dim=1)
            scores = torch.softmax((x @ w)[None] @ keys.transpose(1, 2), dim=-1)
            return (scores @ keys)[0] @ w
        if self.kind == "rows":  # the length is a product's row count
            return (past @ w).sum(1)
        return torch.cat([past, (x * w[0])[None]], dim=1).sum(1)  # no product at all


def _run(kind: str, lengths: list[int]):
    """`Step(kind)` compiled with past's length dynamic, called at each of `lengths`,
    each result checked against eager; the graph's stats."""
    torch._dynamo.reset()
    stats.reset()
    torch.manual_seed(0)
    model = Step(kind)
    compiled = torch.compile(model, backend="lumir")
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(1, 8, generator=generator)
    for length in lengths:
        past = torch.randn(1, length, 8, generator=generator)
        torch._dynamo.mark_dynamic(past, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", LumirFallbackWarning)
            got = compiled(x, past)
        torch.testing.assert_close(got, model(x, past), atol=1e-5, rtol=1e-5)
    (graph,) = stats.GRAPHS
    return graph


@torch.no_grad()
def test_a_length_that_sizes_no_weights_product_compiles_the_products_once():
    for kind in ("decode", "attention"):
        graph = _run(kind, [3, 4, 5, 7])
        assert len(graph.cache_lengths) == 1 and graph.fallback_ops == []
        assert len(graph.partitions) == 2  # before and after the cache's ops
        assert all((p.fuse_runs, p.specialisations) == (1, 1) for p in graph.partitions)


@torch.no_grad()
def test_the_report_names_the_cache_lengths():
    graph = _run("decode", [3, 4])
    assert f"cache_lengths={graph.cache_lengths[0]} " in report_line(graph, "cpu", "strict")
    assert "cache_lengths" not in report_line(_run("rows", [3, 4]), "cpu", "strict")


@torch.no_grad()
def test_a_length_that_sizes_a_weights_product_is_specialised_per_length():
    graph = _run("rows", [3, 4, 5])
    assert graph.cache_lengths == ()
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, 3)]


@torch.no_grad()
def test_a_graph_without_products_keeps_its_specialisations():
    graph = _run("none", [3, 4, 5])
    assert graph.cache_lengths == ()
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, 3)]


@torch.no_grad()
def test_without_known_weights_nothing_moves_to_eager():
    """A function's plain tensor arguments are not parameters: no product is known to be
    a weight's, so the length is specialised as before."""
    torch._dynamo.reset()
    stats.reset()

    def step(x, past, w):
        return torch.softmax(torch.cat([past, (x @ w)[None]], dim=1), dim=1).sum(1) @ w

    compiled = torch.compile(step, backend="lumir")
    w, x = torch.randn(8, 8), torch.randn(1, 8)
    for length in (3, 4, 5):
        past = torch.randn(1, length, 8)
        torch._dynamo.mark_dynamic(past, 1)
        torch.testing.assert_close(compiled(x, past, w), step(x, past, w))
    (graph,) = stats.GRAPHS
    assert graph.cache_lengths == ()
    assert [p.specialisations for p in graph.partitions] == [3]
