"""Small helpers the tests of whole programs share: compile hl text, make its inputs."""

from __future__ import annotations

import torch

from lumir.context import lumir_context
from lumir.parsing import parse_module_text
from lumir.passes.pipeline import LumirPipelinePass
from lumir.runtime.buffers import shaped_type_parts


def compile_text(text: str, fuse_kernels: bool) -> str:
    """`text` (one hl function) through lumir-pipeline, printed."""
    module = parse_module_text(text, "<test>")
    LumirPipelinePass(fuse_kernels=fuse_kernels).apply(lumir_context(), module)
    return str(module)


def seeded_inputs(text: str, seed: int) -> list[torch.Tensor]:
    """Seeded random inputs (0.5 * N(0, 1), in each argument's dtype) for `text`'s function."""
    func = next(iter(parse_module_text(text, "<test>").ops))
    generator = torch.Generator().manual_seed(seed)
    tensors = []
    for typ in func.function_type.inputs.data:
        shape, dtype = shaped_type_parts(typ)
        tensors.append((0.5 * torch.randn(shape, generator=generator)).to(dtype))
    return tensors


def fuse_kernels_only(text: str) -> str:
    """`text` through the fuse-kernels pass alone (still at the hl level), printed."""
    from lumir.passes.fuse_kernels import FuseKernelsPass

    module = parse_module_text(text, "<test>")
    FuseKernelsPass().apply(lumir_context(), module)
    return str(module)


def assert_cuda_matches_cpu(text: str, cuda_graph: bool, tolerance: float = 2.0**-6) -> None:
    """`text` compiled with fused kernels runs on CUDA as the CPU executor computes it,
    for two seeded inputs (a second call replays with new inputs)."""
    from lumir.runtime import load

    fused = compile_text(text, True)
    cpu, gpu = load(fused), load(fused, device="cuda", cuda_graph=cuda_graph)
    for seed in (0, 1):
        inputs = seeded_inputs(text, seed)
        want = cpu(*inputs)
        got = gpu(*[t.cuda() for t in inputs])
        torch.testing.assert_close(got.cpu(), want, rtol=tolerance, atol=tolerance)
    gpu.close()
