"""Compile and launch generated Triton kernels for `cublaslt_rt.fused_launch` on CUDA.

`triton_launch` generates the kernel text for a fused body (`triton_codegen`), compiles
it once per distinct text (the cache key is the SHA-256 of the text, so two processes
agree on it), and returns a zero-argument launch over the program's fixed buffers, with
the grid, constexprs and warps of the body's launch shape (`fused_tiling`).
Triton launches on torch's current stream, so the launch is captured into the
program's CUDA graph like any other; the graph's warm-up call compiles the kernel
before capture. Triton is imported here, lazily: only loading a fused program on CUDA
needs it (`pip install 'lumir[cuda]'`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import torch
from xdsl.ir import Block

from lumir.runtime.pdl import NO_PDL, PdlMode
from lumir.runtime.triton_codegen import KERNEL_NAME, FusedKernelSource, generate, generate_group
from lumir.runtime.triton_launch import TritonLaunch

FP_FUSION = False
"""Triton's `enable_fp_fusion` for every fused kernel: off, so each op rounds where torch
rounds it. With it on (Triton's default up to 3.9), LLVM contracts a multiply and an add
into one FMA, also in bf16: the rotary's `q*cos + rot*sin` ran as one `fma.rn.bf16`,
skipping the bf16 rounding of one product, and which product it kept unrounded was the
compiler's choice per specialisation: on the H200 the rotary tiled for one token wrote
other bytes than the same body one row per program (`bench/fused_kernels_bench.py
--compare`), while every other kernel and length agreed. Pinned, so a Triton upgrade
cannot move the kernels' numerics either way. The GEMV kernels (`lumir.runtime.gemv`)
are compiled with it too: their sums use explicit fused multiply-adds, and everything
else rounds where it is written, so a GEMV with a generated epilogue
(`lumir.runtime.gemv_epilogue`) computes its members' bits and its body's bits exactly."""

_COMPILED: dict[str, Callable[..., object]] = {}
"""Kernel text digest -> the `@triton.jit` function defined by that text."""


def source_key(source: FusedKernelSource) -> str:
    """The cache key of a generated kernel: the SHA-256 of its text."""
    return text_key(source.text)


def text_key(text: str) -> str:
    """The cache key of a generated kernel's text: its SHA-256."""
    return hashlib.sha256(text.encode()).hexdigest()


def _cache_dir() -> Path:
    root = os.environ.get("LUMIR_TRITON_CACHE") or os.path.join(
        tempfile.gettempdir(), f"lumir-triton-{os.getuid()}"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def compile_source(source: FusedKernelSource) -> Callable[..., object]:
    """The `@triton.jit` kernel of `source`, defined once per text (`compile_text`)."""
    return compile_text(source.text)


def compile_text(text: str) -> Callable[..., object]:
    """The `@triton.jit` function `KERNEL_NAME` that generated `text` defines, once per text.

    triton.jit reads its function's source through `inspect`, so the text is written to
    a file named by its digest and imported from there.
    """
    key = text_key(text)
    kernel = _COMPILED.get(key)
    if kernel is None:
        path = _cache_dir() / f"lumir_fused_{key[:32]}.py"
        if not path.exists() or path.read_text() != text:
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(text)
            partial.replace(path)
        spec = importlib.util.spec_from_file_location(f"lumir_fused_{key[:32]}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kernel = getattr(module, KERNEL_NAME)
        _COMPILED[key] = kernel
    return kernel


def source_launch(
    source: FusedKernelSource,
    inputs: list[torch.Tensor],
    outputs: list[torch.Tensor],
    pdl: PdlMode = NO_PDL,
) -> TritonLaunch:
    """A zero-argument launch of the kernel of `source` over fixed dense tensors, with
    the grid, constexprs and warps of its launch shape (`fused_tiling`); a programmatic
    dependent launch when `pdl` says so (`lumir.runtime.pdl`)."""
    kernel = compile_source(source)
    shape = source.launch
    options = {
        **shape.constants,
        "num_warps": shape.num_warps,
        **pdl.kernel_options(),
        "enable_fp_fusion": FP_FUSION,
    }
    return TritonLaunch(kernel, tuple(shape.grid), (*inputs, *outputs), options)


def run_source(
    source: FusedKernelSource, inputs: list[torch.Tensor], outputs: list[torch.Tensor]
) -> None:
    """Launch the kernel of `source` once on dense `inputs`, writing dense `outputs`."""
    source_launch(source, inputs, outputs)()


def group_launch(
    blocks: list[Block],
    inputs: list[list[torch.Tensor]],
    outputs: list[list[torch.Tensor]],
    pdl: PdlMode = NO_PDL,
) -> TritonLaunch:
    """A zero-argument launch of a `cublaslt_rt.fused_group`'s one kernel over fixed
    CUDA buffers: member i's body (`blocks[i]`) on `inputs[i]` into `outputs[i]`."""
    source = generate_group(blocks)
    kernel = compile_text(source.text)
    arguments = [t for ins, outs in zip(inputs, outputs, strict=True) for t in (*ins, *outs)]
    options = {
        "num_warps": source.num_warps,
        **pdl.kernel_options(),
        "enable_fp_fusion": FP_FUSION,
    }
    return TritonLaunch(kernel, (source.programs,), tuple(arguments), options)


def triton_launch(
    block: Block,
    inputs: list[torch.Tensor],
    outputs: list[torch.Tensor],
    pdl: PdlMode = NO_PDL,
) -> TritonLaunch:
    """A zero-argument launch of the fused body `block` over fixed CUDA buffers."""
    return source_launch(generate(block), inputs, outputs, pdl)


__all__ = [
    "compile_source",
    "compile_text",
    "group_launch",
    "run_source",
    "source_key",
    "source_launch",
    "text_key",
    "triton_launch",
]
