"""lumir-opt run in fresh processes, one per hash seed: how the determinism tests ask
whether a pass prints the same IR in every process.

Python salts `str` hashes per process (`PYTHONHASHSEED`), so anything that lets set or
dict order choose an output shows up as two different texts here, where a single
in-process run would never see it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

LUMIR_OPT = (sys.executable, "-m", "lumir.tools.lumir_opt")
"""The tool as a module, so the test needs no console script on PATH."""


def lumir_opt_outputs(
    arguments: Sequence[str],
    seeds: Iterable[str],
    *,
    cwd: Path | None = None,
    with_stderr: bool = False,
) -> set[str]:
    """The distinct texts `lumir-opt ARGUMENTS` printed, one process per seed: a
    deterministic pass gives a set of one. With `with_stderr`, each text is stdout and
    then stderr (remarks and diagnostics must not depend on the seed either)."""
    outputs = set()
    for seed in seeds:
        done = subprocess.run(
            [*LUMIR_OPT, *arguments],
            capture_output=True,
            text=True,
            check=True,
            cwd=cwd,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        outputs.add(done.stdout + ("\n--- stderr ---\n" + done.stderr if with_stderr else ""))
    return outputs
