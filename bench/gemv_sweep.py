"""One-row bf16 GEMMs on the GPU: cuBLASLt (through torch) against a Triton GEMV.

Decode GEMMs have one activation row, so they are memory-bound: their floor is the
weight's bytes at the copy rate. This measures, inside CUDA graphs (as lumir replays
them), what cuBLASLt reaches there and what a plain Triton GEMV reaches over a sweep of
block shapes, for the Llama-1B projection shapes, and prints the best configuration per
shape with its bandwidth. CUDA-event medians over replays of a graph of `--repeat`
launches.

    PYTHONPATH=$PWD python3 bench/gemv_sweep.py
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


def _default(m: int, k: int) -> tuple[int, int, int]:
    from lumir.runtime.gemv import gemv_config

    return gemv_config(m, k)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    torch.manual_seed(0)
    print(
        "| M x K | MB | cuBLASLt µs | TB/s | best GEMV µs | TB/s | config | "
        "lumir's config µs | err vs f32 |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for m, k in SHAPES:
        print(sweep(m, k, args.repeat), flush=True)


if __name__ == "__main__":
    main()
