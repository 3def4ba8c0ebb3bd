"""The kernel table of one lumir replay: kernel name, launches, total device µs.

    PYTHONPATH=$PWD python3 -m bench.profile_lumir [--seq 6] [--replays 20] [--device cuda]
    PYTHONPATH=$PWD python3 -m bench.profile_lumir --model 1,decode   # the whole 1B model
    PYTHONPATH=$PWD python3 -m bench.profile_lumir --model 1 --family gpt2 --peers reduce-overhead

Profiles (torch.profiler, CUDA activity) `--replays` replays of:

- the residual-chain block (hidden 2048) through lumir's direct path (hl text ->
  lumir-pipeline -> `lumir.runtime.load` -> CUDA-graph replay), beside the eager module
  captured in one CUDA graph;
- one Llama-3.2-1B-shaped decoder layer (`LlamaDecoderLayer`, bf16): lumir's direct path
  on its hl text (`bench.workloads.llama_layer_hl`), eager in one CUDA graph, and
  `torch.compile(backend="lumir")` when that backend is available.

With `--model SEQS` it profiles the whole Llama-3.2-1B-shaped model instead (forward at
each numeric seq, `decode` for one step over the 512-token cache): the lumir backend
beside eager in one CUDA graph, with each one's peak GPU memory.

It prints, per program, a markdown table of its device kernels per replay (count and
µs divided by the number of replays), ready to paste into docs/perf-notes.md. On a
machine without a GPU (`--device cpu`) it tables the CPU ops of the run phase instead.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable

import torch
from torch.profiler import ProfilerActivity, profile

from bench import candidates
from bench.workloads import (
    GPT2_SHAPES,
    LLAMA_SHAPES,
    chain_workloads,
    gpt2_workloads,
    layer_workloads,
    llama_workloads,
)


def kernel_table(
    run: Callable[[], object], device: torch.device, replays: int
) -> list[tuple[str, float, float]]:
    """(name, launches per replay, µs per replay) of the kernels `run` issues, slowest first."""
    for _ in range(3):
        run()
    activity = ProfilerActivity.CUDA if device.type == "cuda" else ProfilerActivity.CPU
    if device.type == "cuda":
        torch.cuda.synchronize()
    with profile(activities=[activity]) as prof:
        for _ in range(replays):
            run()
        if device.type == "cuda":
            torch.cuda.synchronize()
    counts: dict[str, int] = defaultdict(int)
    micros: dict[str, float] = defaultdict(float)
    for event in prof.events():
        if device.type == "cuda":
            if event.device_type != torch.autograd.DeviceType.CUDA:
                continue
            spent = event.device_time_total
        else:
            if event.cpu_parent is not None:  # top-level ops only: no double counting
                continue
            spent = event.cpu_time_total
        counts[event.name] += 1
        micros[event.name] += spent
    rows = [(name, counts[name] / replays, micros[name] / replays) for name in counts]
    return sorted(rows, key=lambda row: (-row[2], row[0]))


def print_table(title: str, rows: list[tuple[str, float, float]]) -> None:
    total = sum(us for _, _, us in rows)
    launches = sum(n for _, n, _ in rows)
    print(f"\n### {title}: {launches:g} kernels, {total:.1f} µs per replay\n")
    print("| kernel | per replay | µs per replay |")
    print("| --- | --- | --- |")
    for name, count, us in rows:
        short = name if len(name) <= 90 else name[:87] + "..."
        print(f"| `{short}` | {count:g} | {us:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.profile_lumir")
    parser.add_argument("--seq", type=int, default=6)
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--model", help="profile the whole model at these seqs (e.g. 1,decode)")
    parser.add_argument("--family", choices=("llama", "gpt2"), default="llama", help="--model's")
    parser.add_argument(
        "--peers",
        default="eager-graph",
        help="with --model: candidates profiled beside lumir, e.g. eager-graph,reduce-overhead",
    )
    args = parser.parse_args()
    device = torch.device(args.device)
    torch.set_grad_enabled(False)
    on_gpu = device.type == "cuda"
    if args.model:
        peers = args.peers.split(",")
        profile_model(args.model.split(","), device, args.replays, peers, args.family)
        return
    (chain,) = chain_workloads([args.seq], 2048 if on_gpu else 256, device)
    (layer,) = layer_workloads([args.seq], LLAMA_SHAPES["1b" if on_gpu else "tiny"], device)
    programs = [
        (f"residual chain, seq {args.seq}, lumir direct replay", chain, "lumir-direct-replay"),
        (f"residual chain, seq {args.seq}, eager in one CUDA graph", chain, "eager-graph"),
        (f"Llama-1B layer, seq {args.seq}, lumir direct replay", layer, "lumir-direct-replay"),
        (f"Llama-1B layer, seq {args.seq}, eager in one CUDA graph", layer, "eager-graph"),
        (f"Llama-1B layer, seq {args.seq}, lumir backend", layer, "lumir"),
    ]
    for title, workload, name in programs:
        try:
            prepared = candidates.prepare(name, workload, device)
        except candidates.NotApplicable as reason:
            print(f"\n### {title}: skipped ({reason})")
            continue
        print_table(title, kernel_table(prepared.call, device, args.replays))


def profile_model(
    seqs: list[str], device: torch.device, replays: int, peers: list[str], family: str = "llama"
) -> None:
    """Kernel tables and peak memory of the whole model (the Llama-1B shape, or with
    `family="gpt2"` the GPT-2-medium shape): the lumir backend and `peers`."""
    on_gpu = device.type == "cuda"
    if family == "gpt2":
        workloads = gpt2_workloads(seqs, GPT2_SHAPES["medium" if on_gpu else "tiny"], device)
        model = "GPT-2-medium model"
    else:
        workloads = llama_workloads(seqs, LLAMA_SHAPES["1b" if on_gpu else "tiny"], device)
        model = "Llama-1B model"
    for workload in workloads:
        for name in ("lumir", *peers):
            title = f"{model}, {workload.seq}, {name}"
            if device.type == "cuda":
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats(device)
            try:
                prepared = candidates.prepare(name, workload, device)
            except candidates.NotApplicable as reason:
                print(f"\n### {title}: skipped ({reason})")
                continue
            print_table(title, kernel_table(prepared.call, device, replays))
            if device.type == "cuda":
                peak = torch.cuda.max_memory_allocated(device) / 2**30
                print(f"\npeak GPU memory: {peak:.3f} GiB")
            del prepared
            torch._dynamo.reset()


if __name__ == "__main__":
    main()
