"""The bad-input corpus (test/bad-input/cases.toml): hostile input never gets a traceback.

Every case runs lumir-opt or lumir-run on one input and must exit with its expected
code, print no Python traceback, give every "error:" a message, and, where the case
names a position, report `<input>:LINE:COL: error: <message>` there. Time and memory
are bounded: the cases run in child processes under a 4 GiB address-space limit, each
with a timeout. To keep the suite fast, most cases share one child that calls the
tools' `main()` in turn (this file, run as a script); cases marked `subprocess` run as
their own process, through the real console entry point and pipes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tomllib
import traceback
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "test" / "bad-input"
MEMORY_LIMIT = 4 * 2**30
CASE_SECONDS = 20
TOOLS = {"lumir-opt": "lumir.tools.lumir_opt", "lumir-run": "lumir.tools.lumir_run"}


def load_cases() -> list[dict]:
    cases = tomllib.loads((CORPUS / "cases.toml").read_text())["case"]
    for index, case in enumerate(cases):
        case["id"] = f"{index:02d}-{case['tool']}"
    return cases


CASES = load_cases()


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def prepare(case: dict, scratch: Path) -> dict:
    """The command line, stdin bytes, environment and input name of one case."""
    folder = scratch / case["id"]
    folder.mkdir(parents=True, exist_ok=True)
    if "file" in case:
        data = (CORPUS / case["file"]).read_bytes()
    else:
        data = case.get("input", "").encode("utf-8")
    input_path = folder / "input.mlir"
    input_path.write_bytes(data)
    reference_path = folder / "reference.mlir"
    if "reference" in case:
        reference_path.write_text(case["reference"], encoding="utf-8")
    substitutions = {"{input}": str(input_path), "{reference}": str(reference_path)}
    args = []
    for arg in case.get("args", []):
        for key, value in substitutions.items():
            arg = arg.replace(key, value)
        args.append(arg.replace("{tmp}", str(folder)))
    return {
        "id": case["id"],
        "tool": case["tool"],
        "args": args,
        "stdin": data.decode("latin-1") if case.get("stdin") else "",
        "env": case.get("env", {}),
        "name": "<stdin>" if case.get("stdin") else str(input_path),
    }


# --- the child: runs prepared cases in-process and writes their outcomes as JSON ----


class _CaseTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _CaseTimeout


def run_in_process(run: dict) -> dict:
    """Call the tool's main() with the case's argv, stdin and environment."""
    import importlib

    main = importlib.import_module(TOOLS[run["tool"]]).main
    stdout, stderr = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(run["stdin"].encode("latin-1")), encoding="utf-8")
    saved_env = dict(os.environ)
    os.environ.update(run["env"])
    saved_stdin, sys.stdin = sys.stdin, stdin
    signal.alarm(CASE_SECONDS)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(run["args"])
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except _CaseTimeout:
        code, stderr = "timeout", io.StringIO(f"timed out after {CASE_SECONDS} s")
    except BaseException:
        code = "crash"
        stderr.write(traceback.format_exc())
    finally:
        signal.alarm(0)
        sys.stdin = saved_stdin
        os.environ.clear()
        os.environ.update(saved_env)
    return {"exit": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


def child_main(plan: Path) -> None:
    signal.signal(signal.SIGALRM, _on_alarm)
    runs = json.loads(plan.read_text())
    results = {run["id"]: run_in_process(run) for run in runs}
    plan.with_suffix(".out.json").write_text(json.dumps(results))


# --- the parent: pytest -------------------------------------------------------------


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUMIR_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return env


def run_subprocess(run: dict) -> dict:
    try:
        result = subprocess.run(
            [sys.executable, "-m", TOOLS[run["tool"]], *run["args"]],
            input=run["stdin"].encode("latin-1"),
            capture_output=True,
            env={**_environment(), **run["env"]},
            timeout=CASE_SECONDS * 3,
            preexec_fn=_limit_memory,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"exit": "timeout", "stdout": "", "stderr": "timed out"}
    return {
        "exit": result.returncode,
        "stdout": result.stdout.decode("utf-8", "replace"),
        "stderr": result.stderr.decode("utf-8", "replace"),
    }


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    """Run the whole corpus once: case id -> (prepared run, outcome)."""
    scratch = tmp_path_factory.mktemp("bad-input")
    prepared = {case["id"]: prepare(case, scratch) for case in CASES}
    batched = [prepared[c["id"]] for c in CASES if not c.get("subprocess")]
    plan = scratch / "plan.json"
    plan.write_text(json.dumps(batched))
    child = subprocess.run(
        [sys.executable, __file__, str(plan)],
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=CASE_SECONDS * len(batched),
        preexec_fn=_limit_memory,
        check=False,
    )
    results_file = plan.with_suffix(".out.json")
    assert results_file.exists(), f"the corpus child died:\n{child.stderr[-3000:]}"
    results = json.loads(results_file.read_text())
    for case in CASES:
        if case.get("subprocess"):
            results[case["id"]] = run_subprocess(prepared[case["id"]])
    return {key: (prepared[key], results[key]) for key in prepared}


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']}" for c in CASES])
def test_bad_input(case: dict, outcomes: dict[str, tuple[dict, dict]]) -> None:
    run, outcome = outcomes[case["id"]]
    output = outcome["stdout"] + outcome["stderr"]
    context = f"{case['checks']}\n--- stderr ---\n{outcome['stderr'][-2000:]}"
    assert "Traceback" not in output, context
    assert outcome["exit"] == case["exit"], context
    for line in outcome["stderr"].splitlines():
        if "error:" in line:
            assert line.split("error:", 1)[1].strip(), f"empty error message: {line!r}"
    expect = case.get("expect", "")
    if "at" in case:
        prefix = re.escape(f"{run['name']}:{case['at']}")
        column = r"\d+" if case["at"].endswith(":") else ""  # "L:" accepts any column
        located = rf"^{prefix}{column}: error: (?=\S).*{re.escape(expect)}"
        assert re.search(located, outcome["stderr"], re.MULTILINE), context
    elif expect:
        assert expect in outcome["stderr"], context


def test_corpus_is_large_and_explained() -> None:
    assert len(CASES) >= 60
    assert all(case.get("checks") for case in CASES)


if __name__ == "__main__":
    child_main(Path(sys.argv[1]))
