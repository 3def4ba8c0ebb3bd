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
    "chunk-rows": ("lumir.passes.chunk_rows", "ChunkRowsPass"),
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


def pass_summary(pass_class: type[ModulePass]) -> str:
    """The first line of a pass's docstring: its one-line summary."""
    doc = (pass_class.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""
