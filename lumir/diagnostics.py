"""Located diagnostics: what lumir tells a person when their IR is wrong.

MLIR reports `file:line:col: error: message`; lumir does the same. The parser records
each op's source position as a `FileLineColLoc` (see `lumir.tools.located_parser`), passes
copy the location of the op they replace onto the ops they create, and every error a user
can cause is raised as a `LumirDiagnosticError` carrying one or more `Diagnostic`s, never
as a bare Python exception.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

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
    """Verify every op of `module`, returning one located diagnostic per failing op.

    xDSL's `verify()` stops at the first failure; a person fixing a file wants them all.
    """
    problems: list[Diagnostic] = []
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


def parse_error_diagnostic(error: ParseError, line_offset: int) -> Diagnostic:
    """A located diagnostic for a parse error (xDSL reports it as a source span)."""
    location = error.span.get_location()
    return Diagnostic(
        error.msg,
        SourceLocation(location.file, location.line + line_offset, location.col),
    )
