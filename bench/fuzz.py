"""Whole-pipeline differential fuzzing: N random hl programs through lumir-pipeline.

Each program is generated from (seed, index), compiled with `lumir-pipeline`, run on
the CPU executor and compared with an independent float64 evaluation (docs/fuzzing.md).
The script prints every program that did not match, with its outcome, what went wrong
and its reproducer, then `N passed, N failed`, the distinct failures, and how many
programs exercised each fusion family in their compiled plans. The report on stdout is
the same for any --jobs; the timing goes to stderr. Exit status 1 if any program failed.

    PYTHONPATH=. python3 bench/fuzz.py --count 1000 --seed 0 [--jobs 4]
    PYTHONPATH=. python3 bench/fuzz.py --seed 0 --index 17     # rerun one program, verbose
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter

from lumir.testing.fuzz_check import Outcome
from lumir.testing.fuzz_run import (
    FUSION_FAMILIES,
    NO_FUSION,
    SEVERAL_GEMMS,
    FuzzRecord,
    run_many,
    run_seeded,
)

_NUMBER = re.compile(r"\d+")


def _failure_class(record: FuzzRecord) -> str:
    """The outcome and the first line of its detail with numbers and shapes elided."""
    lines = [line for line in record.detail.splitlines() if line.strip()]
    # A traceback's last line names the exception; a diagnostic's first line says it all.
    line = lines[-1] if record.outcome == Outcome.CRASH and lines else (lines or [""])[0]
    elided = _NUMBER.sub("N", line.strip())
    return f"{record.outcome}: {elided}"


def _print_record(record: FuzzRecord, seed: int) -> None:
    print(f"=== program {record.index} of seed {seed}: {record.outcome}")
    print(record.detail)
    print(f"--- reproducer (inputs: torch seed {record.input_seed}):")
    print(record.reproducer)


def _print_coverage(records: list[FuzzRecord]) -> None:
    counts = Counter(name for record in records for name in record.families)
    print("fusion coverage (programs whose compiled plans exercise each family):")
    for name in (*FUSION_FAMILIES, SEVERAL_GEMMS, NO_FUSION):
        share = 100.0 * counts[name] / max(len(records), 1)
        print(f"  {name:<42} {counts[name]:>7}  ({share:.1f}%)")


def print_rate(count: int, elapsed: float, jobs: int) -> None:
    """How many programs a run judged and how fast, on stderr (it varies; stdout must not)."""
    rate = count / elapsed if elapsed > 0 else 0.0
    print(f"{count} programs in {elapsed:.1f} s ({rate:.2f}/s, {jobs} jobs)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="programs to run")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--device", default="cpu", help="cpu (the reference executor) or cuda (cuBLASLt)"
    )
    parser.add_argument(
        "--index", type=int, help="run only this program of the seed and print it, pass or fail"
    )
    args = parser.parse_args(argv)
    if args.count < 0 or args.jobs < 1:
        parser.error("--count must be >= 0 and --jobs >= 1")
    if args.index is not None:
        record = run_seeded(args.seed, args.index, args.device)
        _print_record(record, args.seed)
        return 0 if record.outcome == Outcome.MATCH else 1

    start = time.perf_counter()
    records = run_many(args.seed, args.count, args.jobs, args.device)
    elapsed = time.perf_counter() - start

    failures = [r for r in records if r.outcome != Outcome.MATCH]
    for record in failures:
        _print_record(record, args.seed)
    print(f"{len(records) - len(failures)} passed, {len(failures)} failed")
    by_outcome = Counter(r.outcome.value for r in records)
    print("outcomes: " + ", ".join(f"{o.value} {by_outcome[o.value]}" for o in Outcome))
    if failures:
        print("distinct failures:")
        for name, count in sorted(Counter(map(_failure_class, failures)).items()):
            print(f"  {count:>6}  {name}")
    _print_coverage(records)
    print_rate(len(records), elapsed, args.jobs)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
