"""Products with a dimension of size 0 compile in lumir and give what eager gives.

An empty batch (no rows), an empty output width and an empty contraction (K = 0:
every element +0, then beta * C, bias and activation as usual) are all products
cuBLASLt cannot be asked for; hl-canonicalize turns them into constants, so the graph
compiles whole instead of falling back to eager with a lumir error.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

import lumir.backend  # noqa: F401  (registers "lumir")
from lumir.backend import LumirFallbackWarning, stats
from lumir.runtime import load
from lumir.testing.devices import ON_CUDA
from lumir.testing.programs import compile_text


def _mm(x, w, b):
    return x @ w


def _addmm_scaled(x, w, b):
    return torch.addmm(b, x, w, beta=0.5, alpha=2.0)


def _linear_gelu(x, w, b):
    return F.gelu(F.linear(x, w.t(), b))


def _beside_a_full_product(x, w, b):
    """An empty product in the same graph as ones that are not (the fusion sees both)."""
    empty = torch.relu(x @ w) * 2 + b
    full = torch.ones(3, x.shape[-1], dtype=x.dtype, device=x.device)
    return empty, torch.addmm(b, full, w), (empty.sum(0) + b) @ w.t()


def _joined_with_its_double(x, w, b):
    """`cat` of products that are all empty joins nothing: an empty result too."""
    y = x @ w
    return torch.cat([y, y * 2], dim=0)


PROGRAMS = {
    "joined_with_its_double": _joined_with_its_double,
    "mm": _mm,
    "addmm_scaled": _addmm_scaled,
    "linear_gelu": _linear_gelu,
    "beside_a_full_product": _beside_a_full_product,
}

SHAPES = {
    "no_rows": ((0, 8), (8, 4)),
    "no_columns": ((5, 8), (8, 0)),
    "empty_contraction": ((5, 0), (0, 4)),
    "empty_batch": ((0, 3, 8), (8, 4)),
}


def _inputs(shapes, device, dtype):
    generator = torch.Generator().manual_seed(0)
    x_shape, w_shape = shapes
    x = torch.randn(x_shape, generator=generator).to(device, dtype)
    w = torch.randn(w_shape, generator=generator).to(device, dtype)
    b = torch.randn(w_shape[-1], generator=generator).to(device, dtype)
    return x, w, b


CASES = [
    *((program, shape) for program in ("mm", "linear_gelu") for shape in sorted(SHAPES)),
    *(("addmm_scaled", shape) for shape in sorted(SHAPES) if shape != "empty_batch"),
    ("beside_a_full_product", "no_rows"),
    ("joined_with_its_double", "no_rows"),
    ("joined_with_its_double", "empty_batch"),
]
"""Each program with the shapes it takes (addmm multiplies matrices only)."""


@torch.no_grad()
@pytest.mark.parametrize("device", ["cpu", ON_CUDA])
@pytest.mark.parametrize(("program", "shape"), CASES)
def test_an_empty_product_compiles_in_lumir_and_matches_eager(
    program: str, shape: str, device: str
) -> None:
    function = PROGRAMS[program]
    dtype = torch.float32 if device == "cpu" else torch.bfloat16
    args = _inputs(SHAPES[shape], device, dtype)
    torch._dynamo.reset()
    stats.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(function, backend="lumir")(*args)
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert fallbacks == []
    assert stats.GRAPHS and all(graph.partitions for graph in stats.GRAPHS)
    expected = function(*args)
    if isinstance(expected, torch.Tensor):
        got, expected = (got,), (expected,)
    for value, reference in zip(got, expected, strict=True):
        assert value.shape == reference.shape and value.dtype == reference.dtype
        torch.testing.assert_close(value, reference, atol=1e-2, rtol=1e-2)


def test_a_program_with_an_empty_constant_loads_and_runs() -> None:
    """`dense<>` (a constant with no element) is what the fold leaves for an empty
    product; the runtime allocates and fills nothing for it."""
    text = """
    func.func @f(%x: tensor<0x8xf32>, %w: tensor<8x4xf32>) -> tensor<0x4xf32> {
      %m = hl.matmul %x, %w : (tensor<0x8xf32>, tensor<8x4xf32>) -> tensor<0x4xf32>
      %r = hl.relu %m : tensor<0x4xf32> -> tensor<0x4xf32>
      func.return %r : tensor<0x4xf32>
    }
    """
    program = load(compile_text(text, fuse_kernels=True), "cpu")
    result = program(torch.empty(0, 8), torch.randn(8, 4))
    assert result.shape == (0, 4) and result.dtype == torch.float32
