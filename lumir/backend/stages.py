"""The pipeline as the backend runs it: per-length stages around a once-per-graph fusion.

The backend runs `lumir-pipeline` (lumir.passes.pipeline.PIPELINE, which alone says
the order) split where the cost is: `prepare` (its passes up to hl-to-cublaslt: cheap,
run for every concrete length), `fuse` (cublaslt-fuse under the backend's rule and
precision options, and its verification: equality saturation and verified extraction,
run once per graph, counted), and `lower` (its passes after cublaslt-verify, to runtime
buffers, per length). Each stage's output can be written to a dump directory.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from lumir.backend.options import BackendOptions
from lumir.context import lumir_context
from lumir.egraph_bridge.fuse_pass import CublasltFusePass
from lumir.passes.fuse_kernels import FuseKernelsPass
from lumir.passes.pipeline import LumirPipelinePass


class LumirDumpWarning(UserWarning):
    """The `dump_ir` directory could not be written; the graph compiles without dumps."""


@dataclass
class Dumper:
    """Writes `<directory>/<label>.<NN>-<stage>.mlir` after each stage (or nothing), in
    the form lumir-opt parses back, with each op's source location.

    The dumps are a debugging aid: a directory that cannot be created or written is
    one warning, and the compile goes on without them, rather than costing the graph
    its compile.
    """

    directory: str | None
    label: str
    count: int = 0

    def __call__(self, stage: str, module: ModuleOp) -> None:
        if self.directory is None:
            return
        path = Path(self.directory)
        text = StringIO()
        Printer(stream=text, print_debuginfo=True).print_op(module)
        try:
            path.mkdir(parents=True, exist_ok=True)
            (path / f"{self.label}.{self.count:02d}-{stage}.mlir").write_text(
                text.getvalue() + "\n", encoding="utf-8"
            )
        except OSError as error:
            warnings.warn(
                f"lumir {self.label}: could not write the IR dump into '{self.directory}' "
                f"({error.strerror or error}); compiling without dumps",
                LumirDumpWarning,
                stacklevel=2,
            )
            self.directory = None
            return
        self.count += 1


def name_values(module: ModuleOp) -> None:
    """Give every op result the name `v<i>`, in walk order.

    Fusion copies a value's name onto every op it rebuilds for that value, so after
    fusion a name still says which pre-fusion value an op computes; specialisation
    relies on it (lumir.backend.retype). Walk order makes the names deterministic.
    """
    index = 0
    for op in module.walk():
        for result in op.results:
            result.name_hint = f"v{index}"
            index += 1


def prepare(module: ModuleOp, dump: Dumper) -> ModuleOp:
    """lumir-pipeline's passes up to hl-to-cublaslt, then `name_values` (modifies
    `module`).

    Verified once, at the end: this runs for every new length, and verification is most
    of its cost.
    """
    ctx = lumir_context()
    dump("import", module)
    for stage in LumirPipelinePass(stop_after="hl-to-cublaslt").stages():
        stage.apply(ctx, module)
        if stage.name == "hl-to-cublaslt":
            module.verify()
            name_values(module)
        dump(stage.name, module)
    return module


def fuse(module: ModuleOp, options: BackendOptions, dump: Dumper) -> ModuleOp:
    """cublaslt-fuse under the backend's rule and precision options, then verified.

    The verification is cublaslt-verify's check too: every `cublaslt.matmul` verifies
    against V1-V10 (`MatmulOp.verify_`), so cublaslt-verify would run the same checks
    on the same module again (it differs only in listing every violation, not the
    first), and is not run.
    """
    CublasltFusePass(
        families=options.families, disable=options.disable, precision=options.precision
    ).apply(lumir_context(), module)
    module.verify()
    dump("cublaslt-fuse", module)
    return module


def lower(module: ModuleOp, dump: Dumper, options: BackendOptions | None = None) -> ModuleOp:
    """lumir-pipeline's passes after cublaslt-verify (modifies `module`), under the
    backend's options: `fuse_kernels=False` skips fuse-kernels (one launch per hl op);
    `gemv=False` keeps every plan on cuBLASLt; `group_gemv=False` keeps one launch per
    GEMV call (and so no gemv-epilogue); `gemv_epilogue=False` keeps the GEMV group's
    elementwise consumer a launch of its own; `gemv_prologue=True` runs the one-row
    launch that computes a GEMV group's activation inside the group's; `chunk_bytes`
    bounds the temporaries of a row-local GEMM group before it runs in chunks (0:
    never); `group_fused=True` runs independent fused kernels as one launch. No
    options: the defaults.

    `lumir.runtime.load` verifies the result; fuse-kernels' output is verified here,
    because lowering reads the `hl.fused` bodies it builds as verified.
    """
    options = options or BackendOptions()
    ctx = lumir_context()
    pipeline = LumirPipelinePass(
        fuse_kernels=options.fuse_kernels,
        gemv=options.gemv,
        group_gemv=options.group_gemv,
        gemv_epilogue=options.gemv_epilogue,
        gemv_prologue=options.gemv_prologue,
        group_fused=options.group_fused,
        chunk_bytes=options.chunk_bytes,
    )
    for stage in pipeline.stages(after="cublaslt-verify"):
        stage.apply(ctx, module)
        if isinstance(stage, FuseKernelsPass):
            module.verify()
        dump(stage.name, module)
    return module
