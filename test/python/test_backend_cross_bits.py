"""`torch.cross` / `torch.linalg.cross` compile (lumir.frontend.cross) where lumir's ops
compute ATen's kernel bit for bit: in bf16 and f16 (c10's arithmetic rounds each
product and the difference), in integers (wrapping), and in f32 under ATen's DEFAULT
CPU kernels (a product, a product, a difference, each rounded). Under its AVX2 and
AVX512 kernels an f32 component is `fma(a1, b2, -(a2 * b1))`, rounded once after the
first product, which no `hl` composition computes: the cross runs in eager and the
warning says so. Before, every cross ran in eager ("no import rule"). The DEFAULT
kernels are checked in a child process that sets `ATEN_CPU_CAPABILITY`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

from lumir.backend import LumirFallbackWarning
from lumir.testing.bits import assert_eagers_bits, assert_same_bits

REPO = Path(__file__).resolve().parents[2]

SPECIALS = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 0.1, 7.3, float("inf"), float("nan"), 1e-40, 3e38]
"""Signed zeros (a difference of equal products is +0, of zero products keeps a sign),
values that round in every dtype, an infinity (inf - inf is NaN), a NaN, a subnormal and
a value whose products overflow."""


def _vectors(dtype: torch.dtype, rows: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairs of 3-vectors: every ordered triple of special values in turn, then random
    ones, as [rows, 3] (a, b)."""
    generator = torch.Generator().manual_seed(rows)
    specials = torch.tensor(SPECIALS)
    picks = torch.randint(0, len(SPECIALS), (2, rows // 2, 3), generator=generator)
    random = torch.randn(2, rows - rows // 2, 3, generator=generator) * 10
    a, b = torch.cat([specials[picks], random], dim=1).to(dtype)
    return a, b


CASES = {
    "last-dim": lambda a, b: torch.linalg.cross(a * 1, b),
    "cross-dim-1": lambda a, b: torch.cross(a, b * 1, dim=1),
    "first-dim-transposed": lambda a, b: torch.linalg.cross(a.t() * 1, b.t(), dim=0),
    "broadcast": lambda a, b: torch.linalg.cross(a[:, None] * 1, b[None, :5]),
}


def _compiles_to_eagers_bits(dtype: torch.dtype, dynamic: bool = False) -> None:
    a, b = _vectors(dtype)
    for function in CASES.values():
        assert_eagers_bits(function, a, b, dynamic=dynamic)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "f16"])
def test_a_half_cross_is_eagers_value(dtype: torch.dtype, dynamic: bool) -> None:
    _compiles_to_eagers_bits(dtype, dynamic)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_an_integer_cross_is_eagers_value(dtype: torch.dtype) -> None:
    """Integers wrap as ATen's kernel does (2^62 * 5 - 3 * 2^30)."""
    a = torch.tensor([[2**30, 3, 2**20], [7, -5, 11]], dtype=dtype) * (
        2**32 if dtype == torch.int64 else 1
    )
    b = torch.tensor([[5, 2**30, 7], [-2, 9, 4]], dtype=dtype)
    assert_eagers_bits(lambda a, b: torch.linalg.cross(a * 1, b), a, b)


def test_an_f32_cross_under_fused_multiply_add_kernels_runs_in_eager() -> None:
    if torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"):
        pytest.skip("ATen's f32 cross rounds each operation here")
    a, b = _vectors(torch.float32)
    function = CASES["last-dim"]
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = torch.compile(function, backend="lumir")(a, b)
    messages = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert any("aten.linalg_cross.default: an f32 cross" in m for m in messages), messages
    assert_same_bits(result, function(a, b))


def test_an_f32_cross_under_the_default_kernels_compiles() -> None:
    """Under `ATEN_CPU_CAPABILITY=default` ATen's f32 cross rounds each product and the
    difference: the same `hl` ops give its bits (in a child process)."""
    environment = {
        **os.environ,
        "ATEN_CPU_CAPABILITY": "default",
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, __file__], capture_output=True, text=True, env=environment, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-3000:]


if __name__ == "__main__":
    assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
    _compiles_to_eagers_bits(torch.float32)
