"""Run the lit/FileCheck suite under pytest, one pytest test per lit test file.

lit runs once for the whole suite (in parallel, like `lit test/lit`); each generated
pytest item then reports its own file's verdict, so CI's pytest summary counts every lit
test and a failure names the file and shows lit's output for it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LIT_ROOT = Path(__file__).resolve().parents[1] / "lit"
PASSING = {"PASS", "XFAIL", "UNSUPPORTED"}


def lit_files() -> list[str]:
    """Every lit test file, as a path relative to test/lit (sorted: stable ids)."""
    return sorted(
        str(path.relative_to(LIT_ROOT))
        for path in LIT_ROOT.rglob("*.mlir")
        if not {"Inputs", "Output"} & set(path.relative_to(LIT_ROOT).parts)
    )


@pytest.fixture(scope="session")
def lit_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Run lit once over test/lit; map each test's relative path to its JSON result."""
    report = tmp_path_factory.mktemp("lit") / "results.json"
    workers = str(max(1, min(4, os.cpu_count() or 1)))
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from lit.main import main; main()",
            "-q",
            "-j",
            workers,
            "-o",
            str(report),
            str(LIT_ROOT),
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    if not report.exists():
        pytest.fail("lit produced no results file; run `lit -v test/lit` to see why")
    results = json.loads(report.read_text())["tests"]
    return {entry["name"].split(" :: ", 1)[1]: entry for entry in results}


@pytest.mark.parametrize("lit_file", lit_files())
def test_lit(lit_file: str, lit_results: dict[str, dict]) -> None:
    result = lit_results.get(lit_file)
    assert result is not None, f"lit did not run {lit_file}"
    assert result["code"] in PASSING, f"{lit_file}: {result['code']}\n{result['output']}"
