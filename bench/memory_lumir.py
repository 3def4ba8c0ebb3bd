"""Where a compiled model's GPU memory sits beyond its weights, and who allocated it.

    PYTHONPATH=$PWD python3 -m bench.memory_lumir [--seq 1] [--candidate lumir] [--top 12]

Builds the Llama-3.2-1B-shaped bf16 model, compiles it with the candidate (`lumir`, or
any `bench.candidates` name such as `eager` or `reduce-overhead`), makes two calls, and
prints the peak and resident GPU memory next to the bytes of the model's own parameters
and buffers, then the largest live allocations that are not the model's tensors, each
with the innermost Python frames (from torch's allocator history) that allocated it. That
is the evidence a peak-memory target needs: which buffer lumir keeps that eager does not.
CUDA only.
"""

from __future__ import annotations

import argparse
from collections import Counter

import torch

from bench import candidates
from bench.workloads import LLAMA_SHAPES, llama_workloads


def _model_pointers(module: torch.nn.Module) -> set[int]:
    tensors = [*module.parameters(), *module.buffers()]
    return {t.untyped_storage().data_ptr() for t in tensors}


def _frames(block: dict) -> str:
    frames = block.get("frames") or []
    ours = [f for f in frames if "/lumir/" in f["filename"] or "/bench/" in f["filename"]]
    shown = (ours or frames)[:3]
    return " <- ".join(f"{f['filename'].rsplit('/', 2)[-1]}:{f['line']} {f['name']}" for f in shown)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.memory_lumir")
    parser.add_argument("--seq", default="1", help="a numeric seq or 'decode'")
    parser.add_argument("--candidate", default="lumir")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("bench.memory_lumir: needs a CUDA device")
    device = torch.device("cuda")
    torch.set_grad_enabled(False)
    (workload,) = llama_workloads([args.seq], LLAMA_SHAPES["1b"], device)
    tensors = [*workload.module.parameters(), *workload.module.buffers()]
    unique = {t.untyped_storage().data_ptr(): t for t in tensors}
    weights = sum(t.untyped_storage().nbytes() for t in unique.values())
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats(device)
    torch.cuda.memory._record_memory_history(max_entries=200_000)
    prepared = candidates.prepare(args.candidate, workload, device)
    for _ in range(2):
        prepared.call()
    torch.cuda.synchronize()
    snapshot = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    gib = 2**30
    peak = torch.cuda.max_memory_allocated(device) / gib
    resident = torch.cuda.memory_allocated(device) / gib
    print(
        f"{args.candidate} seq {args.seq}: peak {peak:.3f} GiB, resident {resident:.3f} GiB, "
        f"model tensors {weights / gib:.3f} GiB"
    )
    model = _model_pointers(workload.module)
    others = []
    for segment in snapshot["segments"]:
        address = segment["address"]
        for block in segment["blocks"]:
            if block["state"] == "active_allocated" and address not in model:
                others.append((block["size"], address, block))
            address += block["size"]
    others.sort(key=lambda item: (-item[0], item[1]))
    total = sum(size for size, _, _ in others)
    print(f"live allocations that are not model tensors: {len(others)}, {total / gib:.3f} GiB")
    sizes = Counter(size for size, _, _ in others)
    for size, _, block in others[: args.top]:
        print(f"  {size / 2**20:10.2f} MiB x{sizes[size]:<3d} {_frames(block)}")


if __name__ == "__main__":
    main()
