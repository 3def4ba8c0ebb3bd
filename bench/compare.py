"""lumir against eager, eager-in-one-CUDA-graph and every torch.compile mode, in one run.

    PYTHONPATH=$PWD python3 -m bench.compare                 # the whole default run, < 9 min
    PYTHONPATH=$PWD python3 -m bench.compare --quick         # chain only, 2 modes: ~1 min
    python3 -m bench.compare --workloads chain,llama --seqs 1,6,128,1024,decode \\
        --modes eager,eager-graph,inductor,reduce-overhead,lumir --budget-s 540 --out DIR

Workloads (bench/workloads.py): `chain`, the residual-chain module (two x [RMSNorm with
f32 inside -> Linear 2048x2048 -> residual add], bf16) at seq 6 and 128; `layer`, one
decoder layer of the 1B shape at seq 1 and 128 (also written as hl, so lumir's direct
path runs it before the torch.compile backend exists); `llama`, the
Llama-3.2-1B-shaped random-weight bf16 model's forward at seq 1, 6, 128 and 1024 and one
decode step over a 512-token StaticCache (`decode`). Candidates: bench/candidates.py.
max-autotune and max-autotune-no-cudagraphs are off for the 1B model unless
`--llama-autotune` is given: each of those compiles takes 100-150 s on the H200.

Every candidate runs on the same inputs; its output is compared with eager's (max abs
error). Times are CUDA-event medians after warm-up with the 10th and 90th percentiles;
the first-call column is building the candidate plus its first call (the compile);
peak memory is reset per candidate. A candidate whose estimated time no longer fits
`--budget-s` is skipped with the reason printed, as is one that cannot run here.
Writes DIR/results.csv, DIR/results.png (if matplotlib is there) and DIR/table.md.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import gc
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from bench import candidates
from bench.candidates import (
    AUTOTUNE_MODES,
    DEFAULT_MODES,
    ESTIMATE_S,
    FRONTEND_MODES,
    ORDER,
    NotApplicable,
)
from bench.timing import first_call_seconds, peak_memory_gib, reset_peak_memory, time_calls
from bench.workloads import (
    GPT2_SHAPES,
    LLAMA_SHAPES,
    Workload,
    chain_workloads,
    gpt2_workloads,
    layer_workloads,
    llama_workloads,
)

DEFAULT_SEQS = {
    "chain": ["6", "128"],
    "layer": ["1", "128"],
    "llama": ["1", "6", "128", "1024", "decode"],
    "gpt2": ["1", "128"],
}
QUICK_MODES = ("eager-graph", "reduce-overhead", "lumir-direct", "lumir-direct-replay")
ITERS = {"chain": (20, 100), "layer": (10, 50), "llama": (5, 30), "gpt2": (5, 30)}
"""(warm-up calls, timed calls) per workload family."""


@dataclass
class Row:
    """One line of results.csv."""

    workload: str
    seq: str
    candidate: str
    status: str  # ok, skipped or failed
    reason: str = ""
    median_ms: float | None = None
    p10_ms: float | None = None
    p90_ms: float | None = None
    calls: int | None = None
    first_call_s: float | None = None
    peak_gib: float | None = None
    max_abs_err_vs_eager: float | None = None


class Budget:
    """Wall-clock seconds left for the run; candidates that would not fit are skipped."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.start = time.perf_counter()

    def left(self) -> float:
        return self.seconds - (time.perf_counter() - self.start)

    def refuse(self, family: str, candidate: str) -> str | None:
        estimate = ESTIMATE_S.get((family, candidate), 10)
        if estimate > self.left():
            return (
                f"over the time budget: ~{estimate} s expected, {max(self.left(), 0):.0f} s "
                f"left of --budget-s {self.seconds:.0f}"
            )
        return None


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 -m bench.compare",
        description="Time lumir beside eager and torch.compile on the same inputs.",
    )
    parser.add_argument("--workloads", default="chain,layer,llama", help="chain,layer,llama,gpt2")
    parser.add_argument(
        "--seqs",
        default=None,
        help="sequence lengths for every workload, 'decode' for the llama decode step "
        "(default: chain 6,128; llama 1,6,128,1024,decode)",
    )
    parser.add_argument(
        "--modes",
        default=",".join(DEFAULT_MODES),
        help=f"candidates (default {','.join(DEFAULT_MODES)}; also {','.join(FRONTEND_MODES)})",
    )
    parser.add_argument("--budget-s", type=float, default=540.0, help="wall-clock budget")
    parser.add_argument("--out", type=Path, default=Path("compare-out"), help="output folder")
    parser.add_argument("--device", default=None, help="cuda (default when present) or cpu")
    parser.add_argument("--quick", action="store_true", help="chain only, 2 modes + lumir")
    parser.add_argument(
        "--llama-autotune",
        action="store_true",
        help="also run max-autotune(-no-cudagraphs) on the 1B model (100-150 s each)",
    )
    parser.add_argument("--llama-shape", choices=sorted(LLAMA_SHAPES), default="1b")
    parser.add_argument("--gpt2-shape", choices=sorted(GPT2_SHAPES), default="medium")
    parser.add_argument("--chain-hidden", type=int, default=2048)
    parser.add_argument("--iters", type=int, default=None, help="timed calls per candidate")
    return parser


@dataclass(frozen=True)
class Plan:
    device: torch.device
    families: list[str]
    seqs: dict[str, list[str]]
    modes: list[str]
    llama_autotune: bool


def plan_from(args: argparse.Namespace) -> Plan:
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    families = ["chain"] if args.quick else _split(args.workloads)
    modes = list(QUICK_MODES) if args.quick else _split(args.modes)
    for name in modes:
        if name not in ORDER:
            raise SystemExit(f"compare: unknown mode {name!r} (modes: {', '.join(ORDER)})")
    for family in families:
        if family not in DEFAULT_SEQS:
            raise SystemExit(f"compare: unknown workload {family!r} (chain, layer, llama, gpt2)")
    seqs = {}
    for family in families:
        given = _split(args.seqs) if args.seqs else DEFAULT_SEQS[family]
        seqs[family] = [s for s in given if family == "llama" or s != "decode"]
    ordered = [name for name in ORDER if name in modes]
    return Plan(device, families, seqs, ordered, args.llama_autotune)


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def build_workloads(plan: Plan, args: argparse.Namespace) -> list[Workload]:
    found: list[Workload] = []
    if "chain" in plan.families:
        seqs = [int(s) for s in plan.seqs["chain"]]
        found += chain_workloads(seqs, args.chain_hidden, plan.device)
    if "layer" in plan.families:
        seqs = [int(s) for s in plan.seqs["layer"]]
        found += layer_workloads(seqs, LLAMA_SHAPES[args.llama_shape], plan.device)
    if "llama" in plan.families:
        found += llama_workloads(plan.seqs["llama"], LLAMA_SHAPES[args.llama_shape], plan.device)
    if "gpt2" in plan.families:
        found += gpt2_workloads(plan.seqs["gpt2"], GPT2_SHAPES[args.gpt2_shape], plan.device)
    return found


def run_candidate(
    name: str,
    workload: Workload,
    plan: Plan,
    reference: torch.Tensor | None,
    iters: int | None,
) -> tuple[Row, torch.Tensor | None]:
    """Prepare, first-call, time and check one candidate; never raises for its failures."""
    row = Row(workload.family, workload.seq, name, "ok")
    warmup, timed = ITERS[workload.family]
    device = plan.device
    reset_peak_memory(device)
    try:
        prepared_box: list[candidates.Prepared] = []

        def build() -> candidates.Call:
            prepared_box.append(candidates.prepare(name, workload, device))
            return prepared_box[0].call

        call, row.first_call_s = first_call_seconds(build, device)
        timing = time_calls(call, device, warmup, iters or timed)
        output = prepared_box[0].output()
    except NotApplicable as reason:
        return Row(workload.family, workload.seq, name, "skipped", str(reason)), None
    except Exception as error:  # a candidate's failure is a result, not the end of the run
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return Row(workload.family, workload.seq, name, "failed", first_line[:300]), None
    finally:
        torch._dynamo.reset()
        gc.collect()
    row.median_ms, row.p10_ms, row.p90_ms = timing.median_ms, timing.p10_ms, timing.p90_ms
    row.calls = timing.calls
    row.peak_gib = peak_memory_gib(device)
    if output is not None and reference is not None and output.numel() == reference.numel():
        # lumir's direct path computes [S, H] where the module gives [1, S, H]
        difference = output.float().reshape(reference.shape) - reference.float()
        row.max_abs_err_vs_eager = difference.abs().max().item()
    return row, output


def skip_reason(name: str, workload: Workload, plan: Plan, budget: Budget) -> str | None:
    big_model = workload.family in ("llama", "gpt2")
    if big_model and name in AUTOTUNE_MODES and not plan.llama_autotune:
        return (
            f"{name} is off for the model workloads by default (the 1B compile takes "
            "100-150 s); "
            "pass --llama-autotune"
        )
    return budget.refuse(workload.family, name)


def run(plan: Plan, workloads: list[Workload], budget: Budget, iters: int | None) -> list[Row]:
    """All candidates over all workloads: every cheap mode first, then the autotuning ones,
    so that a tight budget drops autotuning rather than whole workloads."""
    rows: dict[tuple[str, str], Row] = {}
    references: dict[str, torch.Tensor | None] = {}
    tiers = [
        [m for m in plan.modes if m not in AUTOTUNE_MODES],
        [m for m in plan.modes if m in AUTOTUNE_MODES],
    ]
    for tier in tiers:
        for workload in workloads:
            for name in tier:
                reason = skip_reason(name, workload, plan, budget)
                if reason is not None:
                    row = Row(workload.family, workload.seq, name, "skipped", reason)
                else:
                    if workload.name not in references:
                        references[workload.name] = _eager_reference(workload)
                    row, _ = run_candidate(name, workload, plan, references[workload.name], iters)
                rows[(workload.name, name)] = row
                print(_line(row), flush=True)
    return [rows[(w.name, m)] for w in workloads for m in plan.modes if (w.name, m) in rows]


def _eager_reference(workload: Workload) -> torch.Tensor | None:
    output = candidates.main_output(workload.call())
    return output.detach().clone() if output is not None else None


def _line(row: Row) -> str:
    head = f"{row.workload}/{row.seq:<7} {row.candidate:<27}"
    if row.status != "ok":
        return f"{head} {row.status}: {row.reason}"
    parts = [
        f"median {row.median_ms:.4f} ms (p10 {row.p10_ms:.4f}, p90 {row.p90_ms:.4f})",
        f"first call {row.first_call_s:.2f} s",
    ]
    if row.peak_gib is not None:
        parts.append(f"peak {row.peak_gib:.2f} GiB")
    if row.max_abs_err_vs_eager is not None:
        parts.append(f"max|x - eager| {row.max_abs_err_vs_eager:.3g}")
    return f"{head} " + ", ".join(parts)


def write_csv(rows: Sequence[Row], path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(rows[0]).keys()))
        writer.writeheader()
        for row in rows:
            writer.writerow(asdict(row))


def write_table(rows: Sequence[Row], modes: Sequence[str], header: str, path: Path) -> None:
    """A markdown table of medians (ms), one line per workload, for the README."""
    workloads = list(dict.fromkeys((r.workload, r.seq) for r in rows))
    by_key = {(r.workload, r.seq, r.candidate): r for r in rows}
    lines = [header, "", "| workload | " + " | ".join(modes) + " |"]
    lines.append("| --- |" + " --- |" * len(modes))
    for family, seq in workloads:
        cells = []
        for mode in modes:
            row = by_key.get((family, seq, mode))
            ok = row is not None and row.status == "ok" and row.median_ms is not None
            cells.append(f"{row.median_ms:.3f}" if ok else "—")
        lines.append(f"| {family} {seq} | " + " | ".join(cells) + " |")
    path.write_text("\n".join(lines) + "\n")


def write_chart(rows: Sequence[Row], path: Path) -> str:
    """Grouped bars of medians (log scale) with p10-p90 whiskers; a message if no matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no PNG: matplotlib is not installed here"
    done = [r for r in rows if r.status == "ok" and r.median_ms is not None]
    if not done:
        return "no PNG: no candidate ran"
    workloads = list(dict.fromkeys(f"{r.workload} {r.seq}" for r in done))
    modes = list(dict.fromkeys(r.candidate for r in done))
    width = 0.8 / len(modes)
    figure, axes = plt.subplots(figsize=(max(8, 1.4 * len(workloads)), 5))
    for index, mode in enumerate(modes):
        xs, ys, low, high = [], [], [], []
        for position, workload in enumerate(workloads):
            for r in done:
                if f"{r.workload} {r.seq}" == workload and r.candidate == mode:
                    xs.append(position + index * width)
                    ys.append(r.median_ms)
                    low.append(r.median_ms - r.p10_ms)
                    high.append(r.p90_ms - r.median_ms)
        axes.bar(xs, ys, width, yerr=[low, high], label=mode)
    axes.set_xticks([p + 0.4 - width / 2 for p in range(len(workloads))], workloads)
    axes.set_yscale("log")
    axes.set_ylabel("median ms per call (p10-p90)")
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return f"wrote {path}"


def describe_device(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return "CPU"


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    plan = plan_from(args)
    warnings.filterwarnings("ignore", category=FutureWarning)
    torch.set_grad_enabled(False)
    budget = Budget(args.budget_s)
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    clock = "CUDA events" if plan.device.type == "cuda" else "wall clock"
    header = (
        f"{today}, {describe_device(plan.device)}, torch {torch.__version__}, bf16, "
        f"median ms per call ({clock})"
    )
    print(f"bench.compare: {header}; budget {args.budget_s:.0f} s", flush=True)
    if "lumir" in plan.modes and not candidates.lumir_backend_available():
        print("lumir: backend not available (model workloads skip the lumir column)")
    workloads = build_workloads(plan, args)
    rows = run(plan, workloads, budget, args.iters)
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, args.out / "results.csv")
    write_table(rows, plan.modes, header, args.out / "table.md")
    print(f"wrote {args.out / 'results.csv'} and {args.out / 'table.md'}")
    print(write_chart(rows, args.out / "results.png"))
    print(f"total {time.perf_counter() - budget.start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
