"""The codegen fuzzer (`lumir.testing.codegen_fuzz`, `bench/codegen_fuzz.py`) finds no
failing fused body in a few seeded programs.

Each program's fused bodies run as generated Triton kernels under Triton's interpreter
(a child process with TRITON_INTERPRET=1), with and without NaN and infinities, against
the body run by torch. The hl range holds bodies with `x ** 0`, `x ** 5` and tanh of
small values, which failed before `triton_codegen` computed them as torch does; the
torch range, bodies of the lowered IR of torch-level fuzz programs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lumir.testing.fused_check import triton_interpreter_available

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    triton_interpreter_available() is not None,
    reason=f"Triton interpreter check: {triton_interpreter_available()}",
)


def _fuzz(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, str(REPO / "bench" / "codegen_fuzz.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=REPO,
    )


@pytest.mark.parametrize(("source", "count"), [("hl", 60), ("torch", 10)])
def test_seeded_programs_have_no_failing_fused_body(source: str, count: int) -> None:
    done = _fuzz("--source", source, "--seed", "0", "--count", str(count))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    (summary,) = [line for line in done.stdout.splitlines() if " fused bodies, " in line]
    assert not summary.endswith(" 0 fused bodies, 0 failed"), summary  # it checked some
