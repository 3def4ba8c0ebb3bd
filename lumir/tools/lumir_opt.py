"""lumir-opt: parse IR, run a pass pipeline, print IR — mlir-opt / xdsl-opt for lumir.

    lumir-opt input.mlir -p 'hl-canonicalize,cublaslt-fuse{families=bias}'

Every mistake in the input (a syntax error, an unknown op or pass, a failed verifier)
is printed as `file:line:col: error: message` with a non-zero exit code, never as a
Python traceback. `--verify-diagnostics` instead checks the diagnostics against the
`// expected-error @+1 {{...}}` annotations in the file, as mlir-opt does.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from lumir.diagnostics import Diagnostic, LumirDiagnosticError
from lumir.passes import available_passes, pass_summary
from lumir.tools.driver import (
    SPLIT_MARKER,
    CompileSettings,
    PassTiming,
    build_pipeline,
    closed_stdout,
    compile_chunk,
    read_input,
    split_chunks,
)


@dataclass
class Options:
    """What lumir-opt was asked to do (parsed from the command line)."""

    input_file: str | None
    passes: str
    output_file: str | None
    split_input_file: bool
    verify_diagnostics: bool
    print_op_generic: bool
    print_ir_after_all: bool
    print_debuginfo: bool
    disable_verify: bool
    timing: bool = False


def render(module: ModuleOp, options: Options) -> str:
    """Print `module` in custom or generic form."""
    out = StringIO()
    printer = Printer(
        stream=out,
        print_generic_format=options.print_op_generic,
        print_debuginfo=options.print_debuginfo,
    )
    printer.print_op(module)
    return out.getvalue() + "\n"


# --- --verify-diagnostics ----------------------------------------------------------

EXPECTED = re.compile(
    r"//\s*expected-(error|warning|note|remark)\s*(@(?:[+-]\d+|above|below))?\s*\{\{(.*?)\}\}"
)


@dataclass
class Expectation:
    """An `expected-error @+1 {{text}}` annotation: severity, target line, text."""

    severity: str
    line: int
    text: str
    matched: bool = False


def parse_expectations(text: str, line_offset: int) -> list[Expectation]:
    """Collect the expected-* annotations of a chunk with the lines they refer to."""
    expectations: list[Expectation] = []
    for index, line in enumerate(text.splitlines()):
        for match in EXPECTED.finditer(line):
            severity, where, expected = match.groups()
            target = index + 1 + line_offset
            if where in (None, ""):
                pass
            elif where == "@above":
                target -= 1
            elif where == "@below":
                target += 1
            else:
                target += int(where[1:])
            expectations.append(Expectation(severity, target, expected))
    return expectations


def check_diagnostics(
    diagnostics: Sequence[Diagnostic], expectations: Sequence[Expectation], name: str
) -> list[str]:
    """Match diagnostics to annotations; return the mismatches as error lines."""
    errors: list[str] = []
    for diagnostic in diagnostics:
        line = diagnostic.location.line if diagnostic.location else None
        found = next(
            (
                e
                for e in expectations
                if not e.matched
                and e.severity == diagnostic.severity
                and (e.line == line or line is None)
                and e.text in diagnostic.message
            ),
            None,
        )
        if found is None:
            errors.append(f"unexpected {diagnostic}")
        else:
            found.matched = True
    for expectation in expectations:
        if not expectation.matched:
            errors.append(
                f"{name}:{expectation.line}: error: expected {expectation.severity} "
                f'"{expectation.text}" was not produced'
            )
    return errors


# --- driver --------------------------------------------------------------------------


def make_parser() -> argparse.ArgumentParser:
    """lumir-opt's command line, with every pass and its summary in --help."""
    passes = available_passes()
    lines = ["passes:"]
    for name, factory in passes.items():
        lines.append(f"  {name:<22} {pass_summary(factory())}")
    parser = argparse.ArgumentParser(
        prog="lumir-opt",
        description="Parse lumir IR, run a pass pipeline and print the result.",
        epilog="\n".join(lines),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input_file", nargs="?", help="input .mlir file (default: stdin)")
    parser.add_argument(
        "-p", "--passes", default="", help="comma-separated pipeline, e.g. 'a,b{opt=v}'"
    )
    parser.add_argument("-o", "--output-file", help="write the output here instead of stdout")
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="process each '// -----' separated chunk of the input on its own",
    )
    parser.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check diagnostics against '// expected-error {{...}}' annotations",
    )
    parser.add_argument("--print-op-generic", action="store_true", help="print ops in generic form")
    parser.add_argument(
        "--print-ir-after-all",
        "--print-between-passes",
        dest="print_ir_after_all",
        action="store_true",
        help="print the IR to stderr after each pass",
    )
    parser.add_argument("--print-debuginfo", action="store_true", help="print op locations")
    parser.add_argument(
        "--disable-verify", action="store_true", help="do not verify the IR between passes"
    )
    parser.add_argument(
        "--timing",
        action="store_true",
        help="print the wall-clock time of parsing, each pass and verification to stderr",
    )
    return parser


def run(options: Options, stdout: IO[str]) -> int:
    """Run lumir-opt; return the exit code."""
    text, name = read_input(options.input_file)
    passes = build_pipeline(options.passes)
    settings = CompileSettings(
        verify=not options.disable_verify,
        after_pass=_dump_after(options) if options.print_ir_after_all else None,
        timing=PassTiming() if options.timing else None,
    )
    outputs: list[str] = []
    failures: list[str] = []
    for chunk in split_chunks(text, options.split_input_file):
        compiled = compile_chunk(chunk, name, passes, settings)
        if compiled.module is not None:
            outputs.append(render(compiled.module, options))
        if options.verify_diagnostics:
            expectations = parse_expectations(chunk.text, chunk.line_offset)
            failures.extend(check_diagnostics(compiled.diagnostics, expectations, name))
            continue
        for diagnostic in compiled.diagnostics:
            if diagnostic.severity == "error":
                failures.append(str(diagnostic))
            else:
                print(diagnostic, file=sys.stderr)
    output = f"{SPLIT_MARKER}\n".join(outputs)
    if options.output_file and not failures:
        _write_output(options.output_file, output)
    else:
        stdout.write(output)
    for failure in failures:
        print(failure, file=sys.stderr)
    if settings.timing is not None:
        print(settings.timing.report(), file=sys.stderr)
    return 1 if failures else 0


def _dump_after(options: Options):
    def dump(pass_name: str, module: ModuleOp) -> None:
        print(f"// -----// IR Dump After {pass_name} //----- //", file=sys.stderr)
        print(render(module, options), file=sys.stderr)

    return dump


def _write_output(path: str, output: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(output)
    except OSError as error:
        raise LumirDiagnosticError(
            [Diagnostic(f"cannot write output file '{path}': {error.strerror}")]
        ) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `lumir-opt` console script."""
    args = make_parser().parse_args(argv)
    options = Options(**vars(args))
    try:
        return run(options, sys.stdout)
    except LumirDiagnosticError as error:
        for diagnostic in error.diagnostics:  # the tool's name only where no file:line:col
            prefix = "lumir-opt: " if diagnostic.location is None else ""
            print(f"{prefix}{diagnostic}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader of stdout went away (`lumir-opt ... | head`)
        return closed_stdout()


if __name__ == "__main__":
    sys.exit(main())
