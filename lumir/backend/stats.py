"""Counters of what the backend did, per compiled partition: read by tests and reports."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class PartitionStats:
    """One lumir partition of one compiled graph."""

    label: str
    fuse_runs: int = 0
    """Times cublaslt-fuse ran for it (once, plus once per length whose structure or
    verification did not fit the fused template)."""
    specialisations: int = 0
    """Concrete shapes compiled for it (each one fused or re-typed, then loaded)."""
    loads: int = 0
    """Programs loaded (a new shape, or weights rebound after their storage changed)."""
    bound_inputs: int = 0
    """Arguments the last loaded program reads in place (weights, buffers, constants)."""
    in_place_updates: int = 0
    """Input mutations the last loaded program writes where the input lives (a KV cache
    update; lumir.backend.in_place)."""
    fresh_outputs: int = 0
    """Results the last loaded program computes into a tensor of the call's own and
    returns without a copy (a trailing matmul, such as the logits;
    lumir.runtime.fresh_outputs)."""
    launch_groups: int = 0
    """Grouped launches of the last loaded program (`cublaslt_rt.launch_group`, made by
    group-launches after the in-place rewrite: a decode layer's KV-cache writes, the
    cache counters' adds)."""
    fused: Counter[str] = field(default_factory=Counter)
    """From the first compile: matmuls, cublaslt_calls, fused_bias, ... (see report)."""


@dataclass
class GraphStats:
    """One graph handed to the backend by aot_autograd."""

    label: str
    partitions: list[PartitionStats] = field(default_factory=list)
    fallback_ops: list[str] = field(default_factory=list)
    unsupported: list[tuple[str, str]] = field(default_factory=list)
    """(op, why lumir does not import it) for the fallback ops that are unsupported, in
    graph order; the others fell back with a failed partition or are `kept_in_eager`."""
    failures: list[str] = field(default_factory=list)
    kept_in_eager: list[str] = field(default_factory=list)
    """Supported nodes run in eager all the same, each with why (storage reads)."""
    cache_lengths: tuple[str, ...] = ()
    """Symbolic sizes no product of a weight depends on, whose ops run in eager
    (lumir.backend.cache_lengths)."""
    compile_ms: float = 0.0


GRAPHS: list[GraphStats] = []
"""Every graph compiled in this process, in order."""


_NAMING = threading.Lock()
"""Held while a graph takes its number: two graphs compiled at once (the backend called
from two threads; torch.compile itself compiles one frame at a time) get two names,
and so dump to two sets of files."""


def new_graph() -> GraphStats:
    """Register and return the stats of the next compiled graph (`graph0`, `graph1`, ...)."""
    with _NAMING:
        stats = GraphStats(f"graph{len(GRAPHS)}")
        GRAPHS.append(stats)
    return stats


def reset() -> None:
    """Forget every graph (tests call this between cases)."""
    with _NAMING:
        GRAPHS.clear()
