"""Scalars computed from sizes and lifted Python floats under `dynamic=True` cost no
fallback: Dynamo traces `1.0 / math.sqrt(x.size(-1))` as float64 0-d tensor ops, which
run on the host as eager would (lumir.backend.compiler's host scalars), and torch's
own decompositions leave float arithmetic on sizes (`1.0 / s ** 0.5`), which the
importer evaluates from the bindings."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lumir.backend import LumirFallbackWarning, stats

SIZE_SCALARS = {
    "one over the square root of a width": lambda x: x * (1.0 / math.sqrt(x.size(-1))),
    "a width to the power -0.5": lambda x: x * x.size(-1) ** -0.5,
    "a width times a float": lambda x: x * (x.size(-1) * 0.5),
    "the square root of a length times a float": lambda x: x * math.sqrt(x.size(0) * 2.5),
    "the square root of a tensor of a width": lambda x: x / torch.tensor(x.shape[-1]).sqrt(),
}


def _no_fallback_and_one_partition() -> None:
    assert stats.GRAPHS
    for graph in stats.GRAPHS:
        assert graph.fallback_ops == []
        # a decode step's cache ops run in eager between its partitions
        # (lumir.backend.cache_lengths); every other graph is one partition
        assert len(graph.partitions) == 1 or graph.cache_lengths


def _compiled_and_eager(function, shapes, dtype):
    """(compiled, eager) results of `function` under `dynamic=True` on random inputs of
    `shapes`, a lumir fallback warning being an error."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=True)
    generator = torch.Generator().manual_seed(0)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for shape in shapes:
            x = torch.randn(shape, generator=generator).to(dtype)
            results.append((compiled(x), function(x)))
    return results


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(SIZE_SCALARS))
def test_a_float_of_sizes_runs_on_the_host_and_the_program_reads_it(name, dtype):
    """The float64 chain runs on the host, in float64 as eager, and the partition reads
    its cast: eager's bits at every size, one partition, no warning."""
    function = SIZE_SCALARS[name]
    for got, want in _compiled_and_eager(function, [(3, 5, 8), (4, 6, 12), (2, 3, 7)], dtype):
        assert got.dtype == dtype
        assert torch.equal(got, want)
    _no_fallback_and_one_partition()


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_lifted_float_is_read_at_its_value_on_every_call(dtype):
    """`dynamic=True` lifts a Python float argument into a 0-d float64 input; the float64
    arithmetic on it (GPT-2's `math.sqrt(2.0 / math.pi)`) runs on the host per call,
    so each call's value is used, not the traced one."""

    def scale(x, divisor):
        return x * math.sqrt(2.0 / divisor)

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(scale, backend="lumir", dynamic=True)
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(1)).to(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for divisor in (math.pi, 0.3, 7.25):
            assert torch.equal(compiled(x, divisor), scale(x, divisor))
    _no_fallback_and_one_partition()


@torch.no_grad()
def test_an_attention_scale_of_a_dynamic_head_dim_is_evaluated():
    """torch's attention decomposition (q and k of different dtypes, an expanded v)
    scales q and k by `(1.0 / sym_float(d) ** 0.5) ** 0.5`: float arithmetic on a size,
    evaluated from the bindings (it ran in eager and split the graph in two)."""

    def attend(q, k, v):
        return F.scaled_dot_product_attention(q.bfloat16(), k, v)

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(attend, backend="lumir", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for width in (2, 4, 6):
            q = torch.randn(8, 5, 2, width)
            k = torch.randn(8, 5, 5, width).bfloat16()
            v = torch.randn(8, 5, 5, 1).bfloat16().expand(8, 5, 5, width)
            torch.testing.assert_close(compiled(q, k, v), attend(q, k, v))
    _no_fallback_and_one_partition()


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_an_f64_scalar_read_by_a_tensor_op_is_read_cast_as_torch_promotes(dtype):
    """A float64 0-d tensor the user builds and multiplies a tensor by directly (no cast
    in the graph) does not promote it (a 0-d tensor does not promote a dimensioned one
    of its category): its host arithmetic runs in float64 and the multiply reads it cast
    to f32, as ATen reads it (lumir.backend.compiler._cast_wide_scalars). It kept the
    multiply in eager, named."""

    def scale(x):
        return x * (torch.scalar_tensor(2.0, dtype=torch.float64) / x.size(-1)).sqrt()

    for got, want in _compiled_and_eager(scale, [(3, 8), (4, 6)], dtype):
        assert got.dtype == dtype
        assert torch.equal(got, want)
    _no_fallback_and_one_partition()


@torch.no_grad()
def test_gpt2_under_dynamic_true_is_one_partition_without_fallback():
    """GPT-2's tanh GELU multiplies by `math.sqrt(2.0 / math.pi)`, which `dynamic=True`
    lifts into a float64 input and float64 ops: a forward and a greedy generation are
    eager's, each graph one partition, no warning."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        n_layer=1,
        n_head=2,
        n_embd=32,
        vocab_size=64,
        n_positions=32,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )
    model = transformers.GPT2LMHeadModel(config).eval()
    ids = torch.randint(1, 64, (2, 5), generator=torch.Generator().manual_seed(2))
    reference = model(ids).logits
    expected = model.generate(ids, max_new_tokens=6, do_sample=False, min_new_tokens=6)
    torch._dynamo.reset()
    stats.reset()
    model.forward = torch.compile(model.forward, backend="lumir", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        torch.testing.assert_close(model(ids).logits, reference, atol=1e-5, rtol=1e-5)
        generated = model.generate(ids, max_new_tokens=6, do_sample=False, min_new_tokens=6)
    assert torch.equal(generated, expected)
    _no_fallback_and_one_partition()


SIZE_INTEGERS = {
    "a length squared": lambda x: (x.reshape(x.shape[0], x.shape[1] ** 2) * 2).sum(-1),
    "two to the power of a length": lambda x: x.new_ones(2 ** x.shape[1]) * x.sum(),
    "int of a square root (a ViT grid side)": lambda x: (
        x[:, : int(x.shape[1] ** 0.5) ** 2].reshape(3, int(x.shape[1] ** 0.5), -1) * 2
    ),
    "floor of a square root": lambda x: x[:, : math.floor(x.shape[1] ** 0.5)] * 2,
    "ceil of a quotient": lambda x: x[:, : math.ceil(x.shape[1] / 3)] * 2,
    "trunc of a quotient": lambda x: x[:, : math.trunc(x.shape[1] / 3)] * 2,
    "sym_int of a quotient": lambda x: x[:, : torch.sym_int(x.shape[1] / 3)] * 2,
    "round half to even": lambda x: x[:, : round(x.shape[1] / 2)] * 2,
    "a fill of a floor": lambda x: (
        torch.full((x.shape[0],), math.floor(x.shape[1] ** 0.5) * 0.5) + x[:, 0]
    ),
    "an in-place fill of a length": lambda x: x.clone().fill_(x.shape[1]) * 2,
    "an in-place fill of size arithmetic": lambda x: x.clone().fill_(x.shape[1] * 3 - 7) + x,
    "an in-place fill of a float of a length": lambda x: x.clone().fill_(x.shape[1] * 0.5) - x,
    "an in-place integer fill of a length": lambda x: (x > 0).long().fill_(x.shape[1]) + 1,
    "an in-place bool fill of a length's truth": lambda x: (x > 0).fill_(x.shape[1] - 4) | (x < -1),
}


@torch.no_grad()
@pytest.mark.parametrize("name", sorted(SIZE_INTEGERS))
def test_an_integer_of_sizes_is_evaluated_not_run_in_eager(name):
    """An integer `s ** 2` (ViT's interpolated position count h * w), and a float of
    sizes made an integer (`int(n ** 0.5)`, `math.floor`, `math.ceil`, `math.trunc`,
    `round`: torch's FloorToInt, CeilToInt, TruncToInt, RoundToInt) are evaluated from
    the bindings as Python evaluates them, so the view, slice or fill that reads them
    stays in the partition: eager's values at every size (including a square root that
    is not whole, and `round`'s ties to even), one partition, no warning. So are the
    sizes an in-place `fill_` reads (`aten.fill.Scalar`), a bool's being their truth."""
    function = SIZE_INTEGERS[name]
    shapes = [(3, n, n) if "squared" in name else (3, n) for n in (3, 4, 5, 7, 9)]
    for got, want in _compiled_and_eager(function, shapes, torch.float32):
        assert (got.shape, got.stride(), got.dtype) == (want.shape, want.stride(), want.dtype)
        assert torch.equal(got, want)
    _no_fallback_and_one_partition()


NUMPY_SCALARS = {
    "over the NumPy square root of a width (Reformer)": lambda x: x / np.sqrt(x.shape[-1]),
    "times the NumPy square root of a float64": lambda x: x * np.sqrt(np.float64(x.shape[-1])),
    "times a NumPy float32": lambda x: x * np.float32(0.5),
    "over the math square root of a width": lambda x: x / math.sqrt(x.shape[-1]),
}


@torch.no_grad()
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(NUMPY_SCALARS))
def test_a_numpy_scalar_of_a_width_runs_on_the_host(name, dtype, dynamic):
    """Dynamo makes `np.sqrt(d)` of an integer `d` an int64 0-d constant that the graph
    casts to float64 and takes the square root of: the chain runs on the host, as eager,
    and the partition reads its cast (it ran in eager, named, and split the graph)."""
    function = NUMPY_SCALARS[name]
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=dynamic)
    generator = torch.Generator().manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for shape in [(3, 5, 8), (4, 6, 8)]:
            x = torch.randn(shape, generator=generator).to(dtype)
            got, want = compiled(x), function(x)
            assert got.dtype == want.dtype
            assert torch.equal(got, want)
    _no_fallback_and_one_partition()


SIZE_PREDICATES = {
    "greater": lambda x: (x * 2, x.shape[0] > 1),
    "equal to another size": lambda x: (x + 1, x.shape[0] == x.shape[1]),
    "of size arithmetic": lambda x: (x - 1, x.shape[0] * 2 < x.shape[1] + 3),
    "negated": lambda x: (x / 2, torch.sym_not(x.shape[1] <= 3)),
}


@torch.no_grad()
@pytest.mark.parametrize("name", sorted(SIZE_PREDICATES))
def test_a_comparison_of_sizes_the_graph_returns_runs_on_the_host(name):
    """A graph may return a comparison of sizes (Moonshine's, for the code after a graph
    break): Python arithmetic on sizes, which runs in eager with no warning naming it
    (before: "gt: no import rule"), and the tensor op stays one partition."""
    function = SIZE_PREDICATES[name]
    for got, want in _compiled_and_eager(function, [(3, 5), (1, 2), (4, 4)], torch.float32):
        assert got[1] == want[1] and torch.equal(got[0], want[0])
    _no_fallback_and_one_partition()
