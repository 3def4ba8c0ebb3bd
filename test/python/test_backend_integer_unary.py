"""sign, sgn, floor, ceil, round and trunc of integer (and, for sign, bool) tensors are
exact integer results that lumir imports: DeBERTa-v2's log-bucketed relative positions
take `torch.sign` of int64 positions, which ran in eager and split the model. The sign
cases run on a GPU too (`pytest -m cuda`; skipped where torch sees none)."""

from __future__ import annotations

import warnings

import pytest
import torch

from lumir.backend import LumirFallbackWarning, stats
from lumir.testing.devices import CPU_AND_CUDA, ON_CUDA

BIG = 2**40 + 3  # no float32 holds it: an integer op through f32 would round it


def _values(dtype: torch.dtype) -> torch.Tensor:
    big = BIG if dtype == torch.int64 else 2**30 + 3
    values = torch.tensor([[0, 1, -1, 7], [-9, big, -big, 2], [3, -4, 0, 5]], dtype=torch.int64)
    return values.to(dtype)


UNARY = {
    "sign": torch.sign,
    "sgn": torch.sgn,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "round": torch.round,
    "trunc": torch.trunc,
}


def _compile_and_compare(function, *inputs):
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir")
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        got = compiled(*inputs)
    want = function(*inputs)
    assert (got.shape, got.stride(), got.dtype) == (want.shape, want.stride(), want.dtype)
    assert torch.equal(got, want)
    (graph,) = stats.GRAPHS
    assert graph.fallback_ops == []
    assert len(graph.partitions) == 1
    return got


ON_EACH_DEVICE = [(name, "cpu") for name in sorted(UNARY)] + [
    pytest.param(name, "cuda", marks=ON_CUDA.marks) for name in ("sign", "sgn")
]
"""(op, device): every op on the CPU; sign and sgn on a GPU too (`cuda` mark)."""


@torch.no_grad()
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize(("name", "device"), ON_EACH_DEVICE)
def test_an_integer_unary_op_is_exact_and_keeps_eagers_layout(name, device, dtype, layout):
    """-1/0/1 of the input's dtype for sign and sgn, the input for the rounding ops,
    exact beyond 2**24 (no float in between), at eager's strides."""
    op = UNARY[name]
    x = _values(dtype).to(device)
    if layout == "transposed":
        x = x.t()

    def f(a):
        return op(a + 1) * 3

    _compile_and_compare(f, x)


@torch.no_grad()
@pytest.mark.parametrize("name", ["floor", "trunc"])
def test_an_integer_rounding_of_an_input_is_a_new_tensor(name):
    """floor of an integer input is its value, returned in a tensor of its own as eager
    returns one: writing to the result leaves the input unchanged."""
    op = UNARY[name]
    x = _values(torch.int64)
    got = _compile_and_compare(op, x)
    got.add_(1)
    assert torch.equal(x, _values(torch.int64))


@torch.no_grad()
@pytest.mark.parametrize("device", CPU_AND_CUDA)
@pytest.mark.parametrize("name", ["sign", "sgn"])
def test_the_sign_of_a_bool_is_itself(name, device):
    mask = torch.tensor([[True, False, True], [False, False, True]], device=device)
    _compile_and_compare(lambda m: UNARY[name](m).logical_not(), mask)


@torch.no_grad()
@pytest.mark.parametrize("device", CPU_AND_CUDA)
def test_the_sign_of_relative_positions_scales_a_float_tensor(device):
    """DeBERTa-v2's make_log_bucket_position: the sign of int64 relative positions, cast
    to the compute dtype."""

    def f(x):
        positions = torch.arange(x.shape[0], device=x.device)
        relative = positions[:, None] - positions[None, :]
        return x * torch.sign(relative).to(x.dtype)

    _compile_and_compare(f, torch.randn(5, 5, device=device))


@torch.no_grad()
def test_sgn_of_a_float_is_its_sign_and_nan_is_zero():
    x = torch.tensor([[-2.5, 0.0, -0.0], [float("nan"), 3.0, -float("inf")]])
    _compile_and_compare(lambda a: torch.sgn(a) + 1, x)
