"""Run mutants (`lumir.testing.mutants`) through lumir-opt and lumir-run; judge each.

The standard (docs/tools.md): a mistake in the input is a located diagnostic, never a
Python traceback, a hang or a silently wrong result. Each mutant is written to a file
and given to the tools' own `main()`, in a worker process, as a person would run them:

1. `lumir-opt MUTANT <flags of one of its lit file's RUN lines>`; when that succeeds, its
   output must parse and verify again (`lumir-opt OUTPUT`): exit 0 with IR the verifier
   refuses is a bug.
2. When the mutant parses and verifies, and is small enough to run in a step's time
   (`RUN_ELEMENTS`; else the step is `skipped`), it runs: `lumir-run MUTANT`
   (lumir-pipeline, CPU, seeded inputs, compared with the unfused reference) for
   `hl`/`cublaslt` IR; a `cublaslt_rt` program is loaded and run on the CPU executor
   on inputs made from its own signature, as `lumir-run --reference` runs a lowered
   program; where a `cublaslt_rt.matmul_group` has a prologue or an epilogue, a second
   time with the bytes its CUDA kernel leaves unwritten poisoned after it
   (`lumir.testing.scratch_check`), which must not change a result.

Each step gets a verdict:

- ok: exit 0 (and, for lumir-opt, output that reads back), or a run `skipped`;
- diagnostic: exit 1 with an `error:` located at `MUTANT:line:col` (or one of the
  whole-file errors of `WHOLE_FILE_ERRORS`) and no internal error text;
- bug: a traceback (an exception out of `main`), internal error text
  (`INTERNAL_MARKERS`), only unlocated errors, exit 0 with output that does not read
  back, a mismatch against the reference, a result the poisoned bytes change
  (`SCRATCH_READ`), a hang (`STEP_SECONDS`), or a dead worker.

A mutant's verdict is its worst step's. Everything here depends only on the mutant's
text, so a run is reproducible from its seed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

from lumir.testing.mutants import Corpus, Mutant, load_corpus, mutant

STEP_SECONDS = 20
"""A tool run longer than this is a hang (the standard's limit)."""
WORKER_SECONDS = 4 * STEP_SECONDS
"""A worker silent this long is killed (a hang signals cannot interrupt) and its mutant
is a bug."""
MEMORY_LIMIT = 6 * 2**30
"""Address space of a worker: an allocation that runs away fails there, not the host."""
BUFFER_LIMIT = str(2**28)
"""`LUMIR_MAX_BUFFER_BYTES` in workers: a mutant's huge dimension is a located refusal
(docs/tools.md, "Size limit") well below the memory limit."""
MUTANT_NAME = "mutant.mlir"
RUN_ELEMENTS = 2**18
RUN_DIMENSION = 4096
"""A mutant with a value of more elements, or a dimension larger, is not run (its
lumir-run step is `skipped`): such sizes are legal, and an attention over 65536 tokens
takes the reference minutes of real work, which is no hang."""

WHOLE_FILE_ERRORS = (
    "nothing to run: the module has no func.func with a body",
    "expected exactly one function to run",
    "the module has no function @",
)
"""Errors about the file as a whole, which no line of it can locate."""
INTERNAL_MARKERS = (
    "Traceback (most recent call last)",
    "IR after pass",
    "internal error",
    "AssertionError",
    "object has no attribute",
    "unexpected keyword argument",
    "NoneType",
)
"""Text in an error that says lumir, not the input, went wrong."""


SCRATCH_READ = "reads bytes a matmul_group's CUDA kernel leaves unwritten"
"""What a lowered mutant's run prints when its results change with the bytes that a
group with a prologue or an epilogue does not write on CUDA poisoned
(`lumir.testing.scratch_check`): the verifier accepted a program CUDA runs otherwise."""


class Verdict(StrEnum):
    OK = "ok"
    DIAGNOSTIC = "diagnostic"
    BUG = "bug"


@dataclass(frozen=True)
class Step:
    """One tool run on a mutant: what ran, its exit, its verdict and why."""

    tool: str
    argv: tuple[str, ...]
    exit: str
    verdict: Verdict
    reason: str = ""
    """For a bug: its kind and the message that shows it (`traceback: KeyError: 'x'`)."""


@dataclass(frozen=True)
class MutantResult:
    index: int
    source: str
    mutations: tuple[str, ...]
    steps: tuple[Step, ...]

    @property
    def verdict(self) -> Verdict:
        order = (Verdict.OK, Verdict.DIAGNOSTIC, Verdict.BUG)
        return max((s.verdict for s in self.steps), key=order.index, default=Verdict.OK)

    @property
    def reason(self) -> str:
        return next((s.reason for s in self.steps if s.verdict == Verdict.BUG), "")

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str) -> MutantResult:
        data = json.loads(text)
        steps = tuple(Step(**{**s, "argv": tuple(s["argv"])}) for s in data["steps"])
        return MutantResult(data["index"], data["source"], tuple(data["mutations"]), steps)


# --- running one tool in-process ----------------------------------------------------


class _StepTimeout(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` in lumir eats it."""


def _on_alarm(signum, frame):
    raise _StepTimeout


@dataclass
class _Run:
    exit: str
    stdout: str
    stderr: str


def _call(main: Callable[[list[str]], int], argv: list[str]) -> _Run:
    """Call a tool's main() with stdout and stderr captured and an alarm set."""
    stdout, stderr = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(STEP_SECONDS)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code: object = main(argv)
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except _StepTimeout:
        code = "hang"
    except BaseException:
        code = "traceback"
        stderr.write(traceback.format_exc())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return _Run(str(code), stdout.getvalue(), stderr.getvalue())


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def judge_failure(run: _Run, name: str) -> tuple[Verdict, str]:
    """The verdict of a non-zero exit: a located diagnostic, or which kind of bug."""
    if run.exit == "hang":
        return Verdict.BUG, f"hang: over {STEP_SECONDS} s"
    if run.exit == "traceback":
        return Verdict.BUG, f"traceback: {_last_line(run.stderr)}"
    if run.exit != "1":
        return Verdict.BUG, f"exit {run.exit}: {_last_line(run.stderr)}"
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    for line in errors:
        if any(marker in line for marker in INTERNAL_MARKERS):
            return Verdict.BUG, f"internal error: {line}"
        if not line.split("error:", 1)[1].strip():
            return Verdict.BUG, f"empty error message: {line}"
    located = re.compile(rf"^{re.escape(name)}:\d+:\d+: error: \S", re.MULTILINE)
    if located.search(run.stderr):
        return Verdict.DIAGNOSTIC, ""
    if any(known in line for line in errors for known in WHOLE_FILE_ERRORS):
        return Verdict.DIAGNOSTIC, ""
    return Verdict.BUG, f"unlocated: {errors[0] if errors else _last_line(run.stderr)}"


# --- the steps ----------------------------------------------------------------------


def _opt_step(path: Path, flags: Sequence[str], workdir: Path) -> Step:
    from lumir.tools import lumir_opt

    argv = [str(path), *flags]
    run = _call(lumir_opt.main, argv)
    shown = (MUTANT_NAME, *flags)
    if run.exit != "0":
        verdict, reason = judge_failure(run, str(path))
        return Step("lumir-opt", shown, run.exit, verdict, reason)
    if "--disable-verify" in flags:  # invalid IR may pass through unverified, as asked
        return Step("lumir-opt", shown, run.exit, Verdict.OK)
    output = workdir / "output.mlir"
    output.write_text(run.stdout, encoding="utf-8")
    again = _call(lumir_opt.main, [str(output)])
    if again.exit != "0":
        first = next((line for line in again.stderr.splitlines() if line.strip()), again.exit)
        reason = f"exit 0 with output that does not read back: {first}"
        return Step("lumir-opt", shown, run.exit, Verdict.BUG, reason)
    return Step("lumir-opt", shown, run.exit, Verdict.OK)


def _parses(text: str, name: str) -> bool:
    """Whether the text parses and verifies (so running it is worth a step)."""
    from lumir.tools.driver import Chunk, CompileSettings, compile_chunk

    try:
        compiled = compile_chunk(Chunk(text, 0), name, (), CompileSettings())
    except BaseException:
        return False  # lumir-opt's step has already reported whatever this was
    return compiled.module is not None


_FUNCTION = re.compile(r"func\.func @([\w.$\-]+)\s*\(")


_SHAPED = re.compile(r"\b(?:tensor|memref)<([^<>]*)>")


def too_large_to_run(text: str) -> bool:
    """Whether a type of the text has more than `RUN_ELEMENTS` elements or a dimension
    over `RUN_DIMENSION` (see `RUN_ELEMENTS`)."""
    for inner in _SHAPED.findall(text):
        dims = [int(d) for d in inner.split("x")[:-1] if d.isdigit()]
        count = 1
        for dim in dims:
            count *= dim
        if count > RUN_ELEMENTS or any(dim > RUN_DIMENSION for dim in dims):
            return True
    return False


def _run_step(path: Path, text: str) -> Step:
    from lumir.tools import lumir_run

    functions = _FUNCTION.findall(text)
    flags = ["--equal-nan"]  # random inputs put NaN where log, sqrt or pow of a negative is
    if len(functions) > 1:
        flags += ["--function", functions[0]]
    run = _call(lumir_run.main, [str(path), *flags])
    shown = (MUTANT_NAME, *flags)
    if run.exit == "0":
        return Step("lumir-run", shown, run.exit, Verdict.OK)
    if "differs from the unfused reference" in run.stderr or "MISMATCH" in run.stdout:
        mismatch = next(line for line in (run.stderr + run.stdout).splitlines() if line.strip())
        return Step("lumir-run", shown, run.exit, Verdict.BUG, f"wrong result: {mismatch}")
    verdict, reason = judge_failure(run, str(path))
    return Step("lumir-run", shown, run.exit, verdict, reason)


def _run_lowered(argv: list[str]) -> int:
    """`lumir-run --reference`'s handling of the program side, for a lowered mutant:
    parse, pick the function, check sizes, make inputs from its signature, load and run
    on the CPU; the diagnostics lumir-run would print, and its exit code."""
    from lumir.diagnostics import LumirDiagnosticError, op_diagnostic
    from lumir.runtime.buffers import UnsupportedTypeError
    from lumir.runtime.interpreter import find_function
    from lumir.runtime.limits import check_function_sizes
    from lumir.testing.scratch_check import first_difference, has_group_kernels, poisoned_scratch
    from lumir.tools import lumir_run
    from lumir.tools.driver import build_pipeline, compile_chunk, read_input, split_chunks

    path, function = argv[0], (argv[-1] if len(argv) > 1 else None)
    options = lumir_run.Options(
        path, "", None, function, "cpu", 0, None, None, False, False, True, False
    )
    try:
        text, name = read_input(path)
        (chunk,) = split_chunks(text, False)
        compiled = compile_chunk(chunk, name, build_pipeline(""), lumir_run.CompileSettings())
        module = lumir_run._compiled(compiled)
        func = find_function(module, function)
        check_function_sizes(func)
        try:
            inputs = lumir_run.random_inputs(func, 0)
        except UnsupportedTypeError as error:
            raise lumir_run.ChunkFailed([op_diagnostic(func, str(error))]) from None
        results = lumir_run.run_program(module, func.sym_name.data, inputs, options)
        if has_group_kernels(module):
            with poisoned_scratch():
                again = lumir_run.run_program(module, func.sym_name.data, inputs, options)
            index = first_difference(results, again)
            if index is not None:
                print(f"lumir-run: result {index} {SCRATCH_READ}", file=sys.stderr)
                return 1
    except (lumir_run.ChunkFailed, LumirDiagnosticError) as failed:
        for diagnostic in failed.diagnostics:
            prefix = "lumir-run: " if diagnostic.location is None else ""
            print(f"{prefix}{diagnostic}", file=sys.stderr)
        return 1
    return 0


def _lowered_step(path: Path, text: str) -> Step:
    functions = _FUNCTION.findall(text)
    flags = ["--function", functions[0]] if len(functions) > 1 else []
    run = _call(_run_lowered, [str(path), *flags])
    shown = (MUTANT_NAME, "--reference", "<its original>", *flags)
    if run.exit == "0":
        return Step("lumir-run", shown, run.exit, Verdict.OK)
    if SCRATCH_READ in run.stderr:
        reason = f"wrong result on CUDA: {_last_line(run.stderr)}"
        return Step("lumir-run", shown, run.exit, Verdict.BUG, reason)
    verdict, reason = judge_failure(run, str(path))
    return Step("lumir-run", shown, run.exit, verdict, reason)


def check_mutant(case: Mutant, workdir: Path) -> MutantResult:
    """Run one mutant through the tools (in this process) and judge every step."""
    path = workdir / MUTANT_NAME
    path.write_text(case.text, encoding="utf-8")
    steps = [_opt_step(path, case.invocation.argv(), workdir)]
    if steps[0].verdict != Verdict.BUG and _parses(case.text, str(path)):
        if too_large_to_run(case.text):
            steps.append(Step("lumir-run", (MUTANT_NAME,), "skipped", Verdict.OK))
        elif "cublaslt_rt." in case.text:
            steps.append(_lowered_step(path, case.text))
        else:
            steps.append(_run_step(path, case.text))
    clean = tuple(
        Step(s.tool, s.argv, s.exit, s.verdict, s.reason.replace(str(path), MUTANT_NAME))
        for s in steps
    )
    source = f"{case.source.path} chunk {case.source.chunk}"
    return MutantResult(case.index, source, case.mutations, clean)


# --- workers ------------------------------------------------------------------------


def worker_environment() -> dict[str, str]:
    """The environment of a worker: no LUMIR_* of the caller's, the buffer limit, torch
    on one thread, this checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUMIR_")}
    env["LUMIR_MAX_BUFFER_BYTES"] = BUFFER_LIMIT
    env["OMP_NUM_THREADS"] = "1"
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH")) if p)
    return env


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def worker_main(seed: int) -> None:
    """Read mutant indices on stdin; write one JSON result per line on the original
    stdout (the tools' own output is captured, so it cannot mix in)."""
    import torch

    torch.set_num_threads(1)
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    corpus = load_corpus()
    with tempfile.TemporaryDirectory(prefix="lumir-mutant-") as scratch:
        for line in sys.stdin:
            index = int(line)
            result = check_mutant(mutant(corpus, seed, index), Path(scratch))
            channel.write(result.to_json() + "\n")


class _Worker:
    def __init__(self, seed: int):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lumir.testing.mutant_check", "--worker", str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=worker_environment(),
            text=True,
            bufsize=1,
            preexec_fn=_limit_memory,
        )
        self.index: int | None = None
        self.started = 0.0

    def send(self, index: int, now: float) -> None:
        assert self.process.stdin is not None
        self.index, self.started = index, now
        self.process.stdin.write(f"{index}\n")
        self.process.stdin.flush()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


def _dead(corpus: Corpus, seed: int, index: int, why: str) -> MutantResult:
    case = mutant(corpus, seed, index)
    step = Step("worker", (MUTANT_NAME,), why, Verdict.BUG, f"{why}: the worker died or hung")
    return MutantResult(
        index, f"{case.source.path} chunk {case.source.chunk}", case.mutations, (step,)
    )


def run_many(
    seed: int, indices: Sequence[int], jobs: int = 1, corpus: Corpus | None = None
) -> Iterator[MutantResult]:
    """Check mutants `indices` of `seed` in `jobs` worker processes, yielding each result
    as it comes (in any order). A worker that dies or stays silent past `WORKER_SECONDS`
    is replaced, and its mutant is a bug."""
    import time

    corpus = corpus or load_corpus()
    pending = list(reversed(indices))
    selector = selectors.DefaultSelector()
    workers: list[_Worker] = []

    def start() -> None:
        worker = _Worker(seed)
        workers.append(worker)
        selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
        if pending:
            worker.send(pending.pop(), time.monotonic())

    def retire(worker: _Worker) -> None:
        selector.unregister(worker.process.stdout)
        worker.kill()
        workers.remove(worker)

    try:
        for _ in range(min(jobs, len(indices))):
            start()
        while any(w.index is not None for w in workers):
            for key, _ in selector.select(timeout=1.0):
                worker: _Worker = key.data
                line = worker.process.stdout.readline()
                if not line:  # the worker died (a crash, or the memory limit)
                    index, code = worker.index, worker.process.wait()
                    retire(worker)
                    yield _dead(corpus, seed, index, f"crash (exit {code})")
                    start()
                    continue
                yield MutantResult.from_json(line)
                worker.index = None
                if pending:
                    worker.send(pending.pop(), time.monotonic())
            now = time.monotonic()
            for worker in list(workers):
                if worker.index is not None and now - worker.started > WORKER_SECONDS:
                    index = worker.index
                    retire(worker)
                    yield _dead(corpus, seed, index, "hang")
                    start()
    finally:
        for worker in list(workers):
            retire(worker)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker_main(int(sys.argv[2]))
