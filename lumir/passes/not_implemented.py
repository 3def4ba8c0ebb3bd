"""The error a registered pass raises while the issue that builds it is still open."""

from __future__ import annotations

from lumir.diagnostics import Diagnostic, LumirDiagnosticError


def pass_not_implemented(pass_name: str, issue: int) -> LumirDiagnosticError:
    """Say plainly that `pass_name` does not exist yet, rather than pass IR through."""
    return LumirDiagnosticError(
        [Diagnostic(f"pass '{pass_name}' is not implemented yet (tracked by issue {issue})")]
    )
