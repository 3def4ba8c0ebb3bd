"""The dtype-guard verifier as a pass: every cublaslt.matmul against V1-V10, all at once."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from lumir.diagnostics import Diagnostic, LumirDiagnosticError, op_diagnostic
from lumir.dialects.cublaslt import MatmulOp
from lumir.verifier import matmul_diagnostics


@dataclass(frozen=True)
class CublasltVerifyPass(ModulePass):
    """Check every cublaslt.matmul against cuBLASLt's invariants V1-V10 and report all violations.

    `MatmulOp.verify_` runs the same checks at every pass boundary, but xDSL's verifier
    stops at the first failing op. This pass walks the whole module and raises one
    `LumirDiagnosticError` holding every violation of every matmul, each located at
    its op, so a person (or a test) sees the full list. Run it on IR that has not been
    verified yet (`lumir-opt --disable-verify -p cublaslt-verify`) to get the list
    instead of the verifier's. Legal IR passes through unchanged.
    """

    name = "cublaslt-verify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        problems = module_diagnostics(op)
        if problems:
            raise LumirDiagnosticError(problems)


def module_diagnostics(module: Operation) -> list[Diagnostic]:
    """Every invariant violation of every `cublaslt.matmul` under `module`, in IR order.

    An op whose properties or operand kinds are malformed cannot be read as a
    descriptor; it is reported once, with xDSL's structural error, and skipped.
    """
    problems: list[Diagnostic] = []
    for op in module.walk():
        if not isinstance(op, MatmulOp):
            continue
        try:
            MatmulOp.get_irdl_definition().verify(op)
        except VerifyException as error:
            problems.append(op_diagnostic(op, f"malformed cublaslt.matmul: {error}"))
            continue
        problems.extend(op_diagnostic(op, str(found)) for found in matmul_diagnostics(op))
    return problems
