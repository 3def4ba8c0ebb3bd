"""`torch.linspace` compiles (lumir.frontend.linspace) and is eager's value bit for bit.

ATen computes each element from the nearer end, in the result dtype: a half type's
every operation rounds, and an f32 element is one fused multiply-add under ATen's AVX2
and AVX512 CPU kernels (rounded twice under DEFAULT). The cases below differ from eager
if any of that is done otherwise (one end only, two roundings under AVX, the f32 step
read unrounded, a -0.0 end's sign). Before, linspace had no import rule and ran in
eager. The DEFAULT and AVX2 kernels are checked in child processes that set
`ATEN_CPU_CAPABILITY`, and the fused kernels of a compiled linspace under Triton's
interpreter.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

from lumir.backend import LumirFallbackWarning
from lumir.testing.bits import assert_eagers_bits, assert_same_bits
from lumir.testing.fused_check import (
    fused_bodies,
    run_in_interpreter,
    triton_interpreter_available,
)

REPO = Path(__file__).resolve().parents[2]

CASES = [
    (-1.0, 2.5, 7),
    (0.0, 1.0, 11),
    (0.1, -0.7, 100),
    (-3.7, 1234.5, 1001),
    (1e-3, 3.3e-3, 13),
    (-123456.7, 0.01, 33),
    (1.0, 1.0000001, 40),
    (-1, 1, 5),
    (10, 0, 4),
    (5, 5, 6),
    (-0.0, 1.0, 5),
    (1.0, -0.0, 5),
    (0.0, -0.0, 4),
    (-0.0, -0.0, 3),
    (float("inf"), 1.0, 5),
    (0.0, float("-inf"), 4),
    (float("nan"), 1.0, 3),
    (-3e38, 3e38, 7),
    (2.0, 3.0, 2),
    (2.5, 7.0, 1),
    (2.5, 7.0, 0),
]
"""(start, end, steps): both directions, both ends' halves, values that round in each
dtype, signed zeros, non-finite ends and an end-to-end distance that overflows (f32's
step is infinite), and ATen's special cases of one step (start) and none."""

DTYPES = [torch.float32, torch.bfloat16, torch.float16]


def _case_ids() -> list[str]:
    return [f"{s}:{e}:{n}" for s, e, n in CASES]


def _linspace(start: float, end: float):
    return lambda x: torch.linspace(start, end, x.shape[0], dtype=x.dtype) * x


def _representable(start: float, end: float, dtype: torch.dtype) -> bool:
    """Whether eager takes these ends in `dtype` (it refuses one the type cannot hold)."""
    try:
        torch.linspace(start, end, 2, dtype=dtype)
    except RuntimeError:
        return False
    return True


def check_every_case() -> None:
    """Every case in every dtype, compiled statically, is eager's linspace bit for bit
    (the child processes of `test_linspace_follows_the_kernels_of_a_capability`)."""
    for dtype in DTYPES:
        for start, end, steps in CASES:
            if _representable(start, end, dtype):
                assert_eagers_bits(_linspace(start, end), torch.ones(steps, dtype=dtype))


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("start", "end", "steps"), CASES, ids=_case_ids())
def test_linspace_is_eagers_value(
    start: float, end: float, steps: int, dtype: torch.dtype, dynamic: bool
) -> None:
    if not _representable(start, end, dtype):
        pytest.skip(f"eager refuses {start} or {end} in {dtype}")
    x = torch.ones(steps, dtype=dtype)
    function = _linspace(start, end)
    if dynamic and any(v == 0 and math.copysign(1.0, v) < 0 for v in (start, end)):
        # Dynamo lifts the float and specialises it back to 0.0 under dynamic=True
        # (its `eager` backend gives +0 too): compare with the graph it hands over
        torch._dynamo.reset()
        expected = torch.compile(function, backend="aot_eager", dynamic=True)(x)
        torch._dynamo.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("error", LumirFallbackWarning)
            result = torch.compile(function, backend="lumir", dynamic=True)(x)
        assert_same_bits(result, expected)
        return
    assert_eagers_bits(function, x, dynamic=dynamic)


@pytest.mark.parametrize("capability", ["default", "avx2"])
def test_linspace_follows_the_kernels_of_a_capability(capability: str) -> None:
    """Under `ATEN_CPU_CAPABILITY=default` ATen's f32 linspace rounds twice; under avx2
    it is a fused multiply-add, as under avx512."""
    environment = {
        **os.environ,
        "ATEN_CPU_CAPABILITY": capability,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    probe = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=environment
    )
    if found.stdout.strip() != capability.upper():
        pytest.skip(f"this CPU does not run ATen's {capability} kernels ({found.stdout})")
    done = subprocess.run(
        [sys.executable, __file__], capture_output=True, text=True, env=environment, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize(
    ("start", "end", "steps", "reason"),
    [(1e-38, 3e-38, 5, "below 2^-126"), (1.0, 1.000001072883606, 923590, "more than int64")],
    ids=["tiny", "wide"],
)
def test_an_f32_linspace_int64_cannot_hold_runs_in_eager(
    start: float, end: float, steps: int, reason: str
) -> None:
    """Bits below 2^-126 (a nonzero result would not be a normal f32 after the exact
    int64 sum), or endpoints so far from the step's last bit that the int64 sum
    overflows (1 and a step of 1.2e-12 with all its 24 bits): under the fused
    multiply-add kernels the linspace runs in eager, the warning saying why."""
    if torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"):
        pytest.skip("ATen's f32 linspace rounds twice here: no int64 sum")

    def function(x: torch.Tensor) -> torch.Tensor:
        return torch.linspace(start, end, steps)[-3:] * x

    torch._dynamo.reset()
    x = torch.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = torch.compile(function, backend="lumir")(x)
    messages = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert any("aten.linspace.default" in m and reason in m for m in messages), messages
    assert_same_bits(result, function(x))


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="no triton")
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_linspaces_fused_kernels_are_the_reference_under_the_interpreter(
    dtype: torch.dtype, tmp_path: Path
) -> None:
    """The generated Triton kernels of a compiled linspace (its rounded products and
    sums, the f32 scaling of the exact integers) write the reference's values exactly,
    with NaN and infinities in their inputs too."""
    torch._dynamo.reset()
    options = {"dump_ir": str(tmp_path)}
    compiled = torch.compile(
        lambda x: x + torch.linspace(-3.7, 12.5, 9, dtype=dtype), backend="lumir", options=options
    )
    compiled(torch.zeros(9, dtype=dtype))
    (path,) = tmp_path.glob("*fuse-kernels.mlir")
    bodies = fused_bodies(path.read_text())
    assert bodies
    for body in range(len(bodies)):
        report = run_in_interpreter(path, atol=0.0, body=body, specials=True)
        assert report["returncode"] == 0, (body, report)


if __name__ == "__main__":
    check_every_case()
