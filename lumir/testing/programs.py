"""Small helpers the tests of whole programs share: compile hl text, make its inputs."""

from __future__ import annotations

import torch

from lumir.context import lumir_context
from lumir.parsing import parse_module_text
from lumir.passes.pipeline import LumirPipelinePass
from lumir.runtime.buffers import shaped_type_parts
from lumir.runtime.interpreter import find_function


def compile_text(text: str, fuse_kernels: bool, **options: bool) -> str:
    """`text` (one hl function) through lumir-pipeline, printed; `options` are the
    pipeline's other switches (`gemv_prologue=True`, ...)."""
    module = parse_module_text(text, "<test>")
    LumirPipelinePass(fuse_kernels=fuse_kernels, **options).apply(lumir_context(), module)
    return str(module)


def seeded_inputs(text: str, seed: int) -> list[torch.Tensor]:
    """Seeded random inputs (0.5 * N(0, 1), in each argument's dtype) for `text`'s one
    function (hl or lowered)."""
    func = find_function(parse_module_text(text, "<test>"))
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
    """`text` compiled with fused kernels runs on CUDA as the CPU executor computes it.

    Each launch is compared on identical inputs (`launch_diff`, within `tolerance` of a
    bf16 rounding): a fused kernel rounds once where the reference body rounds after
    every op, so a one-ulp difference is right, and across a whole random-weight layer
    such differences compound past any fixed tolerance without any kernel being wrong.
    The whole program then runs on CUDA for two seeded inputs (the second call replays
    with new inputs); with `cuda_graph`, graph replay must equal the same program run
    launch by launch bit for bit (same kernels, same buffers).
    """
    from lumir.runtime import load
    from lumir.testing.launch_diff import launch_differences

    fused = compile_text(text, True)
    for seed in (0, 1):
        bad = [
            row
            for row in launch_differences(fused, seeded_inputs(fused, seed), tolerance)
            if row.mismatched
        ]
        assert not bad, f"launches that differ from the CPU executor (seed {seed}): {bad}"
    gpu = load(fused, device="cuda", cuda_graph=cuda_graph)
    unrolled = load(fused, device="cuda", cuda_graph=False)
    for seed in (0, 1):
        inputs = [t.cuda() for t in seeded_inputs(text, seed)]
        got, want = gpu(*inputs), unrolled(*inputs)
        assert torch.equal(got, want), "graph replay differs from the launches run one by one"
        assert bool(torch.isfinite(got.float()).all())
    gpu.close()
    unrolled.close()
