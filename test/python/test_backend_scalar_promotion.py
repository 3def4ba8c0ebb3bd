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


COMPARISONS = {
    "bf16 >= an f32 0-d tensor": (lambda x: x >= torch.tensor(0.1001), torch.bfloat16),
    "f16 < an f32 0-d tensor": (lambda x: x < torch.tensor(0.1001), torch.float16),
    "bf16 == an f32 0-d tensor": (lambda x: x == torch.tensor(0.1001), torch.bfloat16),
    "an integer >= a float of a length": (
        lambda x: (x * 4).long() >= x.size(1) / 2,
        torch.float32,
    ),
}


@torch.no_grad()
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_a_comparison_promotes_as_torch_does(name, dynamic):
    """A comparison computes in torch's common dtype: a 0-d tensor does not promote a
    dimensioned one of its category (a bf16 `x >= torch.tensor(0.1001)` compares with
    the bound rounded to bf16, 0.10009765625, which x equals), and a float promotes an
    integer tensor (`n / 2` of a length 5 is 2.5, not 2). Both compared in the wrong
    dtype, silently."""
    function, dtype = COMPARISONS[name]
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=dynamic)
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(0)).to(dtype)
    x[0, :2] = torch.tensor([0.10009765625, 0.625])
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        assert torch.equal(compiled(x), function(x))
    assert [len(graph.partitions) for graph in stats.GRAPHS] == [1]
