"""Sizes an input carries only as a sum (`s + t`) or product (`s * t`) of symbols, with
neither symbol alone.

After an eager op (here `sort`, which lumir does not import), the next partition may see
two dynamic lengths only through their `cat`: no input size tells `s` from `t`. Where
every size of the partition depends on them only through the sum, `t` is pinned at its
traced value and `s` solved from the sum (`lumir.frontend.shapes.pinned_symbols`);
where some size needs them apart, nothing is pinned and the partition runs in eager,
as before.
"""

from __future__ import annotations

import warnings

import torch
from torch import fx
from torch._dynamo.source import ConstantSource
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from lumir.backend import stats
from lumir.frontend.shapes import hint_bindings, pinned_symbols, site_symbol_value, symbol_sites


@torch.no_grad()
def test_a_partition_that_sees_two_lengths_only_as_their_sum_compiles_once():
    w = torch.randn(4, 3)

    def program(x, y):
        values, _ = torch.cat([x, y]).sort(dim=0)  # sort runs in eager
        return (values * 2 + 1).softmax(0) @ w

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(program, backend="lumir", dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # (6, 6) and (4, 8) have the sum of (5, 7), split differently; (4, 9) does not
        for rows in ((5, 7), (6, 6), (4, 9), (4, 8)):
            x, y = torch.randn(rows[0], 4), torch.randn(rows[1], 4)
            torch.testing.assert_close(compiled(x, y), program(x, y))
    messages = [str(w.message) for w in caught if str(w.message).startswith("lumir")]
    assert not any("failed" in m for m in messages), messages
    (graph,) = stats.GRAPHS
    after = graph.partitions[-1]
    assert after.fuse_runs == 1 and after.fused["matmuls"] == 1
    assert after.specialisations == 2  # one per distinct sum: 12 and 13 rows


def _placeholder_with_rows(rows: torch.SymInt) -> fx.Node:
    with FakeTensorMode(shape_env=rows.node.shape_env):
        example = torch.empty(rows, 4)
    node = fx.Graph().placeholder("x")
    node.meta["val"] = example
    return node


def _sizes(env: ShapeEnv, *hints: int) -> list[torch.SymInt]:
    return [
        env.create_symintnode(env.create_symbol(h, ConstantSource(f"n{i}")), hint=h)
        for i, h in enumerate(hints)
    ]


def test_a_symbol_is_pinned_only_where_every_size_depends_on_the_sum_alone():
    s, t = _sizes(ShapeEnv(), 5, 7)
    total = (s + t).node.expr
    placeholder = _placeholder_with_rows(s + t)
    first, second = sorted(total.free_symbols, key=str)
    hint = {s.node.expr: 5, t.node.expr: 7}[second]

    pinned = pinned_symbols([placeholder], lambda: [total, 2 * total + 1])
    assert pinned == {second: hint}
    assert symbol_sites([placeholder], pinned) == ((0, 0, first, first + hint),)

    assert pinned_symbols([placeholder], lambda: [total, s.node.expr]) == {}
    assert pinned_symbols([placeholder], lambda: [total, t.node.expr * 2]) == {}


@torch.no_grad()
def test_a_partition_that_sees_batch_and_length_only_as_their_product_compiles_once():
    """A mixture-of-experts router under `dynamic=True`: the tokens, `[batch, length]`
    flattened, go through `topk` in eager, and the partition after it sees batch and
    length only as their product. `t` is pinned at 1, so every token count binds
    (at its traced value, 7, a call of 5 x 3 = 15 tokens would have no integer `s` for
    `7 * s`);
    before, the partition failed to compile ("size s0*s1 depends on unbound symbols")
    and ran in eager."""
    w = torch.randn(2, 16)

    def router(x):
        tokens = x.reshape(-1, x.shape[-1])
        weights, _ = torch.topk(tokens, 2, dim=-1)  # topk runs in eager
        return (weights * 2).softmax(-1) @ w

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(router, backend="lumir", dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for shape in ((3, 7, 8), (5, 3, 8), (4, 5, 8), (6, 6, 8)):
            x = torch.randn(shape)
            torch.testing.assert_close(compiled(x), router(x))
    messages = [str(w.message) for w in caught if str(w.message).startswith("lumir")]
    assert not any("failed" in m for m in messages), messages
    (graph,) = stats.GRAPHS
    after = graph.partitions[-1]
    assert after.fuse_runs == 1 and after.fused["matmuls"] == 1
    assert after.specialisations == 4  # one per token count: 21, 15, 20 and 36


def test_a_factor_of_a_product_is_pinned_at_one_where_only_the_product_is_read():
    s, t = _sizes(ShapeEnv(), 2, 9)
    product = (s * t).node.expr
    placeholder = _placeholder_with_rows(s * t)
    first, second = sorted(product.free_symbols, key=str)

    pinned = pinned_symbols([placeholder], lambda: [product, 2 * product + 1])
    assert pinned == {second: 1}
    sites = symbol_sites([placeholder], pinned)
    assert sites == ((0, 0, first, first),)
    # the first compile binds the solved symbol to the traced token count, not its hint
    assert hint_bindings([placeholder], sites) == {first: 18}

    assert pinned_symbols([placeholder], lambda: [product, s.node.expr]) == {}
    assert pinned_symbols([placeholder], lambda: [product, t.node.expr + 1]) == {}


@torch.no_grad()
def test_a_partition_after_an_embedding_bag_of_a_2d_batch_compiles_once():
    """`nn.EmbeddingBag` given `[batch, length]` indices traces its offsets as
    `arange(0, batch * length, length)`, so the partition after the eager bag sees the
    bags' count only as `(s * t + t - 1) // t`, linear in neither symbol. Every size of
    the partition reads them through that whole size, so `t` is pinned at its traced
    value (the size is then `s` itself); before, the partition failed to compile
    ("depends on unbound symbols") and ran in eager."""
    torch.manual_seed(0)
    bag, w = torch.nn.EmbeddingBag(30, 8, mode="max"), torch.randn(8, 9)

    def program(ids):
        return (bag(ids) * 2 + 1).softmax(-1) @ w

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(program, backend="lumir", dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for shape in ((3, 4), (5, 4), (2, 7), (6, 5), (4, 3)):
            ids = torch.randint(0, 30, shape, generator=torch.Generator().manual_seed(shape[0]))
            torch.testing.assert_close(compiled(ids), program(ids))
    messages = [str(w.message) for w in caught if str(w.message).startswith("lumir")]
    assert not any("failed" in m for m in messages), messages
    after = stats.GRAPHS[-1].partitions[-1]
    assert after.fuse_runs == 1 and after.fused["matmuls"] == 1


def test_a_size_linear_in_no_symbol_is_pinned_only_where_read_whole():
    s, t = _sizes(ShapeEnv(), 3, 4)
    bags = ((s * t + t - 1) // t).node.expr
    placeholder = _placeholder_with_rows((s * t + t - 1) // t)
    first, second = sorted(bags.free_symbols, key=str)
    hint = {s.node.expr: 3, t.node.expr: 4}[second]

    pinned = pinned_symbols([placeholder], lambda: [bags, 8 * bags + 1])
    assert pinned == {second: hint}
    sites = symbol_sites([placeholder], pinned)
    assert [site[:3] for site in sites] == [(0, 0, first)]
    assert hint_bindings([placeholder], sites) == {first: 3}

    assert pinned_symbols([placeholder], lambda: [bags, s.node.expr]) == {}
    assert pinned_symbols([placeholder], lambda: [bags, t.node.expr * 2]) == {}


@torch.no_grad()
def test_a_symbol_a_size_divides_by_is_solved_from_that_size():
    """With the batch read off another input, the bags' length `t` is solved from the
    bag rows `(s * t + t - 1) // t` by search, which started at `t = 0` and divided by
    zero: the partition failed to compile ("ZeroDivisionError") and ran in eager."""
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(30, 8, mode="max")

    def program(ids, scale):
        return (bag(ids) * scale[:, None]).softmax(-1)

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(program, backend="lumir", dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for shape in ((3, 4), (5, 4), (2, 7)):
            generator = torch.Generator().manual_seed(shape[0])
            ids, scale = torch.randint(0, 30, shape, generator=generator), torch.randn(shape[0])
            torch.testing.assert_close(compiled(ids, scale), program(ids, scale))
    messages = [str(w.message) for w in caught if str(w.message).startswith("lumir")]
    assert not any("failed" in m for m in messages), messages

    s, t = _sizes(ShapeEnv(), 3, 4)
    rows = ((s * t + t - 1) // t).node.expr
    site = (0, 0, t.node.expr, rows)
    assert site_symbol_value(site, 5, {s.node.expr: 5}) == 1
