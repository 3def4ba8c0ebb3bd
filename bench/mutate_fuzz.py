"""Mutation fuzzing of lumir-opt and lumir-run: user mistakes in the lit tests' inputs.

Each mutant is a chunk of a lit test (test/lit/**/*.mlir) with one to three random
mistakes (`lumir.testing.mutants`), run through `lumir-opt` with its file's flags and,
when it still parses, through `lumir-run` (`lumir.testing.mutant_check`). Every mutant
must end in success or a located diagnostic; the report lists every bug (a traceback,
internal error text, an unlocated error, output that does not read back, a wrong
result, a hang, a dead worker), grouped by its message with numbers elided, with the
mutant that shows each first. Mutant `i` of seed `S` depends only on `(S, i)`, and the
report on stdout is the same for any --jobs; timing goes to stderr. Exit status 1 if
any mutant is a bug (docs/fuzzing.md).

    PYTHONPATH=. python3 bench/mutate_fuzz.py --count 2000 --seed 0 --jobs 2
    PYTHONPATH=. python3 bench/mutate_fuzz.py --seed 0 --index 17   # one mutant, shown
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from lumir.testing.mutant_check import MutantResult, Verdict, check_mutant, run_many
from lumir.testing.mutants import load_corpus, mutant

_NUMBER = re.compile(r"\d+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|@[\w.$\-]+|%[\w.$\-]+")


def bug_class(result: MutantResult) -> str:
    """A bug's reason with locations, numbers, names and quoted text elided."""
    reason = re.sub(r"mutant\.mlir:\d+:\d+", "LOC", result.reason)
    return _NUMBER.sub("N", _QUOTED.sub("Q", reason))[:200]


def show(seed: int, index: int) -> int:
    corpus = load_corpus()
    case = mutant(corpus, seed, index)
    print(f"=== mutant {index} of seed {seed}: {case.source.path} chunk {case.source.chunk}")
    print(f"mutations: {', '.join(case.mutations)}; lumir-opt flags: {case.invocation.argv()}")
    print(case.text)
    with tempfile.TemporaryDirectory() as scratch:
        result = check_mutant(case, Path(scratch))
    for step in result.steps:
        print(f"--- {step.tool} {' '.join(step.argv)}: exit {step.exit}, {step.verdict}")
        if step.reason:
            print(f"    {step.reason}")
    return 1 if result.verdict == Verdict.BUG else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500, help="mutants to run")
    parser.add_argument("--start", type=int, default=0, help="index of the first mutant")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--index", type=int, help="show and run only this mutant")
    parser.add_argument("--examples", type=int, default=2, help="mutants shown per bug class")
    args = parser.parse_args(argv)
    if args.count < 0 or args.jobs < 1 or args.start < 0:
        parser.error("--count and --start must be >= 0 and --jobs >= 1")
    if args.index is not None:
        return show(args.seed, args.index)

    began = time.perf_counter()
    results: list[MutantResult] = []
    indices = range(args.start, args.start + args.count)
    for done, result in enumerate(run_many(args.seed, indices, args.jobs), 1):
        results.append(result)
        if done % 100 == 0:
            print(f"{done}/{args.count} in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    results.sort(key=lambda r: r.index)

    verdicts = Counter(r.verdict for r in results)
    steps = Counter(
        (s.tool, "skipped" if s.exit == "skipped" else str(s.verdict))
        for r in results
        for s in r.steps
    )
    print(f"{len(results)} mutants of seed {args.seed} from index {args.start}:")
    for verdict in Verdict:
        print(f"  {verdict:<11} {verdicts[verdict]:>6}")
    print("steps:")
    for (tool, verdict), count in sorted(steps.items()):
        print(f"  {tool:<10} {verdict:<11} {count:>6}")
    classes: dict[str, list[MutantResult]] = defaultdict(list)
    for result in results:
        if result.verdict == Verdict.BUG:
            classes[bug_class(result)].append(result)
    print(f"bug classes: {len(classes)}")
    for name, members in sorted(classes.items(), key=lambda item: -len(item[1])):
        print(f"=== {len(members)} x {name}")
        for result in members[: args.examples]:
            print(f"    mutant {result.index} ({result.source}; {', '.join(result.mutations)})")
            print(f"      {result.reason[:300]}")
    coverage = Counter(m for r in results for m in r.mutations)
    print(f"mutation coverage: {dict(sorted(coverage.items()))}")
    print(f"{time.perf_counter() - began:.1f} s", file=sys.stderr)
    return 1 if verdicts[Verdict.BUG] else 0


if __name__ == "__main__":
    sys.exit(main())
