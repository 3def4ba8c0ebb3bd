"""Where the first call of `torch.compile(model, backend="lumir")` spends its time.

    PYTHONPATH=$PWD python3 -m bench.first_call [--seq 1] [--shape 1b] [--top 40]

The first call is Dynamo's trace, aot_autograd, lumir's compile (import, passes,
cublaslt-fuse, lowering) and, inside the call, loading the program (cuBLASLt plans,
Triton kernels compiled, the CUDA graph captured) and running it. This runs that first
call of the Llama-shaped random-weight model once under cProfile and prints the wall
time of each of those stages (cumulative seconds of the function that owns it), then
the `--top` lumir and Triton functions by cumulative time. One process, a cold
Triton cache unless `TRITON_CACHE_DIR` points at a warm one.

cProfile doubles the first call's wall time (24 s against 13 s on the H200) and its
cumulative column double-counts recursive functions. `--timers` runs without it and
wraps the stages' functions in wall-clock timers instead (outermost call only), so the
seconds add up to the wall time the user waits. `--launches N` (CUDA, with `--timers`)
also times each launch of the first warm-up run alone (the device synchronised around
it) and prints the N slowest and the seconds per kind of launch: what the first run
pays for cuBLASLt's lazily loaded kernels, Triton's first launches and torch's ops.
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


TIMED = (
    ("Dynamo + aot_autograd + lumir compile", "torch._dynamo.convert_frame", "_compile"),
    ("  lumir compile_aten_graph", "lumir.backend.compiler", "compile_aten_graph"),
    ("    import_graph", "lumir.backend.partition", "import_graph"),
    ("    prepare", "lumir.backend.partition", "prepare"),
    ("    fuse", "lumir.backend.partition", "fuse"),
    ("    lower", "lumir.backend.partition", "lower"),
    ("  load (plans, buffers, Triton compiled ahead)", "lumir.backend.partition", "load"),
    ("    cuBLASLt plans", "lumir.runtime.cuda_cublaslt:CublasLtMatmulPlan", "__init__"),
    ("    nvmath import", "lumir.runtime.cuda_cublaslt", "_cublaslt"),
    ("    Triton compile", "triton.compiler.compiler", "compile"),
    ("  first run + CUDA-graph capture", "lumir.runtime.program", "_warm_up_and_capture"),
    (
        "    launches run one by one (warm-up, capture)",
        "lumir.runtime.cuda_graph:CudaGraphProgram",
        "run_eager",
    ),
)
"""(label, module or module:Class, attribute) of each function `--timers` wraps."""


def _install_timers() -> dict[str, list[float]]:
    """Wrap every TIMED function in an outermost-call wall-clock accumulator."""
    import importlib

    totals: dict[str, list[float]] = {}
    for label, where, name in TIMED:
        module_name, _, class_name = where.partition(":")
        owner: object = importlib.import_module(module_name)
        if class_name:
            owner = getattr(owner, class_name)
        original = getattr(owner, name)
        slot = totals.setdefault(label, [0.0, 0.0, 0.0])  # seconds, depth, calls

        def timed(*args, __original=original, __slot=slot, **kwargs):
            __slot[1] += 1
            start = time.perf_counter()
            try:
                return __original(*args, **kwargs)
            finally:
                __slot[1] -= 1
                if __slot[1] == 0:
                    __slot[0] += time.perf_counter() - start
                    __slot[2] += 1

        setattr(owner, name, timed)
    import triton.compiler

    triton.compiler.compile = triton.compiler.compiler.compile  # JITFunctions bind this
    return totals


def _launch_kind(launch: object) -> str:
    """A launch's kind for `--launches`: the plan's class, the Triton kernel or the
    callable's qualified name."""
    owner = getattr(launch, "__self__", None)
    if owner is not None:
        return type(owner).__name__
    kernel = getattr(launch, "kernel", None)
    if kernel is not None:
        return f"triton {getattr(kernel, '__name__', type(kernel).__name__)}"
    return getattr(launch, "__qualname__", type(launch).__name__)


def _time_first_warm_up() -> list[tuple[float, int, str]]:
    """Make the first `CudaGraphProgram` warm-up run time each launch alone; the list
    it fills is (seconds, position, kind), in launch order."""
    from lumir.runtime.cuda_graph import CudaGraphProgram

    timings: list[tuple[float, int, str]] = []
    original = CudaGraphProgram.run_eager

    def run_eager(self: CudaGraphProgram) -> None:
        if timings or torch.cuda.is_current_stream_capturing():
            return original(self)
        for position, launch in enumerate(self.launches):
            torch.cuda.synchronize()
            start = time.perf_counter()
            launch()
            torch.cuda.synchronize()
            timings.append((time.perf_counter() - start, position, _launch_kind(launch)))
        return None

    CudaGraphProgram.run_eager = run_eager  # type: ignore[method-assign]
    return timings


def _print_launches(timings: list[tuple[float, int, str]], top: int) -> None:
    if not timings:
        print("\nno CUDA graph was captured: no warm-up run to time")
        return
    by_kind: dict[str, list[float]] = {}
    for seconds, _, kind in timings:
        by_kind.setdefault(kind, []).append(seconds)
    total = sum(seconds for seconds, _, _ in timings)
    print(f"\nfirst warm-up run, each launch alone: {len(timings)} launches, {total:.3f} s")
    for kind, times in sorted(by_kind.items(), key=lambda item: (-sum(item[1]), item[0])):
        print(f"  {kind:45s} {sum(times):8.3f} s  ({len(times)} launches, max {max(times):.4f})")
    print(f"the {top} slowest:")
    for seconds, position, kind in sorted(timings, key=lambda row: (-row[0], row[1]))[:top]:
        print(f"  #{position:<5d} {kind:45s} {seconds:8.4f} s")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.first_call")
    parser.add_argument("--seq", type=int, default=1)
    parser.add_argument("--shape", choices=sorted(LLAMA_SHAPES), default="1b")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--timers", action="store_true", help="wall-clock timers, no cProfile")
    parser.add_argument(
        "--launches",
        type=int,
        default=0,
        metavar="N",
        help="with --timers on CUDA: time each launch of the first warm-up, print the N slowest",
    )
    args = parser.parse_args()
    if args.launches and not args.timers:
        parser.error("--launches times the launches beside the stage timers: add --timers")
    # The launch timing first, so the stage timers wrap it and still count its run.
    launch_times = _time_first_warm_up() if args.launches and args.timers else None
    totals = _install_timers() if args.timers else None
    device = torch.device(args.device)
    torch.set_grad_enabled(False)
    shape = LLAMA_SHAPES[args.shape]
    model = build_llama(shape, device, torch.bfloat16)
    ids = torch.randint(0, min(1000, shape.vocab), (1, args.seq), device=device)
    compiled = torch.compile(model, backend="lumir", options={"report": True})
    profiler = cProfile.Profile()
    start = time.perf_counter()
    if totals is None:
        profiler.enable()
    compiled(ids)
    if device.type == "cuda":
        torch.cuda.synchronize()
    profiler.disable()
    wall = time.perf_counter() - start
    if totals is not None:
        print(f"\nfirst call, seq {args.seq}, {args.shape}: {wall:.2f} s wall")
        for label, (seconds, _, calls) in totals.items():
            print(f"{label:55s} {seconds:8.2f} s  ({int(calls)} calls)")
        if launch_times is not None:
            _print_launches(launch_times, args.launches)
        return
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
