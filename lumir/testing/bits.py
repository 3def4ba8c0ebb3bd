"""Compare a compiled function's result with eager's bit for bit, as the tests of what a
bitwise sweep of the imported ops found do (docs/backend.md, next to pow's special
forms): equal values, the same sign of every zero, NaN at the same places."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from lumir.backend import LumirFallbackWarning


def differing(actual: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    """Elements that differ: in value, in the sign of a zero, or NaN on one side only."""
    both_nan = actual.isnan() & expected.isnan()
    differs = (actual != expected) | (torch.signbit(actual) != torch.signbit(expected))
    return differs & ~both_nan


def assert_eagers_bits(
    fn: Callable[..., object], *args: torch.Tensor, dynamic: bool | None = None
) -> None:
    """`fn` compiled by lumir (no fallback to eager allowed) gives eager's result bit for
    bit (`assert_same_bits`)."""
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        compiled = torch.compile(fn, backend="lumir", dynamic=dynamic)(*args)
    assert_same_bits(compiled, fn(*args))


def assert_same_bits(compiled: object, expected: object) -> None:
    """Each output tensor of `compiled` (a tuple's too) has the dtype and shape of
    `expected`'s, and `differing` holds nowhere; integer outputs (indices) are equal."""
    pairs = zip(*(r if isinstance(r, tuple) else (r,) for r in (compiled, expected)), strict=True)
    for position, (actual, wanted) in enumerate(pairs):
        assert isinstance(actual, torch.Tensor) and isinstance(wanted, torch.Tensor)
        assert (actual.dtype, actual.shape) == (wanted.dtype, wanted.shape), position
        if not wanted.dtype.is_floating_point:
            assert torch.equal(actual, wanted), f"output {position}: {actual} != {wanted}"
            continue
        bad = differing(actual, wanted)
        assert not bad.any(), (
            f"output {position}: {int(bad.sum())} elements differ: "
            f"{actual[bad][:4].tolist()} against eager's {wanted[bad][:4].tolist()}"
        )
