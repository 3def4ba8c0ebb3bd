"""The compile driver lumir-opt and lumir-run share: read, split, parse, verify, run passes.

One call, `compile_chunk`, takes one `--split-input-file` chunk through one context:
parse it with the located parser, verify it, run the pass pipeline and collect every
diagnostic (errors raised, remarks and warnings `emit`ted) located at the input.

It is built on xDSL's `PassPipeline`, as `xdsl.xdsl_opt_main.xDSLOptMain` is: the
pipeline is parsed by `PassPipeline.parse_spec` and its callback verifies and prints the
IR after each pass (the last one included). It does not subclass `xDSLOptMain`, whose
parse step uses xDSL's own parser (ops without source locations), whose errors are
exceptions printed as they happen rather than diagnostics a tool can match against
`expected-error`, and which always prints its output; lumir-run compiles without
printing and compares. Compound passes (`lumir-pipeline`) are expanded into their
stages here, so every stage is a pass of the pipeline that prints and verifies.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, VerifyException

from lumir.context import lumir_context
from lumir.diagnostics import Diagnostic, LumirDiagnosticError, collecting, verify_module
from lumir.parsing import parse_module_text
from lumir.passes import available_passes

SPLIT_MARKER = "// -----"


@dataclass
class Chunk:
    """One `--split-input-file` piece of the input and the line it starts on."""

    text: str
    line_offset: int


def split_chunks(text: str, split: bool) -> list[Chunk]:
    """Split the input at `// -----` lines, remembering each piece's first line.

    As with mlir-opt, an empty piece (an empty file, two markers in a row, a marker at
    the end) is an empty module.
    """
    if not split:
        return [Chunk(text, 0)]
    chunks: list[Chunk] = []
    offset = 0
    for piece in text.split(SPLIT_MARKER):
        chunks.append(Chunk(piece, offset))
        offset += piece.count("\n")
    return chunks


def read_input(path: str | None) -> tuple[str, str]:
    """The input's text and the name diagnostics use for it (`-` or None: stdin)."""
    if path is None or path == "-":
        name = "<stdin>"
        data = sys.stdin.buffer.read()
    else:
        name = path
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise LumirDiagnosticError(
                [Diagnostic(f"cannot read input file '{path}': {error.strerror}")]
            ) from None
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise LumirDiagnosticError(
            [Diagnostic(f"input {name} is not UTF-8 text (byte {error.start}, line {line})")]
        ) from None


def closed_stdout() -> int:
    """The exit status when stdout's reader went away (`lumir-opt ... | head`).

    Points stdout at /dev/null first, so the interpreter's final flush cannot fail a
    second time with a traceback.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def build_pipeline(spec: str) -> tuple[ModulePass, ...]:
    """Parse a `-p` pipeline spec into passes, compound passes expanded into stages.

    xDSL reports a malformed spec as `ArgSpecParseError` (a `BaseException`), an
    unknown pass as `ValueError` and a bad option value as `ValueError`/`TypeError`;
    each becomes one diagnostic naming the spec, as does an option a pass refuses when
    it is built (`cublaslt-fuse{node-limit=true}`).
    """
    try:
        passes = PassPipeline.parse_spec(available_passes(), spec).passes
    except LumirDiagnosticError as error:  # a pass refused its options when built
        raise LumirDiagnosticError(
            [
                d
                if d.location is not None
                else Diagnostic(f"invalid pass pipeline '{spec}': {d.message}")
                for d in error.diagnostics
            ]
        ) from None
    except (ArgSpecParseError, Exception) as error:
        known = ", ".join(available_passes())
        detail = " ".join(str(error).split())
        raise LumirDiagnosticError(
            [Diagnostic(f"invalid pass pipeline '{spec}': {detail} (available passes: {known})")]
        ) from None
    return tuple(stage for module_pass in passes for stage in _stages(module_pass))


def _stages(module_pass: ModulePass) -> tuple[ModulePass, ...]:
    stages = getattr(module_pass, "stages", None)
    return stages() if callable(stages) else (module_pass,)


IRPrinter = Callable[[str, ModuleOp], None]
"""Called with a pass's name and the module after it ran (`--print-ir-after-all`)."""


@dataclass
class PassTiming:
    """Wall-clock seconds per stage of a compile (`--timing`), as mlir-opt's `-mlir-timing`.

    Stages are `parse`, each pass by name and `verify` (every verification, the input's
    and each pass's output, together), kept in the order they first ran, and summed over
    `--split-input-file` chunks. Printing the IR is not a stage: `--print-ir-after-all`
    does not inflate the pass it follows.
    """

    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def report(self) -> str:
        """The table: seconds and share of the total per stage, then the total."""
        total = sum(self.seconds.values())
        lines = ["===- lumir timing report -===", f"  {'seconds':>9}  {'share':>6}  stage"]
        for stage, seconds in [*self.seconds.items(), ("total", total)]:
            share = 100.0 * seconds / total if total > 0 else 0.0
            lines.append(f"  {seconds:9.4f}  {share:5.1f}%  {stage}")
        return "\n".join(lines)


@dataclass
class CompileSettings:
    """How a chunk is compiled: verification on or off, and what to do after each pass."""

    verify: bool = True
    after_pass: IRPrinter | None = None
    keep_input: bool = False
    """Also return a copy of the parsed input, before any pass (lumir-run's reference)."""
    timing: PassTiming | None = None
    """Where to add each stage's wall-clock seconds (`--timing`), or nowhere."""


@dataclass
class CompiledChunk:
    """What compiling one chunk gave: the module (None on error) and every diagnostic."""

    module: ModuleOp | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    input_module: ModuleOp | None = None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def compile_chunk(
    chunk: Chunk, name: str, passes: Sequence[ModulePass], settings: CompileSettings
) -> CompiledChunk:
    """Parse, verify and transform one chunk in one context, collecting its diagnostics."""
    ctx = lumir_context()
    input_module = None
    after_each = _AfterEachPass(settings)
    timed = _Stopwatch(settings.timing)
    with collecting() as emitted:
        try:
            module = timed("parse", parse_module_text, chunk.text, name, chunk.line_offset, ctx)
            if settings.verify:
                _raise_problems(timed("verify", verify_module, module))
            if settings.keep_input:
                input_module = module.clone()
            PassPipeline(tuple(passes), after_each).apply(ctx, module)
        except LumirDiagnosticError as error:
            return CompiledChunk(None, [*emitted, *error.diagnostics], input_module)
        except (VerifyException, DiagnosticException) as error:
            failure = Diagnostic(f"{after_each.running}: {error}")
            return CompiledChunk(None, [*emitted, failure], input_module)
        except RecursionError:
            failure = Diagnostic(f"{after_each.running}: the IR nests too deeply to process")
            return CompiledChunk(None, [*emitted, failure], input_module)
    return CompiledChunk(module, list(emitted), input_module)


class _Stopwatch:
    """Runs a function and adds its wall-clock seconds to a stage of a `PassTiming`
    (when there is one); the function's own errors pass through, its time counted."""

    def __init__(self, timing: PassTiming | None):
        self.timing = timing

    def __call__(self, stage: str, function, *args):
        if self.timing is None:
            return function(*args)
        start = time.perf_counter()
        try:
            return function(*args)
        finally:
            self.timing.add(stage, time.perf_counter() - start)


class _AfterEachPass:
    """The `PassPipeline` callback: verify, then print, the IR after each pass.

    It also remembers which pass is running, so an unlocated exception from inside a
    pass can at least be attributed to it, and when it started: a pass's time is the
    time between this callback's return before it and its call after it.
    """

    def __init__(self, settings: CompileSettings):
        self.settings = settings
        self.running = "lumir"
        self.timed = _Stopwatch(settings.timing)
        self.pass_started = time.perf_counter()

    def __call__(self, done: ModulePass | None, module: ModuleOp, next: ModulePass | None) -> None:
        if done is not None and self.settings.timing is not None:
            self.settings.timing.add(done.name, time.perf_counter() - self.pass_started)
        self.running = next.name if next is not None else "lumir"
        if done is not None:
            if self.settings.verify:
                problems = self.timed("verify", verify_module, module)
                if problems:
                    header = Diagnostic(f"IR after pass '{done.name}' does not verify")
                    raise LumirDiagnosticError([header, *problems])
            if self.settings.after_pass is not None:
                self.settings.after_pass(done.name, module)
        self.pass_started = time.perf_counter()


def _raise_problems(problems: list[Diagnostic]) -> None:
    if problems:
        raise LumirDiagnosticError(problems)
