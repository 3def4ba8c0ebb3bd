"""Sizes equal only at some lengths do not change the compiled program.

An import is static, so two values whose sizes come from different symbols (or from a
symbol and a literal) are identical ops at a length where those sizes happen to be
equal. hl-canonicalize's CSE must not merge them there: the prepared program would
differ from the fused template, and the graph would fuse again at that length
(lumir.frontend.size_tags, docs/passes/hl-canonicalize.md)."""

from __future__ import annotations

import torch

from lumir.backend import stats


def _two_ranges(x, y):
    i = torch.arange(x.shape[0], dtype=x.dtype)
    j = torch.arange(y.shape[0], dtype=y.dtype)
    return x @ x.T + i, y @ y.T + j


def _range_and_literal(x, z):
    i = torch.arange(x.shape[0], dtype=x.dtype)
    j = torch.arange(4, dtype=z.dtype)
    return x @ z.T + i[:, None], z @ z.T + j


def _fuses_once(function, calls) -> None:
    """Each call of `function` compiled with dynamic=True gives eager's values, and its
    one partition fuses once and specialises once per call."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=True)
    for args in calls:
        for got, want in zip(compiled(*args), function(*args), strict=True):
            torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    (graph,) = stats.GRAPHS
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, len(calls))]


@torch.no_grad()
def test_ranges_of_two_symbols_that_coincide_fuse_once():
    generator = torch.Generator().manual_seed(0)
    # distinct at the traced call (Dynamo's duck sizing gives them two symbols), equal
    # at the second, distinct again at the third
    _fuses_once(
        _two_ranges,
        [
            (torch.randn(a, 8, generator=generator), torch.randn(b, 8, generator=generator))
            for a, b in ((3, 5), (4, 4), (6, 2))
        ],
    )


@torch.no_grad()
def test_a_range_whose_length_meets_a_literal_fuses_once():
    generator = torch.Generator().manual_seed(1)
    z = torch.randn(4, 8, generator=generator)
    torch._dynamo.mark_static(z)
    _fuses_once(
        _range_and_literal, [(torch.randn(a, 8, generator=generator), z) for a in (3, 4, 6)]
    )


@torch.no_grad()
def test_t5_generation_fuses_each_graph_once():
    """T5's decoder compares the relative positions with max_exact = num_buckets // 2
    (4 here), a literal; at a past length of 4 the cache's length imported as the same
    constant and was merged with it, so the decode graph fused a second time. The past
    length now sizes no weight's product, so its ops run in eager and the decode graph's
    partitions compile once (lumir.backend.cache_lengths); the two tests above keep the
    coincidence itself covered."""
    import pytest

    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.T5Config(
        vocab_size=64,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=4,
        relative_attention_num_buckets=8,
        relative_attention_max_distance=16,
        decoder_start_token_id=0,
        pad_token_id=0,
    )
    model = transformers.T5ForConditionalGeneration(config).eval()
    ids = torch.randint(1, 64, (1, 7), generator=torch.Generator().manual_seed(1))
    settings = dict(max_new_tokens=7, min_new_tokens=7, do_sample=False)
    want = model.generate(ids, **settings)
    torch._dynamo.reset()
    stats.reset()
    model.forward = torch.compile(model.forward, backend="lumir")
    assert torch.equal(model.generate(ids, **settings), want)
    partitions = [p for graph in stats.GRAPHS for p in graph.partitions]
    assert [p.fuse_runs for p in partitions] == [1] * len(partitions)
    decode = stats.GRAPHS[-1]
    assert decode.cache_lengths
    assert all(p.specialisations == 1 for p in decode.partitions)
