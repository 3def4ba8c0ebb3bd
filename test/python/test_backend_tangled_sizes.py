"""Sizes an input carries only as a sum of symbols (`s + t`), with neither symbol alone.

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
from lumir.frontend.shapes import pinned_symbols, symbol_sites


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
