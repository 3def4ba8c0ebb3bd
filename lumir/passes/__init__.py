"""lumir's passes, registered by name.

Each pass lives in its own module; this table is the one place that names them, so
`lumir-opt --help`, `docs/passes.md` and the `lumir-pipeline` pass all read the same list.
The modules are imported on first use, which keeps `import lumir` cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

PASS_MODULES: dict[str, tuple[str, str]] = {
    "hl-canonicalize": ("lumir.passes.hl_canonicalize", "HLCanonicalizePass"),
    "hl-to-cublaslt": ("lumir.passes.hl_to_cublaslt", "HLToCublasltPass"),
    "cublaslt-fuse": ("lumir.egraph_bridge.fuse_pass", "CublasltFusePass"),
    "cublaslt-verify": ("lumir.passes.cublaslt_verify", "CublasltVerifyPass"),
    "fuse-kernels": ("lumir.passes.fuse_kernels", "FuseKernelsPass"),
    "lower-to-cublaslt-rt": ("lumir.passes.lower_to_cublaslt_rt", "LowerToCublasltRtPass"),
    "group-gemv": ("lumir.passes.group_gemv", "GroupGemvPass"),
    "gemv-epilogue": ("lumir.passes.gemv_epilogue", "GemvEpiloguePass"),
    "gemv-prologue": ("lumir.passes.gemv_prologue", "GemvProloguePass"),
    "chunk-rows": ("lumir.passes.chunk_rows", "ChunkRowsPass"),
    "group-fused": ("lumir.passes.group_fused", "GroupFusedPass"),
    "hoist-index-math": ("lumir.passes.hoist_index_math", "HoistIndexMathPass"),
    "share-buffers": ("lumir.passes.share_buffers", "ShareBuffersPass"),
    "group-launches": ("lumir.passes.group_launches", "GroupLaunchesPass"),
    "lumir-pipeline": ("lumir.passes.pipeline", "LumirPipelinePass"),
}
"""Pass name -> (module, class), in pipeline order (group-launches, which the backend
runs on the program it loads, after lumir-pipeline's passes)."""


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(module), cls)

    return load


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of the pass class, as xDSL's `PassPipeline` expects."""
    return {name: _loader(module, cls) for name, (module, cls) in PASS_MODULES.items()}


INT64_MAX = 2**63 - 1
"""The largest integer pass option: each ends up in an i64 attribute or an egglog i64."""


def check_int_option(option: str, value: object, minimum: int, note: str = "") -> None:
    """Refuse an integer pass option that is a boolean or out of [minimum, INT64_MAX].

    xDSL's pipeline parser hands `node-limit=true` to an `int` field as True (a bool is
    an int in Python) and any number of digits as a Python int, so a pass checks its own
    integer options when it is built: `lumir-opt` then reports them once, as whole-file
    errors, before any input is read. `option` names the pass and the option
    (`cublaslt-fuse: node-limit`); `note` says what an edge value means.
    """
    from lumir.diagnostics import Diagnostic, LumirDiagnosticError

    if isinstance(value, bool) or not isinstance(value, int):
        shown = str(value).lower() if isinstance(value, bool) else repr(value)
        problem = f"{option} must be an integer, got {shown}"
    elif not minimum <= value <= INT64_MAX:
        problem = f"{option} must be an integer in [{minimum}, {INT64_MAX}]{note}, got {value}"
    else:
        return
    raise LumirDiagnosticError([Diagnostic(problem)])


def pass_summary(pass_class: type[ModulePass]) -> str:
    """The first line of a pass's docstring: its one-line summary."""
    doc = (pass_class.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""
