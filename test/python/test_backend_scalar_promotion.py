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


def _compiles_whole(function, calls, dynamic) -> None:
    """Each call of `function` compiled gives eager's dtype and bits without a fallback
    warning, and every graph is one partition with no op in eager."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=dynamic)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for args in calls:
            got, want = compiled(*args), function(*args)
            assert got.dtype == want.dtype and torch.equal(got, want)
    assert stats.GRAPHS
    assert all(graph.fallback_ops == [] for graph in stats.GRAPHS)
    assert all(len(graph.partitions) == 1 for graph in stats.GRAPHS)


LIFTED_BOUNDS = {
    "clamp min": lambda x, b: torch.clamp(x, min=b),
    "clamp max": lambda x, b: torch.clamp(x, max=b),
    "clamp both": lambda x, b: x.clamp(-b, b),
    "clamp_min": lambda x, b: torch.clamp_min(x, b),
    "clamp_max": lambda x, b: x.clamp_max(b),
}


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(LIFTED_BOUNDS))
def test_a_clamp_bound_dynamic_true_lifts_compiles_in_one_partition(name, dtype):
    """`dynamic=True` lifts a Python float bound into a float64 0-d input, which torch's
    clamp decomposition compares the tensor with (`ge`/`le` of an f32 tensor and the
    float64 0-d tensor): the comparison reads the bound cast to f32, as ATen does, so
    the graph is one partition without a warning (the comparison ran in eager). Each
    bound is a graph of its own, as in aot_eager (the decomposition's `where` reads the
    bound's value)."""
    generator = torch.Generator().manual_seed(2)
    calls = [
        (torch.randn(4, length, generator=generator).to(dtype), bound)
        for length, bound in ((3, 0.1), (5, 0.3), (7, 1 / 3))
    ]
    _compiles_whole(LIFTED_BOUNDS[name], calls, dynamic=True)


class _Float64Buffer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.tensor(0.1, dtype=torch.float64))

    def forward(self, x):
        return x * self.scale


WIDE_SCALARS = {
    "times a float64 tensor": lambda x: x * torch.tensor(0.1, dtype=torch.float64),
    "a float64 tensor times": lambda x: torch.tensor(0.1, dtype=torch.float64) * x,
    "divided by a float64 tensor": lambda x: x / torch.tensor(0.7, dtype=torch.float64),
    "plus a float64 tensor": lambda x: x + torch.tensor(0.1, dtype=torch.float64),
    "at least a float64 tensor": lambda x: x >= torch.tensor(0.1001, dtype=torch.float64),
    "maximum with a float64 tensor": lambda x: torch.maximum(
        x, torch.tensor(0.1, dtype=torch.float64)
    ),
    "where of a float64 tensor": lambda x: torch.where(
        x > 0, x, torch.tensor(0.1, dtype=torch.float64)
    ),
    "times a float64 buffer": _Float64Buffer(),
}


@torch.no_grad()
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("name", sorted(WIDE_SCALARS))
def test_a_float64_0d_tensor_does_not_promote_a_tensor_and_compiles(name, dtype, dynamic):
    """A float64 0-d tensor (built in the forward, or a buffer) read by an op of an f32
    or half tensor does not promote it, as torch's type promotion says: eager's dtype
    and bits, one partition, no warning. ATen reads such a scalar converted to f32 (a
    half `mul`/`div`) or to the half type through f32, which the f32 cast lumir gives it
    does too. The op ran in eager."""
    generator = torch.Generator().manual_seed(3)
    calls = []
    for length in (3, 5):
        x = torch.randn(4, length, generator=generator).to(dtype)
        x[0, 0] = 0.10009765625  # bf16's rounding of the 0.1001 bound
        calls.append((x,))
    _compiles_whole(WIDE_SCALARS[name], calls, dynamic)


@torch.no_grad()
def test_a_float64_buffer_read_cast_follows_its_updates():
    """A float64 0-d buffer arrives cast to f32, so it is copied in on every call rather
    than bound by address (binding it failed: `StaticInputError`, and the partition ran
    in eager); an in-place update of the buffer is seen, and so is a new buffer."""
    module = _Float64Buffer()
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(module, backend="lumir")
    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        assert torch.equal(compiled(x), module(x))
        module.scale.fill_(0.7)
        assert torch.equal(compiled(x), module(x))
        module.scale = torch.tensor(1.5, dtype=torch.float64)
        assert torch.equal(compiled(x), module(x))
    assert all(graph.fallback_ops == [] for graph in stats.GRAPHS)


@torch.no_grad()
def test_an_integer_tensor_times_a_float64_0d_tensor_stays_in_eager():
    """A 0-d tensor of a higher category does promote: an int64 tensor times a float64
    0-d tensor is float64 in torch, which lumir does not import; it stays in eager,
    named, with eager's dtype."""

    def scale(x):
        return x * torch.tensor(0.1, dtype=torch.float64)

    torch._dynamo.reset()
    stats.reset()
    x = torch.arange(12).reshape(4, 3)
    with pytest.warns(LumirFallbackWarning, match=r"aten.mul.Tensor: dtype torch.float64"):
        got = torch.compile(scale, backend="lumir")(x)
    assert got.dtype == torch.float64 and torch.equal(got, scale(x))
