"""First call and peak memory, each candidate alone in a fresh process with cold caches.

    PYTHONPATH=$PWD python3 -m bench.isolated --seqs 1,1024 --modes eager,lumir,inductor

`bench.compare` runs every candidate in one process, one after the other: inductor's and
Triton's on-disk caches, CUDA's and cuBLAS's initialisation and the allocator's state
carry from one candidate to the next, so its first-call and peak-memory columns favour
whoever runs later. Here every (workload, candidate) pair runs in its own Python process
with its own empty `TORCHINDUCTOR_CACHE_DIR`, `TRITON_CACHE_DIR` and `LUMIR_CACHE_DIR`:

- first call: building the candidate (torch.compile's wrapper) and its first call, wall
  seconds, as a user who has never compiled the model waits for it;
- peak: `torch.cuda.max_memory_allocated` over the process after the model was built,
  through the first call and `--calls` more (weights, caches and the candidate's own
  buffers: everything the caller would hold);
- median: CUDA-event median of those calls (a rough time; `bench.compare` is the one
  to read for speed).

Prints one line per pair and writes DIR/isolated.csv. The child is this module with
`--child`.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

GIB = 2**30


def _child(family: str, seq: str, mode: str, calls: int, shape: str, hidden: int) -> dict:
    from bench import candidates
    from bench.timing import time_calls
    from bench.workloads import LLAMA_SHAPES, chain_workloads, llama_workloads

    device = torch.device("cuda")
    torch.set_grad_enabled(False)
    if family == "llama":
        (workload,) = llama_workloads([seq], LLAMA_SHAPES[shape], device)
    else:
        (workload,) = chain_workloads([int(seq)], hidden, device)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats(device)
    start = time.perf_counter()
    prepared = candidates.prepare(mode, workload, device)
    prepared.call()
    torch.cuda.synchronize()
    first = time.perf_counter() - start
    timing = time_calls(prepared.call, device, 0, calls) if calls else None
    return {
        "workload": family,
        "seq": seq,
        "candidate": mode,
        "first_call_s": round(first, 3),
        "peak_gib": round(torch.cuda.max_memory_allocated(device) / GIB, 4),
        "median_ms": round(timing.median_ms, 4) if timing else None,
    }


def _run_isolated(args: argparse.Namespace, family: str, seq: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="lumir-isolated-") as root:
        env = dict(os.environ)
        for name in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "LUMIR_CACHE_DIR"):
            env[name] = str(Path(root) / name.lower())
        command = [
            sys.executable,
            "-m",
            "bench.isolated",
            "--child",
            f"{family}:{seq}:{mode}",
            "--calls",
            str(args.calls),
            "--llama-shape",
            args.llama_shape,
            "--chain-hidden",
            str(args.chain_hidden),
        ]
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return {"workload": family, "seq": seq, "candidate": mode, "error": tail[:300]}
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.isolated")
    parser.add_argument("--workloads", default="llama", help="llama and/or chain")
    parser.add_argument("--seqs", default="1,1024", help="numeric seqs (llama: or 'decode')")
    parser.add_argument("--modes", default="eager,lumir,inductor", help="bench.candidates names")
    parser.add_argument("--calls", type=int, default=20, help="calls after the first")
    parser.add_argument("--llama-shape", default="1b")
    parser.add_argument("--chain-hidden", type=int, default=2048)
    parser.add_argument("--out", type=Path, default=Path("isolated-out"))
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("bench.isolated: needs a CUDA device")
    if args.child:
        family, seq, mode = args.child.split(":")
        row = _child(family, seq, mode, args.calls, args.llama_shape, args.chain_hidden)
        print(json.dumps(row), flush=True)
        return 0
    rows = []
    for family in [w for w in args.workloads.split(",") if w]:
        for seq in [s for s in args.seqs.split(",") if s]:
            for mode in [m for m in args.modes.split(",") if m]:
                row = _run_isolated(args, family, seq, mode)
                rows.append(row)
                print(json.dumps(row), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    names = ["workload", "seq", "candidate", "first_call_s", "peak_gib", "median_ms", "error"]
    with (args.out / "isolated.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=names)
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
