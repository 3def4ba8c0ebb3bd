"""A size that sizes no matrix product runs its ops in eager, so the products compile
once for every value of it (lumir.backend.cache_lengths): a decode step's key length."""

from __future__ import annotations

import warnings

import torch

import lumir.backend  # noqa: F401  (registers "lumir")
from lumir.backend import LumirFallbackWarning, stats


def _run(function, lengths, weight):
    """`function(x, past, weight)` compiled with past's length dynamic, called at each of
    `lengths`, each result checked against eager; the last graph's stats."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir")
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(1, 8, generator=generator)
    for length in lengths:
        past = torch.randn(1, length, 8, generator=generator)
        torch._dynamo.mark_dynamic(past, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", LumirFallbackWarning)
            got = compiled(x, past, weight)
        torch.testing.assert_close(got, function(x, past, weight), atol=1e-5, rtol=1e-5)
    (graph,) = stats.GRAPHS
    return graph


def _decode_like(x, past, weight):
    """Products of fixed size around a cache that grows: the length sizes the cat and
    the reduction over it, no product."""
    keys = torch.cat([past, (x @ weight)[None]], dim=1)
    return torch.softmax(keys, dim=1).sum(1) @ weight


def _products_of_the_length(x, past, weight):
    keys = torch.cat([past, (x @ weight)[None]], dim=1)
    return (keys.transpose(1, 2) @ keys).sum(1) @ weight


def _no_product(x, past, weight):
    return torch.cat([past, (x * weight[0])[None]], dim=1).sum(1)


@torch.no_grad()
def test_a_length_that_sizes_no_product_compiles_the_products_once():
    graph = _run(_decode_like, [3, 4, 5, 7], torch.randn(8, 8))
    assert len(graph.cache_lengths) == 1 and graph.fallback_ops == []
    assert len(graph.partitions) == 2  # before and after the cache's ops
    assert all((p.fuse_runs, p.specialisations) == (1, 1) for p in graph.partitions)


@torch.no_grad()
def test_the_report_names_the_cache_lengths():
    from lumir.backend.report import report_line

    graph = _run(_decode_like, [3, 4], torch.randn(8, 8))
    line = report_line(graph, "cpu", "strict")
    assert f"cache_lengths={graph.cache_lengths[0]} " in line
    assert "cache_lengths" not in report_line(
        _run(_no_product, [3, 4], torch.randn(8, 8)), "cpu", "strict"
    )


@torch.no_grad()
def test_a_length_that_sizes_a_product_is_specialised_per_length():
    graph = _run(_products_of_the_length, [3, 4, 5], torch.randn(8, 8))
    assert graph.cache_lengths == ()
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, 3)]


@torch.no_grad()
def test_a_graph_without_products_keeps_its_specialisations():
    graph = _run(_no_product, [3, 4, 5], torch.randn(8, 8))
    assert graph.cache_lengths == ()
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, 3)]
