"""Fuse epilogues, alpha, residuals and casts into cublaslt.matmul by equality saturation."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block
from xdsl.passes import ModulePass

from lumir.diagnostics import (
    Diagnostic,
    LumirDiagnosticError,
    SourceLocation,
    emit,
    op_diagnostic,
)
from lumir.egraph_bridge.block_fusion import (
    BlockOutcome,
    FuseConfig,
    MistypedFusionError,
    RejectedCall,
    fuse_block,
)
from lumir.egraph_bridge.decoder import CyclicSelectionError
from lumir.egraph_bridge.encoder import has_call
from lumir.egraph_bridge.extractor import ExtractionError
from lumir.egraph_bridge.rulesets import (
    UnknownRuleFamilyError,
    select_families,
    select_test_rules,
)
from lumir.egraph_bridge.saturate import (
    LimitReachedError,
    Limits,
    RuleFileError,
    RuleProgramError,
    check_rules,
)
from lumir.passes import check_int_option

PRECISION_EXCLUDES: dict[str, tuple[str, ...]] = {"fast": (), "strict": ("cast",)}
"""Precision policy -> the rule families it leaves out. `strict` keeps every value in
the dtype the program computes it in; the cast rules are the ones that change it."""


@dataclass(frozen=True)
class CublasltFusePass(ModulePass):
    """Fuse epilogues, alpha, residuals and casts into cublaslt.matmul by equality saturation.

    Each block holding a `cublaslt.matmul` is encoded as egglog terms (ops the rules do
    not rewrite become opaque leaves), saturated with the rule files in
    `lumir/egraph_bridge/rules/`, and replaced by the cheapest program whose every call
    passes the verifier (V1-V10) under an H200 roofline cost model. See
    docs/passes/cublaslt-fuse.md.

    Options: `families=a,b` runs only those rule families (alpha, residual, bias,
    relu, gelu, cast, batched); `disable=a,b` leaves some out; `node-limit` and
    `iteration-limit` bound saturation per block (hitting one is an error naming it);
    `dump-egglog=PATH` writes each block's egglog program (`-` for stderr);
    `precision=strict` never lets a call write a value in another dtype than the
    program gives it (it leaves out the `cast` family, whose rules write a half-precision
    product in f32), `precision=fast` (the default) allows it;
    `report-rejected=true` prints a remark for every call e-node the verifier refused,
    naming the rule that proposed it; `unsafe-test-rules=unguarded-cast` (or
    `mistyped-merge`, or `misspelled-constant`) also loads a deliberately wrong rule, for
    tests of that refusal (or of the error naming a rule that merged two tensor types
    into one e-class, or of the located error for a rule file that does not load).
    """

    name = "cublaslt-fuse"

    families: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    node_limit: int = 100_000
    iteration_limit: int = 32
    dump_egglog: str = ""
    report_rejected: bool = False
    unsafe_test_rules: tuple[str, ...] = ()
    precision: str = "fast"

    def __post_init__(self) -> None:
        # Checked when the pass is built, so lumir-opt reports a bad option once, as a
        # whole-file error, not once per --split-input-file chunk from `apply`.
        self.config()

    def config(self) -> FuseConfig:
        """The rulesets and limits these options ask for; bad options are diagnostics."""
        if self.precision not in PRECISION_EXCLUDES:
            raise LumirDiagnosticError(
                [
                    Diagnostic(
                        f"{self.name}: precision must be one of "
                        f"{', '.join(PRECISION_EXCLUDES)}, got '{self.precision}'"
                    )
                ]
            )
        disable = (*self.disable, *PRECISION_EXCLUDES[self.precision])
        try:
            rulesets = select_families(self.families, disable)
            rulesets += select_test_rules(self.unsafe_test_rules)
        except UnknownRuleFamilyError as error:
            raise LumirDiagnosticError([Diagnostic(f"{self.name}: {error}")]) from None
        for option, value in (
            ("node-limit", self.node_limit),
            ("iteration-limit", self.iteration_limit),
        ):
            if isinstance(value, int) and not isinstance(value, bool) and value < 1:
                raise LumirDiagnosticError(
                    [Diagnostic(f"{self.name}: {option} must be at least 1, got {value}")]
                )
            check_int_option(f"{self.name}: {option}", value, 1)
        try:
            check_rules(rulesets)
        except RuleFileError as error:
            where = None
            if error.line is not None and error.column is not None:
                where = SourceLocation(error.source, error.line, error.column)
            shown = error.reason if where is not None else str(error)
            raise LumirDiagnosticError(
                [Diagnostic(f"{self.name}: rule file does not load: {shown}", where)]
            ) from None
        return FuseConfig(rulesets, Limits(self.node_limit, self.iteration_limit))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        config = self.config()
        programs: list[str] = []
        for func in [o for o in op.walk() if isinstance(o, FuncOp)]:
            for block in _blocks(func):
                if not has_call(block):
                    continue
                outcome = self._fuse(func, block, config)
                programs.append(f"; func @{func.sym_name.data}\n{outcome.program}")
                if self.report_rejected:
                    _print_rejections(outcome)
        if self.dump_egglog:
            _dump(self.dump_egglog, programs)

    def _fuse(self, func: FuncOp, block: Block, config: FuseConfig) -> BlockOutcome:
        try:
            return fuse_block(block, config)
        except LimitReachedError as error:
            raise LumirDiagnosticError(
                [op_diagnostic(func, f"{self.name}: {error.limit} reached: {error}")]
            ) from None
        except MistypedFusionError as error:
            raise LumirDiagnosticError(
                [op_diagnostic(error.op or func, f"{self.name}: internal error: {error}")]
            ) from None
        except (RuleProgramError, ExtractionError, CyclicSelectionError) as error:
            raise LumirDiagnosticError(
                [op_diagnostic(func, f"{self.name}: internal error: {error}")]
            ) from None


def _blocks(func: FuncOp) -> list[Block]:
    """Every block in the function, outer ones first (collected before any rewrite)."""
    blocks = list(func.body.blocks)
    for inner in func.body.walk():
        for region in inner.regions:
            blocks.extend(region.blocks)
    return blocks


def _print_rejections(outcome: BlockOutcome) -> None:
    for rejected in outcome.rejected:
        emit(_rejection_diagnostic(rejected))


def _rejection_diagnostic(rejected: RejectedCall) -> Diagnostic:
    rules = ", ".join(f"'{r}'" for r in rejected.made_by) or "the input program"
    message = (
        f"cublaslt-fuse: rejected a cublaslt.matmul proposed by rule {rules}: "
        f"{'; '.join(rejected.problems)}"
    )
    if rejected.op is None:
        return Diagnostic(message, severity="remark")
    return op_diagnostic(rejected.op, message, "remark")


def _dump(target: str, programs: list[str]) -> None:
    text = "\n".join(programs)
    if target == "-":
        sys.stderr.write(text)
        return
    try:
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise LumirDiagnosticError(
            [
                Diagnostic(
                    f"cublaslt-fuse: cannot write dump-egglog file '{target}': {error.strerror}"
                )
            ]
        ) from None


__all__ = ["CublasltFusePass"]
