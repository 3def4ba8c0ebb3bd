"""One-row bf16 GEMMs on the GPU: cuBLASLt (through torch) against a Triton GEMV.

Decode GEMMs have one activation row, so they are memory-bound: their floor is the
weight's bytes at the copy rate. This measures, inside CUDA graphs (as lumir replays
them), what cuBLASLt reaches there and what a plain Triton GEMV reaches over a sweep of
block shapes, for the Llama-1B projection shapes, and prints the best configuration per
shape with its bandwidth. CUDA-event medians over replays of a graph of `--repeat`
launches.

    PYTHONPATH=$PWD python3 bench/gemv_sweep.py
    PYTHONPATH=$PWD python3 bench/gemv_sweep.py --wide gemv.csv
    PYTHONPATH=$PWD python3 bench/gemv_sweep.py --wide gemv.csv --shapes 2048x8192,2048x2048

`--wide` sweeps more block shapes, warps and Triton's pipelining depth over the shapes
of a decode layer, writes every timing to a CSV, and then times a whole layer's GEMV
launches (q+k+v grouped, o, gate+up grouped, down) for the block shapes that did best
over the k = 2048 projections, against the layer as lumir's `gemv_config` runs it: a
block shape shared by q, k and v lets the three share one launch with each member's
sums its own. `--shapes` sweeps only the shapes named (the whole-layer rows then need all
four); every CSV row is flushed as it is timed, so a sweep stopped by a time limit keeps
what it measured.
"""

from __future__ import annotations

import argparse
import itertools

import torch

from bench.timing import graph_time_us, rotating

SHAPES = [(2048, 2048), (512, 2048), (8192, 2048), (2048, 8192), (10240, 2048), (3072, 2048)]
"""(out features M, in features K): q/o, k/v, gate/up, down, merged gate+up, merged qkv."""


CONFIGS = [
    (block_m, block_k, warps)
    for block_m, block_k, warps in itertools.product((1, 2, 4, 8, 16), (256, 512, 1024), (4, 8))
    if block_m * block_k <= 8192
]


def sweep(m: int, k: int, repeat: int) -> str:
    from lumir.runtime.gemv import gemv_launch

    copies = max(1, (256 << 20) // (m * k * 2))
    weights = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
    x = torch.randn(1, k, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(1, m, device="cuda", dtype=torch.bfloat16)
    exact = x.float() @ weights[0].float().t()
    base = graph_time_us(rotating(weights, lambda w: torch.mm(x, w.t(), out=out)), repeat)
    results = []
    for block_m, block_k, warps in CONFIGS:
        options = {"block_m": block_m, "block_k": block_k, "num_warps": warps}
        launch = rotating(weights, lambda w, o=options: gemv_launch(w, x[0], out[0], **o)())
        try:
            results.append((graph_time_us(launch, repeat, samples=7), (block_m, block_k, warps)))
        except Exception as error:  # a config Triton cannot compile
            print(f"  {m}x{k} {(block_m, block_k, warps)}: {type(error).__name__}")
    us, config = min(results)
    gemv_launch(weights[0], x[0], out[0])()
    default_us = dict((c, t) for t, c in results).get(_default(m, k), float("nan"))
    err = (out.float() - exact).abs().max().item()
    megabytes = m * k * 2 / 1e6
    return (
        f"| {m} x {k} | {megabytes:.1f} | {base:.2f} | {megabytes / base:.2f} | {us:.2f} | "
        f"{megabytes / us:.2f} | {config} | {default_us:.2f} | {err:.3g} |"
    )


WIDE_SHAPES = [(2048, 2048), (512, 2048), (8192, 2048), (2048, 8192)]
"""A decode layer's projections: q/o, k/v, gate/up (k = 2048) and down (k = 8192)."""

WIDE_CONFIGS = [
    (block_m, block_k, warps, stages)
    for block_m, block_k, warps, stages in itertools.product(
        (1, 2, 4, 8, 16, 32), (256, 512, 1024, 2048), (2, 4, 8, 16), (1, 3)
    )
    if 32 * warps * 8 <= block_m * block_k <= 16384
]
"""(BLOCK_M, BLOCK_K, num_warps, num_stages): at least one 16-byte load per thread."""

LAYER_USES = {(2048, 2048): 2, (512, 2048): 2, (8192, 2048): 2}
"""How often a decode layer runs each k = 2048 shape (q and o, k and v, gate and up)."""


def _weights(m: int, k: int) -> list[torch.Tensor]:
    copies = max(1, (256 << 20) // (m * k * 2))
    return [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]


def parse_shapes(text: str) -> list[tuple[int, int]]:
    """`--shapes`: comma-separated `MxK` (out features x in features), e.g. `2048x8192`."""
    shapes = []
    for item in text.split(","):
        m, sep, k = item.strip().lower().partition("x")
        if not (sep and m.isdigit() and k.isdigit() and int(m) > 0 and int(k) > 0):
            raise argparse.ArgumentTypeError(f"expected MxK with positive M and K, got {item!r}")
        shapes.append((int(m), int(k)))
    return shapes


def wide(csv_path: str, repeat: int, top: int, shapes: list[tuple[int, int]] | None = None) -> None:
    """Every (shape, config) timing to `csv_path`; then whole-layer timings when every
    shape of a decode layer was swept."""
    from lumir.runtime.gemv import gemv_launch

    times: dict[tuple[int, int], dict[tuple[int, ...], float]] = {}
    with open(csv_path, "w") as csv:
        csv.write("m,k,block_m,block_k,num_warps,num_stages,us,tb_per_s\n")
        for m, k in shapes or WIDE_SHAPES:
            weights = _weights(m, k)
            x = torch.randn(k, device="cuda", dtype=torch.bfloat16)
            out = torch.empty(m, device="cuda", dtype=torch.bfloat16)
            times[m, k] = {}
            for config in WIDE_CONFIGS:
                block_m, block_k, warps, stages = config
                if block_k > k:
                    continue
                options = {
                    "block_m": block_m,
                    "block_k": block_k,
                    "num_warps": warps,
                    "num_stages": stages,
                }
                step = rotating(
                    weights, lambda w, o=options, x=x, out=out: gemv_launch(w, x, out, **o)()
                )
                try:
                    us = graph_time_us(step, repeat, samples=7)
                except Exception as error:  # a config Triton cannot compile
                    print(f"  {m}x{k} {config}: {type(error).__name__}", flush=True)
                    continue
                times[m, k][config] = us
                csv.write(f"{m},{k},{block_m},{block_k},{warps},{stages},{us:.3f},")
                csv.write(f"{m * k * 2 / us / 1e6:.3f}\n")
                csv.flush()
            best = min(times[m, k], key=times[m, k].get)
            alone = _default(m, k)
            now = min((us for c, us in times[m, k].items() if c[:3] == alone), default=float("nan"))
            print(
                f"{m} x {k}: best {best} {times[m, k][best]:.2f} µs "
                f"({m * k * 2 / times[m, k][best] / 1e6:.2f} TB/s); gemv_config {alone} "
                f"{now:.2f} µs",
                flush=True,
            )
    if not set(WIDE_SHAPES) <= set(times):
        print("whole-layer rows skipped: they need every shape of WIDE_SHAPES swept")
        return
    shared = [
        config
        for config in times[2048, 2048]
        if all(config in times[shape] for shape in LAYER_USES)
    ]
    shared.sort(key=lambda c: sum(n * times[s][c] for s, n in LAYER_USES.items()))
    down = min(times[2048, 8192], key=times[2048, 8192].get)
    print(f"down's best: {down} {times[2048, 8192][down]:.2f} µs")
    print("| k = 2048 config | q+k+v one launch µs | o µs | gate+up µs | down µs | layer µs |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(_layer_row("gemv_config now", None, repeat))
    for config in shared[:top]:
        print(_layer_row(str(config), (config, down), repeat), flush=True)


def _layer_row(name: str, configs, repeat: int, pdl=None) -> str:
    """One decode layer's GEMV launches: with `configs` = (k = 2048 config, down's
    config), q+k+v share one launch; with None, lumir's gemv_config and its groups
    (q+k+v, o, gate+up, down), launched with `pdl` (a `PdlMode`) when given."""
    from lumir.runtime.gemv import GemvOperands, gemv_launch, grouped_gemv_launch
    from lumir.runtime.pdl import NO_PDL

    pdl = pdl or NO_PDL

    x, h = (torch.randn(n, device="cuda", dtype=torch.bfloat16) for n in (2048, 8192))
    rows = {"q": 2048, "k": 512, "v": 512, "o": 2048, "gate": 8192, "up": 8192}
    copies = 4
    weights = [
        {
            **{
                name: torch.randn(m, 2048, device="cuda", dtype=torch.bfloat16)
                for name, m in rows.items()
            },
            "down": torch.randn(2048, 8192, device="cuda", dtype=torch.bfloat16),
        }
        for _ in range(copies)
    ]
    outs = {name: torch.empty(m, device="cuda", dtype=torch.bfloat16) for name, m in rows.items()}
    outs["down"] = torch.empty(2048, device="cuda", dtype=torch.bfloat16)

    def calls(w, names, vector=x):
        return [GemvOperands(w[n], vector, outs[n]) for n in names]

    sets = []
    for w in weights:
        if configs is None:
            launches = [
                grouped_gemv_launch(calls(w, ["q", "k", "v"]), pdl=pdl),
                grouped_gemv_launch(calls(w, ["o"]), pdl=pdl),
                grouped_gemv_launch(calls(w, ["gate", "up"]), pdl=pdl),
                gemv_launch(w["down"], h, outs["down"], pdl=pdl),
            ]
            parts = [[0], [1], [2], [3]]
        else:
            (bm, bk, warps, stages), (dm, dk, dwarps, dstages) = configs
            shape = {"block_m": bm, "block_k": bk, "num_warps": warps, "num_stages": stages}
            launches = [
                grouped_gemv_launch(calls(w, ["q", "k", "v"]), **shape),
                grouped_gemv_launch(calls(w, ["o"]), **shape),
                grouped_gemv_launch(calls(w, ["gate", "up"]), **shape),
                gemv_launch(
                    w["down"],
                    h,
                    outs["down"],
                    block_m=dm,
                    block_k=dk,
                    num_warps=dwarps,
                    num_stages=dstages,
                ),
            ]
            parts = [[0], [1], [2], [3]]
        sets.append((launches, parts))
    part_times = []
    for part in range(4):
        step = rotating(sets, lambda s, p=part: [s[0][i]() for i in s[1][p]])
        part_times.append(graph_time_us(step, repeat, samples=7))
    layer = rotating(sets, lambda s: [launch() for launch in s[0]])
    total = graph_time_us(layer, repeat, samples=7)
    cells = " | ".join(f"{t:.2f}" for t in part_times)
    return f"| {name} | {cells} | {total:.2f} |"


def pdl_rows(repeat: int) -> None:
    """A decode layer's GEMV launches as lumir runs them, without and with programmatic
    dependent launch (`lumir.runtime.pdl`), the weight prefetched before the wait or not."""
    from lumir.runtime.pdl import PdlMode

    print("| launches | q+k+v µs | o µs | gate+up µs | down µs | layer µs |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(_layer_row("no PDL", None, repeat), flush=True)
    print(_layer_row("PDL", None, repeat, PdlMode(dependent=True)), flush=True)
    modes = PdlMode(dependent=True, prefetch_weight=True)
    print(_layer_row("PDL, weight prefetched", None, repeat, modes), flush=True)


def _default(m: int, k: int) -> tuple[int, int, int]:
    from lumir.runtime.gemv import gemv_config

    return gemv_config(m, k)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--wide", metavar="CSV", help="the wide sweep, timings to this CSV")
    parser.add_argument("--top", type=int, default=8, help="--wide: layer rows to time")
    parser.add_argument(
        "--shapes", type=parse_shapes, help="--wide: only these shapes, e.g. 2048x8192,2048x2048"
    )
    parser.add_argument("--pdl", action="store_true", help="layer rows with and without PDL")
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.pdl:
        pdl_rows(args.repeat)
        return
    if args.wide:
        wide(args.wide, args.repeat, args.top, args.shapes)
        return
    print(
        "| M x K | MB | cuBLASLt µs | TB/s | best GEMV µs | TB/s | config | "
        "lumir's config µs | err vs f32 |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for m, k in SHAPES:
        print(sweep(m, k, args.repeat), flush=True)


if __name__ == "__main__":
    main()
