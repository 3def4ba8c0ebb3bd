"""The mutation fuzzer of lumir-opt and lumir-run (bench/mutate_fuzz.py, docs/fuzzing.md).

A few hundred seeded mutants of the lit tests' inputs must each end in success or a
located diagnostic: no traceback, internal error, unlocated error, unreadable output,
wrong result or hang. The range holds mutants that found bugs before their fixes (a
typed attribute of f80, mutant 651 of seed 0), so the run is no formality. The other
tests show that mutants are reproducible and that the judge can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lumir.testing import mutant_check
from lumir.testing.mutant_check import Verdict, _Run, check_mutant, judge_failure, run_many
from lumir.testing.mutants import Invocation, Mutant, load_corpus, mutant

SEED = 0
INDICES = range(500, 800)
"""About 15 s with two workers; mutant 651 raised NotImplementedError before e951d90."""


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def test_a_few_hundred_mutants_give_no_bug(corpus) -> None:
    results = sorted(run_many(SEED, INDICES, jobs=2, corpus=corpus), key=lambda r: r.index)
    assert [r.index for r in results] == list(INDICES)
    bugs = [r for r in results if r.verdict == Verdict.BUG]
    report = "\n".join(
        f"mutant {r.index} of seed {SEED} ({r.source}; {', '.join(r.mutations)}): {r.reason}\n"
        f"  rerun: PYTHONPATH=. python3 bench/mutate_fuzz.py --seed {SEED} --index {r.index}"
        for r in bugs
    )
    assert not bugs, report
    # The run reached the passes and the runtime, not only the parser.
    assert sum(len(r.steps) == 2 for r in results) >= 10


def test_a_mutant_depends_only_on_its_seed_and_index(corpus) -> None:
    first = [mutant(corpus, 7, i) for i in range(50)]
    again = [mutant(load_corpus(), 7, i) for i in range(50)]
    assert first == again
    other = [mutant(corpus, 8, i) for i in range(50)]
    assert [m.text for m in first] != [m.text for m in other]
    assert all(m.mutations for m in first)


def test_the_corpus_keeps_each_files_pipelines(corpus) -> None:
    by_file = {chunk.path: chunk for chunk in corpus.chunks}
    fused = by_file["lower-to-cublaslt-rt/fused.mlir"]
    assert "lumir-pipeline" in {i.passes for i in fused.invocations}
    assert not any("// CHECK" in chunk.text or "RUN:" in chunk.text for chunk in corpus.chunks)
    # A `not lumir-opt ... -p <bad pipeline>` line is a deliberately bad command line.
    assert all("max_bytes=false" not in i.passes for c in corpus.chunks for i in c.invocations)
    assert by_file["hl/matmul-invalid.mlir"].invalid and not by_file["hl/matmul.mlir"].invalid


def _run(exit: str, stderr: str) -> _Run:
    return _Run(exit, "", stderr)


def test_the_judge_tells_a_diagnostic_from_a_bug() -> None:
    name = "/tmp/x/mutant.mlir"
    located = _run("1", f"{name}:3:5: error: 'hl.add' operand types differ\n")
    assert judge_failure(located, name)[0] == Verdict.DIAGNOSTIC
    whole_file = _run(
        "1", "lumir-run: error: nothing to run: the module has no func.func with a body"
    )
    assert judge_failure(whole_file, name)[0] == Verdict.DIAGNOSTIC
    for bad, kind in [
        (_run("1", "lumir-opt: error: lower-to-cublaslt-rt: something broke"), "unlocated"),
        (_run("1", f"{name}:1:1: error: IR after pass 'x' does not verify"), "internal error"),
        (_run("1", f"{name}:1:1: error: AssertionError: no byte width"), "internal error"),
        (_run("1", f"{name}:1:1: error: "), "empty error message"),
        (_run("traceback", "Traceback ...\nKeyError: 'x'"), "traceback"),
        (_run("hang", ""), "hang"),
        (_run("2", "usage: lumir-opt"), "exit 2"),
    ]:
        verdict, reason = judge_failure(bad, name)
        assert verdict == Verdict.BUG and reason.startswith(kind), (bad, reason)


def test_a_tool_that_raises_or_prints_bad_output_is_a_bug(
    corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lumir.tools import lumir_opt

    seed_chunk = next(c for c in corpus.chunks if c.path == "hl/add.mlir")
    case = Mutant(0, seed_chunk, (), seed_chunk.text, seed_chunk.invocations[0])
    assert check_mutant(case, tmp_path).verdict == Verdict.OK

    real_main = lumir_opt.main

    def crashing(argv):
        raise KeyError("boom")

    monkeypatch.setattr(lumir_opt, "main", crashing)
    result = check_mutant(case, tmp_path)
    assert result.verdict == Verdict.BUG and result.reason == "traceback: KeyError: 'boom'"

    def unreadable(argv):  # exit 0, but what it prints does not parse back
        if argv[0].endswith("output.mlir"):
            return real_main(argv)
        print("func.func @f( {")
        return 0

    monkeypatch.setattr(lumir_opt, "main", unreadable)
    result = check_mutant(case, tmp_path)
    assert result.verdict == Verdict.BUG
    assert result.reason.startswith("exit 0 with output that does not read back")


def test_a_hang_is_a_bug(corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from lumir.tools import lumir_opt

    monkeypatch.setattr(mutant_check, "STEP_SECONDS", 1)
    monkeypatch.setattr(lumir_opt, "main", lambda argv: time.sleep(5))
    seed_chunk = corpus.chunks[0]
    case = Mutant(0, seed_chunk, (), seed_chunk.text, seed_chunk.invocations[0])
    result = check_mutant(case, tmp_path)
    assert result.verdict == Verdict.BUG and result.reason.startswith("hang")


@pytest.mark.parametrize(
    ("path", "chunk"),
    [
        ("cublaslt_rt/matmul-group-aliased-readers-invalid.mlir", 0),  # the prologue's B
        ("cublaslt_rt/matmul-group-aliased-readers-invalid.mlir", 3),  # an epilogue's D
    ],
)
def test_a_program_that_reads_what_a_group_kernel_leaves_unwritten_is_a_bug(
    corpus, path: str, chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lowered mutant with a matmul_group that has a prologue or an epilogue runs a
    second time with the bytes the group's CUDA kernel does not write poisoned: were the
    verifier to accept a later reader of them (here its check is switched off, as it
    was for readers through a sibling view before fb0e95f), the CPU run alone is fine
    and only the second run shows the wrong result."""
    from lumir.dialects.cublaslt_rt import matmul_group

    seed_chunk = next(c for c in corpus.chunks if c.path == path and c.chunk == chunk)
    case = Mutant(0, seed_chunk, (), seed_chunk.text, Invocation())
    assert check_mutant(case, tmp_path).verdict == Verdict.DIAGNOSTIC

    monkeypatch.setattr(matmul_group, "outside_reader", lambda *args: None)
    result = check_mutant(case, tmp_path)
    assert result.verdict == Verdict.BUG, result
    assert result.reason.startswith("wrong result on CUDA:") and "unwritten" in result.reason


def test_a_group_kernel_program_that_reads_only_what_it_writes_is_ok(
    corpus, tmp_path: Path
) -> None:
    """The valid neighbours (a later tenant of the bytes, the epilogue's output over gate)
    change nothing when the unwritten bytes are poisoned."""
    chunks = [c for c in corpus.chunks if c.path == "cublaslt_rt/matmul-group-aliased-readers.mlir"]
    assert len(chunks) == 5
    for seed_chunk in chunks:
        case = Mutant(0, seed_chunk, (), seed_chunk.text, Invocation())
        result = check_mutant(case, tmp_path)
        assert result.verdict == Verdict.OK and len(result.steps) == 2, result
