"""The default pipeline: every pass of the compiler, from `hl` to `cublaslt_rt`, in order."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from lumir.diagnostics import Diagnostic, LumirDiagnosticError, verify_module
from lumir.passes import available_passes
from lumir.passes.chunk_rows import MAX_BYTES, check_byte_count

PIPELINE = (
    "hl-canonicalize",
    "hl-to-cublaslt",
    "cublaslt-fuse",
    "cublaslt-verify",
    "fuse-kernels",
    "lower-to-cublaslt-rt",
    "group-gemv",
    "gemv-epilogue",
    "gemv-prologue",
    "chunk-rows",
    "group-fused",
    "hoist-index-math",
    "share-buffers",
)
"""The passes of lumir-pipeline, in order. lower-to-cublaslt-rt runs without its buffer
plan (`share_buffers=false`): share-buffers places the buffers last, after group-gemv
has moved the grouped calls, chunk-rows has cut the large row-local groups,
group-fused has put independent fused launches together and hoist-index-math has moved
index arithmetic to the top."""


@dataclass(frozen=True)
class LumirPipelinePass(ModulePass):
    """Run the whole compiler: the passes above, hl-canonicalize to share-buffers, in order.

    It is a pipeline, not one opaque pass: `stages()` is its list of passes, which
    lumir-opt and lumir-run run one by one (so `--print-ir-after-all` prints after
    each and `--disable-verify` applies to each). Applied directly, it runs the stages
    and verifies the IR after each one, raising located diagnostics.
    """

    name = "lumir-pipeline"

    stop_after: str | None = None
    """Stop after this pass of the pipeline (for inspecting the IR in between)."""

    fuse_kernels: bool = True
    """Group the non-GEMM chains into hl.fused kernels (one generated kernel each).

    On by default: on the H200 the fused kernels halve the residual chain's replay
    (docs/perf-notes.md). `fuse_kernels=false` leaves one launch per hl op, which is
    what the pipeline printed before fuse-kernels existed.
    """

    gemv: bool = True
    """Let lower-to-cublaslt-rt run one-column calls as lumir's GEMV where the cost model
    says it is faster (`algorithm = "gemv"`); `gemv=false` keeps every plan on cuBLASLt."""

    group_gemv: bool = True
    """Run group-gemv (when `gemv` is on): GEMV calls that read one activation become
    one launch each (`cublaslt_rt.matmul_group`). `group_gemv=false` leaves one launch per
    call and is no stage at all."""

    gemv_epilogue: bool = True
    """Run gemv-epilogue (when `gemv` and `group_gemv` are on): an elementwise fused launch
    that reads only a GEMV group's results becomes the group's epilogue, one kernel on
    CUDA (SiLU(gate) * up of a decode step's MLP). `gemv_epilogue=false` is no stage."""

    gemv_prologue: bool = False
    """Run gemv-prologue (when `gemv` and `group_gemv` are on): the one-row fused launch
    that computes a GEMV group's activation becomes the group's prologue, one kernel on
    CUDA (the RMSNorm before a decode step's q/k/v and gate/up). Off by default, as in
    the backend: on an H100 the one kernel was slower than the two launches, since every
    program of it computes the whole row's norm. `gemv_prologue=false` is no stage."""

    group_fused: bool = False
    """Run group-fused: fused launches that depend on none of each other run as one
    launch (`cublaslt_rt.fused_group`; a decode layer's q and k rotaries). Off by
    default: on an H100 it gained nothing at one token and cost the decode step 78 µs
    (docs/passes/group-fused.md). Off, it is no stage."""

    chunk_bytes: int = MAX_BYTES
    """Run chunk-rows with this `max_bytes`: a row-local GEMM group (a long prompt's MLP)
    whose temporaries exceed it runs in row chunks. `chunk_bytes=0` is no stage at all."""

    def __post_init__(self) -> None:
        check_byte_count("lumir-pipeline: chunk_bytes", self.chunk_bytes, "0 runs no chunk-rows")
        if self.stop_after is not None and self.stop_after not in PIPELINE:
            raise LumirDiagnosticError(
                [
                    Diagnostic(
                        f"lumir-pipeline: stop_after = '{self.stop_after}' is not one of its "
                        f"passes ({', '.join(PIPELINE)})"
                    )
                ]
            )

    def stages(self, after: str | None = None) -> tuple[ModulePass, ...]:
        """The passes this pipeline runs, up to `stop_after`; with `after`, only those
        that follow that pass of PIPELINE.

        The backend runs the pipeline in parts (lumir.backend.stages: the fusion once per
        graph, the rest per length) and asks for each part here, so the order and the
        options that drop a stage are written once.
        """
        names = PIPELINE
        if self.stop_after is not None:
            names = PIPELINE[: PIPELINE.index(self.stop_after) + 1]
        if after is not None:
            names = names[PIPELINE.index(after) + 1 :]
        passes = available_passes()
        stages = []
        for name in names:
            pass_class = passes[name]()
            if name == "fuse-kernels":
                # Off, it is no stage at all, so --print-ir-after-all prints what it did before.
                if self.fuse_kernels:
                    stages.append(pass_class())
            elif name == "lower-to-cublaslt-rt":
                stages.append(pass_class(gemv=self.gemv, share_buffers=False))
            elif name == "group-gemv":
                if self.gemv and self.group_gemv:
                    stages.append(pass_class())
            elif name == "gemv-epilogue":
                if self.gemv and self.group_gemv and self.gemv_epilogue:
                    stages.append(pass_class())
            elif name == "gemv-prologue":
                if self.gemv and self.group_gemv and self.gemv_prologue:
                    stages.append(pass_class())
            elif name == "group-fused":
                if self.group_fused:
                    stages.append(pass_class())
            elif name == "chunk-rows":
                if self.chunk_bytes:
                    stages.append(pass_class(max_bytes=self.chunk_bytes))
            else:
                stages.append(pass_class())
        return tuple(stages)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PassPipeline(self.stages(), _verify_after).apply(ctx, op)


def _verify_after(done: ModulePass | None, module: ModuleOp, _next: ModulePass | None) -> None:
    if done is None:
        return
    problems = verify_module(module)
    if problems:
        header = Diagnostic(f"IR after pass '{done.name}' does not verify")
        raise LumirDiagnosticError([header, *problems])
