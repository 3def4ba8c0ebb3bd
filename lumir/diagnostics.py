"""Located diagnostics: what lumir tells a person when their IR is wrong.

MLIR reports `file:line:col: error: message`; lumir does the same. The parser records
each op's source position as a `FileLineColLoc` (see `lumir.parsing`), passes copy the
location of the op they replace onto the ops they create, and every error a user can
cause is raised as a `LumirDiagnosticError` carrying one or more `Diagnostic`s, never as a
bare Python exception.

Remarks and warnings do not stop compilation, so they are not raised: a pass hands them
to `emit`, which gives them to the driver collecting the current chunk's diagnostics
(`collecting()`; lumir-opt prints them or matches them against `expected-remark`) and,
with no driver listening, prints them to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from lumir.ir_checks import structural_problems
from lumir.verifier.invariants import FindingsVerifyException


@dataclass(frozen=True)
class SourceLocation:
    """A position in an input file (1-based line and column)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One message about the input, with its location when one is known."""

    message: str
    location: SourceLocation | None = None
    severity: str = "error"
    op_name: str | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.severity}: {self.message}"


def first_line(error: BaseException) -> str:
    """The first non-blank line of an error's message, where a one-line report quotes it
    (an error may have no message at all)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else "(no message)"


def op_location(op: Operation) -> SourceLocation | None:
    """The source location of `op`, or of its nearest located ancestor."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
        current = current.parent_op()
    return None


def op_diagnostic(op: Operation, message: str, severity: str = "error") -> Diagnostic:
    """A diagnostic about `op`, located at the op's source position."""
    return Diagnostic(message, op_location(op), severity, op.name)


class LumirDiagnosticError(DiagnosticException):
    """Raised by passes and tools for problems in the user's input.

    It carries every diagnostic found (a verifier pass reports all violations at once),
    and `lumir-opt` prints them and exits non-zero instead of showing a traceback.
    """

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def copy_location(source: Operation, *targets: Operation) -> None:
    """Give ops created by a rewrite the source location of the op they replace."""
    for target in targets:
        target.location = source.location


def verify_module(module: Operation) -> list[Diagnostic]:
    """Verify `module`, returning one located diagnostic per problem.

    First the structure (`lumir.ir_checks`: every value defined before its uses, no
    duplicate symbols): op verifiers assume it, so when it is broken only those problems
    are reported. Then every op's own verifier. xDSL's `verify()` stops at the first
    failure; a person fixing a file wants them all.
    """
    problems = [op_diagnostic(op, message) for op, message in structural_problems(module)]
    if problems:
        return problems
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as error:
            for line in _verify_messages(error):
                problems.append(op_diagnostic(op, line))
    return problems


def _verify_messages(error: VerifyException) -> list[str]:
    if isinstance(error, FindingsVerifyException):
        return list(error.findings)
    message = str(error.args[0]) if error.args else str(error)
    return [line for line in message.splitlines() if line.strip()] or [message]


_collector: ContextVar[list[Diagnostic] | None] = ContextVar("lumir_diagnostics", default=None)


def emit(diagnostic: Diagnostic) -> None:
    """Report a remark or warning: to the active `collecting()` block, else to stderr."""
    collected = _collector.get()
    if collected is None:
        print(str(diagnostic), file=sys.stderr)
    else:
        collected.append(diagnostic)


@contextmanager
def collecting() -> Iterator[list[Diagnostic]]:
    """Collect every diagnostic `emit`ted inside the block into the list it yields."""
    collected: list[Diagnostic] = []
    token = _collector.set(collected)
    try:
        yield collected
    finally:
        _collector.reset(token)
