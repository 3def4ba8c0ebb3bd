"""The pipeline as the backend runs it: per-length stages around a once-per-graph fusion.

`lumir-pipeline` is hl-canonicalize, hl-to-cublaslt, cublaslt-fuse, cublaslt-verify,
fuse-kernels, lower-to-cublaslt-rt, group-gemv, gemv-epilogue, chunk-rows, share-buffers.
The backend splits it where the cost is: `prepare` (canonicalize and lower to
cublaslt: cheap, run for every concrete length), `fuse` (equality saturation and
verified extraction: run once per graph, counted), and `lower` (to runtime buffers, per
length). Each stage's output can be written to a dump directory.
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
from lumir.passes.chunk_rows import ChunkRowsPass
from lumir.passes.fuse_kernels import FuseKernelsPass
from lumir.passes.gemv_epilogue import GemvEpiloguePass
from lumir.passes.group_gemv import GroupGemvPass
from lumir.passes.hl_canonicalize import HLCanonicalizePass
from lumir.passes.hl_to_cublaslt import HLToCublasltPass
from lumir.passes.lower_to_cublaslt_rt import LowerToCublasltRtPass
from lumir.passes.share_buffers import ShareBuffersPass


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
    """hl-canonicalize and hl-to-cublaslt, then `name_values` (modifies `module`).

    Verified once, at the end: this runs for every new length, and verification is most
    of its cost.
    """
    ctx = lumir_context()
    dump("import", module)
    HLCanonicalizePass().apply(ctx, module)
    dump("hl-canonicalize", module)
    HLToCublasltPass().apply(ctx, module)
    module.verify()
    name_values(module)
    dump("hl-to-cublaslt", module)
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
    """The rest of lumir-pipeline (modifies `module`): fuse-kernels unless turned off,
    lower-to-cublaslt-rt, group-gemv when `gemv` and `group_gemv` are on (then
    gemv-epilogue unless `gemv_epilogue` is off), chunk-rows unless `chunk_bytes` is 0,
    share-buffers.

    `lumir.runtime.load` verifies the result. The backend option `fuse_kernels=False`
    skips fuse-kernels (one launch per hl op); `gemv=False` keeps every plan on
    cuBLASLt; `group_gemv=False` keeps one launch per GEMV call; `chunk_bytes` bounds the
    temporaries of a row-local GEMM group before it runs in chunks. No options: the
    defaults.
    """
    options = options or BackendOptions()
    ctx = lumir_context()
    if options.fuse_kernels:
        FuseKernelsPass().apply(ctx, module)
        module.verify()
        dump("fuse-kernels", module)
    LowerToCublasltRtPass(gemv=options.gemv, share_buffers=False).apply(ctx, module)
    dump("lower-to-cublaslt-rt", module)
    if options.gemv and options.group_gemv:
        GroupGemvPass().apply(ctx, module)
        dump("group-gemv", module)
        if options.gemv_epilogue:
            GemvEpiloguePass().apply(ctx, module)
            dump("gemv-epilogue", module)
    if options.chunk_bytes:
        ChunkRowsPass(max_bytes=options.chunk_bytes).apply(ctx, module)
        dump("chunk-rows", module)
    ShareBuffersPass().apply(ctx, module)
    dump("share-buffers", module)
    return module
