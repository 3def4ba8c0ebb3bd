"""Run one of lumir's kernel checks in a child process under Triton's CPU interpreter.

`TRITON_INTERPRET=1` must be set before triton is first imported, so a test process that
may already have imported triton runs each check (`python -m lumir.testing.<check>`) as
a child with the variable set, and reads its JSON lines from stdout.
"""

from __future__ import annotations

import os
import subprocess
import sys


def run_check(module: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """`python -m module args...` with TRITON_INTERPRET=1, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "TRITON_INTERPRET": "1"},
        timeout=timeout,
    )
