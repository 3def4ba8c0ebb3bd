"""Torch-level differential fuzzing of the lumir backend: N random PyTorch programs.

Each program is generated from (seed, index) by `lumir.testing.torch_fuzz`, compiled with
`torch.compile(backend="lumir")` on the CPU and judged against eager and float64 by
`lumir.testing.torch_fuzz_check` (docs/fuzzing.md). The script prints every program that
failed, with its outcome, what went wrong and a reproducer, then the counts per outcome,
the distinct failures (numbers elided) and the reasons of the fallbacks. The report on
stdout is the same for any --jobs; the timing goes to stderr. Exit status 1 if any
program failed.

    PYTHONPATH=. python3 bench/torch_fuzz.py --count 1000 --seed 0 [--jobs 2]
    PYTHONPATH=. python3 bench/torch_fuzz.py --seed 0 --index 17     # one program, printed
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter

from bench.fuzz import print_rate
from lumir.testing.torch_fuzz_check import Outcome, Record, minimized, run_many, run_seeded

_NUMBER = re.compile(r"\d+(\.\d+)?(e-?\d+)?")


def _failure_class(record: Record) -> str:
    """The outcome and the telling line of its detail, numbers elided."""
    lines = [line for line in record.detail.splitlines() if line.strip()]
    line = lines[-1] if record.outcome == Outcome.CRASH and lines else (lines or [""])[0]
    line = line.split(": ", 1)[1] if line.startswith("call at length") else line
    return f"{record.outcome}: {_NUMBER.sub('N', line.strip())[:160]}"


def _print_record(record: Record, seed: int) -> None:
    print(f"=== program {record.index} of seed {seed}: {record.outcome}")
    print(record.detail)
    for line in record.fallbacks:
        print(f"fallback: {line}")
    print("--- reproducer:")
    print(record.reproducer)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="programs to run")
    parser.add_argument("--start", type=int, default=0, help="the first program's index")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--index", type=int, help="run only this program of the seed and print it, pass or fail"
    )
    parser.add_argument(
        "--minimize",
        action="store_true",
        help="with --index: drop statements and outputs while the program fails the same",
    )
    args = parser.parse_args(argv)
    if args.count < 0 or args.jobs < 1:
        parser.error("--count must be >= 0 and --jobs >= 1")
    if args.index is not None:
        record = run_seeded(args.seed, args.index)
        if args.minimize and not record.outcome.passed:
            record = minimized(args.seed, args.index)
        _print_record(record, args.seed)
        return 0 if record.outcome.passed else 1

    began = time.perf_counter()
    records = []
    for record in run_many(args.seed, args.count, args.jobs, args.start):
        records.append(record)
        if not record.outcome.passed:
            _print_record(record, args.seed)
            sys.stdout.flush()
    elapsed = time.perf_counter() - began
    failures = [r for r in records if not r.outcome.passed]
    print(f"{len(records) - len(failures)} passed, {len(failures)} failed")
    by_outcome = Counter(r.outcome for r in records)
    print("outcomes: " + ", ".join(f"{o.value} {by_outcome[o]}" for o in Outcome))
    if failures:
        print("distinct failures:")
        for name, count in sorted(Counter(map(_failure_class, failures)).items()):
            print(f"  {count:>6}  {name}")
    reasons = Counter(_NUMBER.sub("N", line) for r in records for line in set(r.fallbacks))
    if reasons:
        print("fallback warnings (programs):")
        for reason, count in reasons.most_common():
            print(f"  {count:>6}  {reason[:200]}")
    print_rate(len(records), elapsed, args.jobs)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
