"""Differential fuzzing of the Triton code generator: the fused bodies of N random programs.

Each program is generated from (seed, index) by `lumir.testing.codegen_fuzz` (`--source
hl`: a random hl program of fusable ops through fuse-kernels; `--source torch`: a
torch-level fuzz program compiled by the backend), and each fused body of it is checked
under Triton's interpreter by `lumir.testing.fused_check`, with and without special
values (docs/fuzzing.md). The script prints every failing body (where it came from,
what failed, and with `--index` the module holding it), then the counts. The report on
stdout is the same for any --jobs; the timing goes to stderr. Exit status 1 if any body
failed.

    PYTHONPATH=. python3 bench/codegen_fuzz.py --count 1000 --seed 0 [--source torch] [--jobs 2]
    PYTHONPATH=. python3 bench/codegen_fuzz.py --seed 0 --index 17   # one program, printed
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"  # before anything imports triton

import argparse
import re
import sys
import time
from collections import Counter

from bench.fuzz import print_rate
from lumir.testing.codegen_fuzz import SOURCES, Finding, hl_program, run_many

_NUMBER = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")


def _line(finding: Finding) -> str:
    """The finding's telling line: the last line of a traceback, else its detail."""
    lines = [line for line in finding.detail.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=sorted(SOURCES), default="hl")
    parser.add_argument("--count", type=int, default=100, help="programs to run")
    parser.add_argument("--start", type=int, default=0, help="the first program's index")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--index", type=int, help="run only this program and print it")
    args = parser.parse_args(argv)
    if args.count < 0 or args.jobs < 1:
        parser.error("--count must be >= 0 and --jobs >= 1")
    start, count = (args.index, 1) if args.index is not None else (args.start, args.count)
    if args.index is not None and args.source == "hl":
        print(hl_program(args.seed, args.index))

    began = time.perf_counter()
    programs = bodies = 0
    findings: list[Finding] = []
    skipped: list[str] = []
    for report in run_many(args.source, args.seed, count, start, args.jobs):
        programs += 1
        bodies += report.bodies
        if report.skipped:
            skipped.append(f"{report.origin}: {report.skipped.splitlines()[0]}")
        for finding in report.findings:
            findings.append(finding)
            specials = " with specials" if finding.specials else ""
            print(f"=== {finding.case.origin}, body {finding.case.body}{specials}: {finding.kind}")
            print(finding.detail.rstrip())
            if args.index is not None and finding.case.text:
                print("--- module:")
                print(finding.case.text)
        sys.stdout.flush()
    elapsed = time.perf_counter() - began
    failed = {(f.case.origin, f.case.body) for f in findings}
    print(f"{programs} programs, {bodies} fused bodies, {len(failed)} failed")
    if findings:
        print("distinct failures:")
        classes = Counter(f"{f.kind}: {_NUMBER.sub('N', _line(f))[:160]}" for f in findings)
        for name, number in sorted(classes.items()):
            print(f"  {number:>6}  {name}")
    if skipped:  # programs that gave no bodies: they did not compile or run
        print(f"programs without bodies checked: {len(skipped)}")
        for line in skipped[:20]:
            print(f"  {line[:200]}")
    print_rate(programs, elapsed, args.jobs)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
