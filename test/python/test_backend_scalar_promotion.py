"""Scalars a half-precision or f32 tensor op reads follow eager's promotion and precision,
whatever their value: a float computed from sizes under `dynamic=True`, a Python float
bound of `clamp`, and a float64 0-d tensor (lumir.frontend.elementwise._compute_dtype,
lumir.backend.compiler._cast_wide_scalars)."""

from __future__ import annotations

import warnings

import pytest
import torch

from lumir.backend import LumirFallbackWarning, stats

SIZE_FACTORS = {
    "a ratio of lengths": lambda x: x * ((x.size(1) - 1) / (x.size(1) + 1)),
    "a length": lambda x: x * x.size(1),
    "divided by a length": lambda x: x / x.size(1),
}


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("name", sorted(SIZE_FACTORS))
def test_a_half_product_with_a_float_of_sizes_fuses_once_over_lengths(name, dtype):
    """A half `mul` or `div` by a number computed from sizes computes in f32 and rounds
    once at every length, as eager does: an exact factor (0.5 at length 3, 256) once
    computed in the half type and an inexact one (0.6 at length 4, 257) in f32, two
    programs, so the graph fused again at the next length."""
    function = SIZE_FACTORS[name]
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=True)
    generator = torch.Generator().manual_seed(0)
    lengths = [*range(3, 13), 255, 256, 257]
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for length in lengths:
            x = torch.randn(4, length, generator=generator).to(dtype)
            assert torch.equal(compiled(x), function(x))
    (graph,) = stats.GRAPHS
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, len(lengths))]
