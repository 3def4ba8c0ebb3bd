"""Random ops keep their order through partitioning: eager's random streams, step for step.

The random ops of an ATen graph (train-mode dropout, `rand`, `bernoulli`, activation
checkpointing's `run_and_save_rng_state`: ops tagged `nondeterministic_seeded`) run in
eager, and each draws from the global generator in turn, so the order in which they run
decides which mask lands on which tensor. Fusing partitions can change that order: a
partition runs where its last node was, so a node merged into it from an independent
branch (a second input's dropout in the repro of `test_backend_training.py`) can move a
random op that reads it ahead of another. aot_eager keeps the order, so a seeded training
step under lumir would then differ from eager's and aot_eager's (a BART with dropout 0.1:
logits 0.3 apart), though every mask is still a valid dropout.

So while the partitions are proposed and fused, each random op also reads the one before
it (a keyword argument made for the purpose): the partitioner, which never builds a
partition that would have to run both before and after one node, then cannot build one
whose call would put a random op ahead of an earlier one, and the stable topological sort
after fusion keeps them in order. The keyword is removed before the graph is compiled.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
from torch import fx

_ORDER_KEY = "_lumir_after_random_op"
"""The keyword a random op reads its predecessor through, while partitions are made."""

_RNG_STATE_OPS = frozenset({"run_and_save_rng_state", "run_with_rng_state"})
"""Higher-order ops that read or set the generator's state (activation checkpointing)."""


def draws_random_numbers(node: fx.Node) -> bool:
    """Whether running `node` reads or advances the global random generator."""
    if node.op != "call_function":
        return False
    target = node.target
    if torch.Tag.nondeterministic_seeded in getattr(target, "tags", ()):
        return True
    return getattr(target, "__name__", "") in _RNG_STATE_OPS


@contextmanager
def random_ops_in_order(gm: fx.GraphModule, in_eager: Callable[[fx.Node], bool]) -> Iterator[None]:
    """Within the block each random op of `gm` that runs in eager (`in_eager`) depends
    on the previous one; after it, they are in their original order and read nothing
    extra.

    Only eager nodes are linked: fusion moves partition nodes into submodules and keeps
    eager ones, so the links are found again on the way out. An op that may draw random
    numbers but that lumir imports draws none as imported (an attention without
    dropout, tagged like one with it).
    """
    ordered = [n for n in gm.graph.nodes if draws_random_numbers(n) and in_eager(n)]
    for before, after in itertools.pairwise(ordered):
        after.kwargs = {**after.kwargs, _ORDER_KEY: before}
    try:
        yield
    finally:
        for node in gm.graph.nodes:
            if _ORDER_KEY in node.kwargs:
                node.kwargs = {k: v for k, v in node.kwargs.items() if k != _ORDER_KEY}
