"""lumir-opt as a person uses it: help, errors without tracebacks, round trips."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.utils.lexer import Input, Span

from lumir.parsing import LineTable
from lumir.passes import PASS_MODULES
from lumir.passes.pipeline import PIPELINE, LumirPipelinePass
from lumir.tools import pass_docs

REPO = Path(__file__).resolve().parents[2]
ALL_PASSES = [
    "hl-canonicalize",
    "hl-to-cublaslt",
    "cublaslt-fuse",
    "cublaslt-verify",
    "fuse-kernels",
    "lower-to-cublaslt-rt",
    "group-gemv",
    "gemv-epilogue",
    "gemv-prologue",
    "chunk-rows",
    "group-fused",
    "hoist-index-math",
    "share-buffers",
    "group-launches",
    "lumir-pipeline",
]


def lumir_opt(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lumir.tools.lumir_opt", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )


def test_help_lists_every_pass_with_its_summary() -> None:
    result = lumir_opt("--help")
    assert result.returncode == 0
    for name in ALL_PASSES:
        line = next(line for line in result.stdout.splitlines() if line.strip().startswith(name))
        assert len(line.split()) > 2, f"{name} has no summary in --help"
    assert list(PASS_MODULES) == ALL_PASSES


@pytest.mark.parametrize(
    ("args", "stdin", "expected"),
    [
        ((), "func.func @f( {", "<stdin>:1:"),
        (("missing.mlir",), None, "cannot read input file 'missing.mlir'"),
        (("-p", "no-such-pass"), "", "Unrecognized passes: ['no-such-pass']"),
        ((), '"hl.unknown"() : () -> ()', "hl.unknown is not registered"),
        (
            ("-p", "lumir-pipeline{stop_after=no-such-pass}"),
            "builtin.module {}",
            "stop_after = 'no-such-pass' is not one of its passes",
        ),
        (
            ("-p", "chunk-rows{max_bytes=-5}"),
            "builtin.module {}",
            "chunk-rows: max_bytes must be a byte count >= 0 (0 chunks nothing), got -5",
        ),
        (
            ("-p", "lumir-pipeline{chunk_bytes=-1}"),
            "builtin.module {}",
            "lumir-pipeline: chunk_bytes must be a byte count >= 0",
        ),
    ],
)
def test_user_mistakes_are_located_errors_not_tracebacks(
    args: tuple[str, ...], stdin: str | None, expected: str
) -> None:
    result = lumir_opt(*args, stdin=stdin)
    assert result.returncode != 0
    assert expected in result.stderr
    assert "Traceback" not in result.stderr


def test_verification_failure_points_at_the_op() -> None:
    source = (
        "func.func @f(%x: tensor<6x64xf32>, %w: tensor<32x64xf32>) -> tensor<6x32xf32> {\n"
        "  %m = hl.matmul %x, %w : (tensor<6x64xf32>, tensor<32x64xf32>) -> tensor<6x32xf32>\n"
        "  func.return %m : tensor<6x32xf32>\n"
        "}\n"
    )
    result = lumir_opt(stdin=source)
    assert result.returncode == 1
    assert result.stderr.startswith("<stdin>:2:3: error: 'hl.matmul' cannot multiply [6, 64]")


def test_output_file_is_written(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    source = (
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %x : tensor<4xf32>\n}\n"
    )
    result = lumir_opt("-o", str(out), stdin=source)
    assert result.returncode == 0
    assert "func.func @f" in out.read_text()


def test_pass_docs_are_generated_from_docstrings() -> None:
    checked_in = (REPO / "docs" / "passes.md").read_text()
    assert checked_in == pass_docs.render(), (
        "docs/passes.md is stale: python -m lumir.tools.pass_docs > docs/passes.md"
    )


def test_runtime_and_passes_never_import_the_tools() -> None:
    """The located parser and the driver's helpers live below the tools (issue 9)."""
    offenders = []
    for folder in ("runtime", "passes"):
        for path in sorted((REPO / "lumir" / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                offenders += [f"{path.name}: {n}" for n in names if n.startswith("lumir.tools")]
    assert offenders == []


def test_line_table_agrees_with_xdsl_locations() -> None:
    """The bisected line table gives the line:col xDSL's own newline count gives."""
    text = "a\n\nbc d\n  e\nf"
    table = LineTable(text, "t.mlir", line_offset=3)
    for offset in range(len(text)):
        expected = Span(offset, offset + 1, Input(text, "t.mlir")).get_location()
        where = table.location(offset)
        assert (where.line, where.column) == (expected.line + 3, expected.col)


def _timing_rows(stderr: str) -> list[tuple[float, str]]:
    lines = stderr.splitlines()
    start = lines.index("===- lumir timing report -===")
    rows = []
    for line in lines[start + 2 :]:
        seconds, share, stage = line.split(maxsplit=2)
        assert share.endswith("%")
        rows.append((float(seconds), stage))
    return rows


def test_timing_reports_every_stage_in_order_and_leaves_the_output_alone() -> None:
    example = str(REPO / "examples" / "mlp_block.mlir")
    plain = lumir_opt(example, "-p", "lumir-pipeline")
    timed = lumir_opt(example, "-p", "lumir-pipeline", "--timing")
    assert plain.returncode == timed.returncode == 0
    assert timed.stdout == plain.stdout
    rows = _timing_rows(timed.stderr)
    stages = [stage for _, stage in rows]
    ran = [stage.name for stage in LumirPipelinePass().stages()]
    assert stages == ["parse", "verify", *ran, "total"]
    assert [name for name in PIPELINE if name not in ran] == ["gemv-prologue", "group-fused"]
    assert all(seconds >= 0 for seconds, _ in rows)
    total = rows[-1][0]
    assert sum(seconds for seconds, _ in rows[:-1]) == pytest.approx(total, abs=1e-3)


def test_timing_sums_chunks_and_has_no_verify_row_when_verification_is_off() -> None:
    module = (
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %x : tensor<4xf32>\n}\n"
    )
    result = lumir_opt(
        "--split-input-file",
        "--disable-verify",
        "--timing",
        "-p",
        "hl-canonicalize",
        stdin=f"{module}// -----\n{module}",
    )
    assert result.returncode == 0
    assert [stage for _, stage in _timing_rows(result.stderr)] == [
        "parse",
        "hl-canonicalize",
        "total",
    ]


def test_timing_is_reported_when_the_input_is_refused() -> None:
    result = lumir_opt("--timing", stdin="func.func @f( {")
    assert result.returncode == 1
    assert "<stdin>:1:" in result.stderr
    assert [stage for _, stage in _timing_rows(result.stderr)] == ["parse", "total"]
