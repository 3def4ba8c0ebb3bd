"""The default pipeline: what `torch.compile(backend="lumir")` runs."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lumir.diagnostics import Diagnostic, LumirDiagnosticError
from lumir.passes import available_passes

PIPELINE = (
    "hl-canonicalize",
    "hl-to-cublaslt",
    "cublaslt-fuse",
    "cublaslt-verify",
    "lower-to-cublaslt-rt",
)
"""The passes of lumir-pipeline, in order."""


@dataclass(frozen=True)
class LumirPipelinePass(ModulePass):
    """Run the whole compiler: canonicalize, lower to cublaslt, fuse, verify, lower to runtime."""

    name = "lumir-pipeline"

    stop_after: str | None = None
    """Stop after this pass of the pipeline (for inspecting the IR in between)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.stop_after is not None and self.stop_after not in PIPELINE:
            raise LumirDiagnosticError(
                [
                    Diagnostic(
                        f"lumir-pipeline: stop_after = '{self.stop_after}' is not one of its "
                        f"passes ({', '.join(PIPELINE)})"
                    )
                ]
            )
        passes = available_passes()
        for pass_name in PIPELINE:
            passes[pass_name]()().apply(ctx, op)
            op.verify()
            if pass_name == self.stop_after:
                return
