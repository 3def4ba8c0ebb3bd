"""Where the first call of `torch.compile(model, backend="lumir")` spends its time.

    PYTHONPATH=$PWD python3 -m bench.first_call [--seq 1] [--shape 1b] [--top 40]

The first call is Dynamo's trace, aot_autograd, lumir's compile (import, passes,
cublaslt-fuse, lowering) and, inside the call, loading the program (cuBLASLt plans,
Triton kernels compiled, the CUDA graph captured) and running it. This runs that first
call of the Llama-shaped random-weight model once under cProfile and prints the wall
time of each of those stages (cumulative seconds of the function that owns it), then
the `--top` lumir and Triton functions by cumulative time. One process, a cold
Triton cache unless `TRITON_CACHE_DIR` points at a warm one.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from bench.workloads import LLAMA_SHAPES, build_llama

STAGES = (
    ("Dynamo + aot_autograd + lumir compile", "torch/_dynamo/convert_frame.py", "_compile"),
    (
        "  lumir compile (partition, import, passes, fuse)",
        "lumir/backend/compiler.py",
        "compile_aten_graph",
    ),
    ("  cublaslt-fuse", "lumir/egraph_bridge/fuse_pass.py", "apply"),
    ("first call of the compiled partition", "lumir/backend/partition.py", "_slow_call"),
    ("  load (plans, kernels)", "lumir/runtime/program.py", "_load"),
    ("  Triton compile", "triton/compiler/compiler.py", "compile"),
)


def _cumulative(stats: pstats.Stats, path: str, name: str) -> float:
    total = 0.0
    for (filename, _, function), row in stats.stats.items():  # type: ignore[attr-defined]
        if filename.endswith(path) and function == name:
            total = max(total, row[3])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.first_call")
    parser.add_argument("--seq", type=int, default=1)
    parser.add_argument("--shape", choices=sorted(LLAMA_SHAPES), default="1b")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    device = torch.device(args.device)
    torch.set_grad_enabled(False)
    shape = LLAMA_SHAPES[args.shape]
    model = build_llama(shape, device, torch.bfloat16)
    ids = torch.randint(0, min(1000, shape.vocab), (1, args.seq), device=device)
    compiled = torch.compile(model, backend="lumir", options={"report": True})
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    compiled(ids)
    if device.type == "cuda":
        torch.cuda.synchronize()
    profiler.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(profiler)
    print(f"\nfirst call, seq {args.seq}, {args.shape}: {wall:.2f} s wall (under cProfile)")
    for title, path, name in STAGES:
        print(f"{title:55s} {_cumulative(stats, path, name):8.2f} s")
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(
        r"lumir/|triton/compiler|nvmath", args.top
    )
    print(text.getvalue())


if __name__ == "__main__":
    main()
