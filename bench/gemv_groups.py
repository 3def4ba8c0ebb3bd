"""A decode layer's GEMV groups on the GPU: one launch per projection against grouped ones.

The projections of a Llama-1B layer that read one activation (q, k, v: 2048, 512 and
512 rows of 2048; gate and up: 8192 rows of 2048) run as lumir's GEMV at decode. This
times each set inside CUDA graphs (as lumir replays them; CUDA-event medians over
replays of a graph of `--repeat` rounds, each round on its own copy of the weights so
they stream from HBM, not L2), three ways:

- `separate`: one GEMV launch per projection, each with its `gemv_config` block shape
  (what lumir ran before group-gemv);
- `grouped`: what group-gemv makes of it: projections whose `gemv_config` agree share
  one launch of the grouped kernel (`gemv_groups`), so every D is bit for bit its
  separate launch's, which the run checks;
- `one launch`: every projection in one launch with the block shape of the merged rows
  (`gemv_config(sum of m, k)`): the bound for a group whose sums may differ from the
  separate launches' (not what lumir runs; reported, not checked).

    PYTHONPATH=$PWD python3 -m bench.gemv_groups [--repeat 50]
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable, Sequence

import torch

from bench.timing import graph_time_us
from lumir.plan_algorithms import GEMV_GROUP_MAX, GemvConfig, gemv_config

SETS = {"q+k+v": ((2048, 512, 512), 2048), "gate+up": ((8192, 8192), 2048)}
"""Name -> (rows of each projection, k): the Llama-1B projections that read one vector."""


def gemv_groups(rows: Sequence[int], k: int) -> list[list[int]]:
    """The indices of `rows` that share a grouped launch, as group-gemv groups calls of
    one activation: in order, each call not yet taken anchors a group, and every later
    call with its `gemv_config` joins, up to `GEMV_GROUP_MAX` (a group of one is a plain
    launch)."""
    groups: list[list[int]] = []
    taken: set[int] = set()
    for anchor, m in enumerate(rows):
        if anchor in taken:
            continue
        group = [anchor]
        for later in range(anchor + 1, len(rows)):
            joins = later not in taken and gemv_config(rows[later], k) == gemv_config(m, k)
            if joins and len(group) < GEMV_GROUP_MAX:
                group.append(later)
        taken.update(group)
        groups.append(group)
    return groups


def merged_config(rows: Sequence[int], k: int) -> GemvConfig:
    """The block shape of one launch over all `rows`: gemv_config of the merged rows."""
    return gemv_config(sum(rows), k)


def _rounds(rows: Sequence[int], k: int, copies: int):
    """Launches per round for each way, one list per copy of the weights, and the
    outputs they all write."""
    from lumir.runtime.gemv import GemvOperands, gemv_launch, grouped_gemv_launch

    x = torch.randn(k, device="cuda", dtype=torch.bfloat16)
    weights = [
        [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m in rows]
        for _ in range(copies)
    ]
    outs = [torch.empty(m, device="cuda", dtype=torch.bfloat16) for m in rows]
    calls = [[GemvOperands(w, x, d) for w, d in zip(ws, outs, strict=True)] for ws in weights]
    separate = [[gemv_launch(c.a, c.x, c.d) for c in copy] for copy in calls]
    groups = gemv_groups(rows, k)
    grouped = [[grouped_gemv_launch([copy[i] for i in g]) for g in groups] for copy in calls]
    block_m, block_k, warps = merged_config(rows, k)
    one = [
        [grouped_gemv_launch(copy, block_m=block_m, block_k=block_k, num_warps=warps)]
        for copy in calls
    ]
    return separate, grouped, one, outs


def _time(launches: list[list[Callable[[], None]]], repeat: int) -> float:
    counter = itertools.count()

    def round_() -> None:
        for launch in launches[next(counter) % len(launches)]:
            launch()

    return graph_time_us(round_, repeat)


def measure(name: str, rows: Sequence[int], k: int, repeat: int) -> str:
    """One markdown row: µs per round of each way, and whether grouped equals separate."""
    copies = max(1, (256 << 20) // (sum(rows) * k * 2))
    separate, grouped, one, outs = _rounds(rows, k, copies)
    times = [_time(launches, repeat) for launches in (separate, grouped, one)]
    for launch in separate[0]:
        launch()
    alone = [d.clone() for d in outs]
    for launch in grouped[0]:
        launch()
    torch.cuda.synchronize()
    identical = all(torch.equal(d, want) for d, want in zip(outs, alone, strict=True))
    groups = " ".join("+".join(str(rows[i]) for i in g) for g in gemv_groups(rows, k))
    return (
        f"| {name} | {' '.join(str(m) for m in rows)} x {k} | {times[0]:.2f} | {groups} | "
        f"{times[1]:.2f} | {'yes' if identical else 'NO'} | {merged_config(rows, k)} | "
        f"{times[2]:.2f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.gemv_groups")
    parser.add_argument("--repeat", type=int, default=50, help="rounds per graph replay")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("bench.gemv_groups needs a CUDA device")
        return 2
    torch.manual_seed(0)
    print(
        "| set | rows x k | separate µs | group-gemv's launches | grouped µs | bit-identical | "
        "merged block shape | one launch µs |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, (rows, k) in SETS.items():
        print(measure(name, rows, k, args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
