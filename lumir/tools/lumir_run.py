"""lumir-run: run a compiled program on random inputs and compare it with the unfused one.

    lumir-run model.mlir                      # compile with -p (default lumir-pipeline)
    lumir-opt model.mlir -p lumir-pipeline | lumir-run --reference model.mlir

The program is a level-3 (`cublaslt_rt`) function, either compiled here from the input
with `-p` or given already lowered (on stdin or as the input file) with `--reference`
naming the `hl`- or `cublaslt`-level original. The reference is that original run op by
op as plain torch calls (`lumir.runtime.interpret`); the program runs on the CPU
reference executor or, with `--device cuda`, on cuBLASLt. Both get the same seeded
random inputs (standard normal floats; integer indices within range of the embedding
table they index).

For each result it prints the largest absolute error and the largest error relative to
the largest reference magnitude, `max|x - y| / max|y|`, and fails (exit 1) when
`max|x - y| > atol + rtol * max|y|`; the defaults depend on the result's element type
(`DEFAULT_TOLERANCES`) and `--rtol` / `--atol` override them. Every problem with the
input is a located `file:line:col: error:` diagnostic, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

import torch
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import SSAValue

from lumir.cublaslt_enums import ComputeType
from lumir.diagnostics import Diagnostic, LumirDiagnosticError, op_diagnostic
from lumir.dialects.cublaslt import MatmulOp
from lumir.dialects.hl import EmbeddingOp
from lumir.runtime import DeviceUnavailableError, KernelCompileError, interpret, load
from lumir.runtime.buffers import UnsupportedTypeError, shaped_type_parts, torch_dtype
from lumir.runtime.gemm_autotune import AutotuneSettingError, autotune_requested
from lumir.runtime.interpreter import find_function, signature
from lumir.runtime.limits import check_function_sizes
from lumir.tools.driver import (
    Chunk,
    CompiledChunk,
    CompileSettings,
    build_pipeline,
    closed_stdout,
    compile_chunk,
    read_input,
    split_chunks,
)

DEVICES = ("cpu", "cuda")
DEFAULT_PIPELINE = "lumir-pipeline"

DEFAULT_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-10, 1e-12),
    torch.float32: (1e-4, 1e-6),
    torch.float16: (1e-2, 1e-4),
    torch.bfloat16: (2e-2, 1e-3),
    torch.float8_e4m3fn: (1.25e-1, 1e-2),
    torch.float8_e5m2: (2.5e-1, 1e-2),
}
"""(rtol, atol) per floating result dtype: a few roundings of that type, since the fused
program rounds once where the unfused reference rounds after every op. Integer and
boolean results must match exactly."""


@dataclass
class Options:
    """What lumir-run was asked to do (parsed from the command line)."""

    input_file: str | None
    passes: str | None
    reference: str | None
    function: str | None
    device: str
    seed: int
    rtol: float | None
    atol: float | None
    split_input_file: bool
    disable_verify: bool
    no_cuda_graph: bool
    equal_nan: bool


@dataclass(frozen=True)
class Comparison:
    """One result of the program against the reference."""

    index: int
    type_text: str
    max_abs: float
    max_rel: float
    rtol: float
    atol: float
    ok: bool
    note: str = ""
    nan_in_both: int = 0
    """Elements that are NaN in the program and the reference but were compared as
    different (no `--equal-nan`)."""

    def line(self) -> str:
        status = "ok" if self.ok else "MISMATCH"
        detail = self.note or (
            f"max abs error {self.max_abs:.3e}, max rel error {self.max_rel:.3e} "
            f"(rtol {self.rtol:.1e}, atol {self.atol:.1e})"
        )
        return f"  result {self.index} {self.type_text}: {detail}{self.nan_hint()}: {status}"

    def nan_hint(self) -> str:
        """Why an error is infinite when the cause is NaN on both sides, and the flag."""
        if not self.nan_in_both:
            return ""
        return (
            f"; {self.nan_in_both} element(s) are NaN in both the program and the "
            "reference (--equal-nan counts them as equal)"
        )


class ChunkFailed(Exception):
    """A chunk could not be compared; carries the diagnostics to print."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__()
        self.diagnostics = diagnostics


def random_inputs(func: FuncOp, seed: int) -> list[torch.Tensor]:
    """Seeded random values for the function's arguments, on the CPU.

    Floats are standard normal (never zeros, which would hide a wrong C or bias);
    integers as `_integers` draws them; booleans are fair coins.
    """
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for arg in func.body.block.args:
        shape, dtype = shaped_type_parts(arg.type)
        if dtype.is_floating_point:
            values = torch.randn(shape, generator=generator, dtype=torch.float32).to(dtype)
        elif dtype == torch.bool:
            values = torch.randint(0, 2, shape, generator=generator).bool()
        else:
            values = _integers(arg, shape, generator).to(dtype)
        inputs.append(values)
    return inputs


def _integers(arg: SSAValue, shape: Sequence[int], generator: torch.Generator) -> torch.Tensor:
    """Integers for an argument: ids within every `hl.embedding` table it indexes (the
    smallest table's rows, so that each lookup is in range whatever the order of the
    lookups), other integers in [-4, 4].

    No id indexes a table without rows: an empty argument is made anyway (the program
    runs), a non-empty one is refused at the lookup, located, as no input can run it
    (torch's embedding raises `index out of range` for every id)."""
    tables = [
        use.operation
        for use in arg.uses
        if isinstance(use.operation, EmbeddingOp) and use.index == 1
    ]
    if not tables:
        return torch.randint(-4, 5, shape, generator=generator, dtype=torch.int64)
    smallest = min(tables, key=_table_rows)
    if math.prod(shape) == 0:
        return torch.zeros(shape, dtype=torch.int64)
    if _table_rows(smallest) == 0:
        raise LumirDiagnosticError(
            [
                op_diagnostic(
                    smallest,
                    "the embedding table has no rows, so no id can index it: lumir-run "
                    "cannot make an input the program runs on",
                )
            ]
        )
    return torch.randint(0, _table_rows(smallest), shape, generator=generator, dtype=torch.int64)


def _table_rows(lookup: EmbeddingOp) -> int:
    table = lookup.weight.type
    assert isinstance(table, TensorType)
    return table.get_shape()[0]


FAST_MULTIPLIER_DTYPES: dict[ComputeType, torch.dtype] = {
    ComputeType.COMPUTE_32F_FAST_16F: torch.float16,
    ComputeType.COMPUTE_32F_FAST_16BF: torch.bfloat16,
    ComputeType.COMPUTE_32F_FAST_TF32: torch.float16,
}
"""The precision a `_FAST_` compute type lets cuBLASLt multiply f32 operands in (TF32
keeps f16's 10 mantissa bits). cuBLASLt may round the operands or not: on an H100 the
f16 and TF32 modes rounded a small GEMM's operands and the bf16 mode did not, while the
CPU executor always rounds them. The unfused reference multiplies in f32, and the
comparison allows that precision, so both readings pass."""


def working_dtypes(func: FuncOp) -> list[torch.dtype]:
    """The floating dtypes the reference computes in: its arguments' and every result's,
    and the multiplier precision of every `_FAST_` matmul (`FAST_MULTIPLIER_DTYPES`)."""
    types = [arg.type for arg in func.body.block.args]
    types += [result.type for op in func.walk() for result in op.results]
    found: list[torch.dtype] = []
    for value_type in types:
        if isinstance(value_type, TensorType):
            try:
                dtype = torch_dtype(value_type.element_type)
            except UnsupportedTypeError:
                continue
            if dtype.is_floating_point and dtype not in found:
                found.append(dtype)
    for op in func.walk():
        if isinstance(op, MatmulOp):
            dtype = FAST_MULTIPLIER_DTYPES.get(op.descriptor().compute_type)
            if dtype is not None and dtype not in found:
                found.append(dtype)
    return found


def default_tolerance(result: torch.dtype, working: Sequence[torch.dtype]) -> tuple[float, float]:
    """The loosest (rtol, atol) of the result's dtype and the dtypes it was computed in.

    A bf16 product cast to f32 is only as exact as bf16: the fused call skips the
    reference's intermediate bf16 rounding, so the two differ at bf16's precision.
    """
    candidates = [DEFAULT_TOLERANCES.get(result, (0.0, 0.0))]
    if result.is_floating_point:
        candidates += [DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0)) for dtype in working]
    return max(candidates)


def compare(
    index: int,
    type_text: str,
    actual: torch.Tensor,
    expected: torch.Tensor,
    tolerance: tuple[float, float],
    equal_nan: bool = False,
) -> Comparison:
    """Compare one result with the reference: max abs error against atol + rtol * max|y|.

    Non-finite values are compared as `torch.testing.assert_close` compares them: equal
    infinities match, and NaN matches NaN only with `equal_nan`; any other difference
    involving a non-finite value is an infinite error. The scale max|y| is taken over
    the reference's finite values.
    """
    rtol, atol = tolerance
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        note = f"the program returns {list(actual.shape)} {actual.dtype}".replace("torch.", "")
        return Comparison(index, type_text, 0.0, 0.0, rtol, atol, False, note)
    x = actual.detach().cpu().to(torch.float64)
    y = expected.detach().cpu().to(torch.float64)
    same = x == y
    nan_in_both = torch.isnan(x) & torch.isnan(y)
    if equal_nan:
        same |= nan_in_both
    error = torch.where(same, torch.zeros_like(x), (x - y).abs())
    error = torch.nan_to_num(error, nan=math.inf)
    max_abs = float(error.max()) if error.numel() else 0.0
    finite = y[torch.isfinite(y)].abs()
    scale = float(finite.max()) if finite.numel() else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else math.inf)
    ok = max_abs <= atol + rtol * scale
    unmatched_nan = 0 if equal_nan else int(nan_in_both.sum())
    return Comparison(index, type_text, max_abs, max_rel, rtol, atol, ok, "", unmatched_nan)


def run_chunk(
    chunk: Chunk, name: str, reference: tuple[Chunk, str] | None, options: Options, out: IO[str]
) -> None:
    """Compile (or take) the program, run it and the reference on one input, and report.

    Raises ChunkFailed (or LumirDiagnosticError) with located diagnostics when the chunk
    cannot be run or a result differs from the reference. Sizes and signatures are
    checked before anything is allocated.
    """
    program_module, reference_module = prepare_modules(chunk, name, reference, options)
    reference_func = find_function(reference_module, options.function)
    function = reference_func.sym_name.data
    check_function_sizes(reference_func)
    _check_signatures(find_function(program_module, function), reference_func)
    try:
        inputs = random_inputs(reference_func, options.seed)
    except UnsupportedTypeError as error:
        raise ChunkFailed([op_diagnostic(reference_func, str(error))]) from None
    expected = interpret(reference_module, inputs, function)
    actual = run_program(program_module, function, inputs, options)
    print(f"@{function} on {options.device}, seed {options.seed}:", file=out)
    report(reference_func, actual, expected, options, out)


def prepare_modules(
    chunk: Chunk, name: str, reference: tuple[Chunk, str] | None, options: Options
) -> tuple[ModuleOp, ModuleOp]:
    """The compiled program and the reference it is checked against, both parsed.

    With `--reference`, the input is the program (passes run only if `-p` is given);
    otherwise the input is the reference and `-p` (default lumir-pipeline) compiles it.
    Both go through the driver lumir-opt uses (`lumir.tools.driver`).
    """
    settings = CompileSettings(verify=not options.disable_verify, keep_input=reference is None)
    if reference is not None:
        reference_module = _compiled(compile_chunk(*reference, (), settings))
        spec = options.passes or ""
    else:
        spec = options.passes if options.passes is not None else DEFAULT_PIPELINE
    compiled = compile_chunk(chunk, name, build_pipeline(spec), settings)
    program_module = _compiled(compiled)
    if reference is None:
        assert compiled.input_module is not None
        reference_module = compiled.input_module
    _refuse_lowered_reference(reference_module)
    return program_module, reference_module


def _compiled(compiled: CompiledChunk) -> ModuleOp:
    """The chunk's module, after printing its remarks; ChunkFailed with its errors."""
    for diagnostic in compiled.diagnostics:
        if diagnostic.severity != "error":
            print(diagnostic, file=sys.stderr)
    if compiled.module is None:
        raise ChunkFailed(compiled.errors)
    return compiled.module


def _check_signatures(program: FuncOp, reference: FuncOp) -> None:
    """Refuse a program whose arguments are not the reference's, before allocating."""
    arguments = [*program.body.block.args, *reference.body.block.args]
    if not all(isinstance(arg.type, TensorType | MemRefType) for arg in arguments):
        return  # not a function on tensors or buffers: the loader says what it is
    try:
        program_signature, reference_signature = signature(program), signature(reference)
    except UnsupportedTypeError:
        return  # an element type the runtime lacks: the loader names it, located
    if program_signature != reference_signature:
        raise ChunkFailed(
            [
                op_diagnostic(
                    program,
                    f"@{program.sym_name.data} takes {_describe(program_signature)}, but the "
                    f"reference takes {_describe(reference_signature)}",
                ),
                op_diagnostic(reference, "the reference function is here", "note"),
            ]
        )


def _describe(parts: Sequence[tuple[tuple[int, ...], torch.dtype]]) -> str:
    text = ", ".join(f"{list(shape)} {dtype}".replace("torch.", "") for shape, dtype in parts)
    return f"({text})"


def run_program(
    module: ModuleOp, function: str, inputs: list[torch.Tensor], options: Options
) -> tuple[torch.Tensor, ...]:
    """Load `function` of the lowered module on the device and run it once on `inputs`."""
    program = load(
        module,
        options.device,
        function=function,
        verify=False,  # verified when parsed and after every pass, unless disabled
        cuda_graph=not options.no_cuda_graph,
    )
    try:
        results = program(*[value.to(program.device) for value in inputs])
    except ValueError as error:  # the program's signature is not the reference's
        raise ChunkFailed([Diagnostic(f"{error} (from the reference's signature)")]) from None
    finally:
        program.close()
    return results if isinstance(results, tuple) else (results,)


def report(
    reference_func: FuncOp,
    actual: Sequence[torch.Tensor],
    expected: Sequence[torch.Tensor],
    options: Options,
    out: IO[str],
) -> None:
    """Print one line per result; raise ChunkFailed, located at the return, on mismatch."""
    function = reference_func.sym_name.data
    if len(actual) != len(expected):
        raise ChunkFailed(
            [
                op_diagnostic(
                    reference_func,
                    f"the program returns {len(actual)} results, the reference {len(expected)}",
                )
            ]
        )
    working = working_dtypes(reference_func)
    result_types = reference_func.function_type.outputs.data
    comparisons = []
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        rtol, atol = default_tolerance(want.dtype, working)
        tolerance = (
            options.rtol if options.rtol is not None else rtol,
            options.atol if options.atol is not None else atol,
        )
        comparisons.append(
            compare(index, str(result_types[index]), got, want, tolerance, options.equal_nan)
        )
    for comparison in comparisons:
        print(comparison.line(), file=out)
    failed = [c for c in comparisons if not c.ok]
    if not failed:
        return
    return_op = next(op for op in reference_func.body.block.ops if isinstance(op, ReturnOp))
    raise ChunkFailed(
        [
            op_diagnostic(
                return_op,
                f"result {c.index} of @{function}: {c.note}"
                if c.note
                else f"result {c.index} of @{function} differs from the unfused reference "
                f"(max abs error {c.max_abs:.3e}, max rel error {c.max_rel:.3e}){c.nan_hint()}",
            )
            for c in failed
        ]
    )


def _refuse_lowered_reference(module: ModuleOp) -> None:
    """The reference must be a value-semantics program; level 3 is what it checks."""
    lowered = next((op for op in module.walk() if op.dialect_name() == "cublaslt_rt"), None)
    if lowered is not None:
        raise ChunkFailed(
            [
                op_diagnostic(
                    lowered,
                    "the reference is already lowered to cublaslt_rt; give the hl- or "
                    "cublaslt-level original with --reference",
                )
            ]
        )


def run(options: Options, out: IO[str]) -> int:
    """Run lumir-run; return the exit code."""
    text, name = read_input(options.input_file)
    chunks = split_chunks(text, options.split_input_file)
    references: list[tuple[Chunk, str]] | None = None
    if options.reference is not None:
        reference_text, reference_name = read_input(options.reference)
        reference_chunks = split_chunks(reference_text, options.split_input_file)
        if len(reference_chunks) != len(chunks):
            raise LumirDiagnosticError(
                [
                    Diagnostic(
                        f"the input has {len(chunks)} chunks but the reference "
                        f"{reference_name} has {len(reference_chunks)}"
                    )
                ]
            )
        references = [(chunk, reference_name) for chunk in reference_chunks]
    status = 0
    for index, chunk in enumerate(chunks):
        reference = references[index] if references is not None else None
        try:
            run_chunk(chunk, name, reference, options, out)
        except (ChunkFailed, LumirDiagnosticError) as failed:
            out.flush()  # a chunk's report comes before its diagnostics
            for diagnostic in failed.diagnostics:
                print(str(diagnostic), file=sys.stderr)
            status = 1
        out.flush()
    return status


def make_parser() -> argparse.ArgumentParser:
    """lumir-run's command line."""
    parser = argparse.ArgumentParser(
        prog="lumir-run",
        description="Run a lumir program on random inputs and compare it with the unfused "
        "reference.",
    )
    parser.add_argument("input_file", nargs="?", help="input .mlir file (default: stdin)")
    parser.add_argument(
        "-p",
        "--passes",
        default=None,
        help=f"pipeline that compiles the input (default: '{DEFAULT_PIPELINE}', or none "
        "with --reference)",
    )
    parser.add_argument(
        "--reference",
        help="the hl- or cublaslt-level original of an already lowered input",
    )
    parser.add_argument("--function", help="the function to run (default: the only one)")
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default=None,
        help="executor: the CPU reference or cuBLASLt (default: $LUMIR_DEVICE or cpu)",
    )
    parser.add_argument("--seed", type=_seed, default=0, help="seed of the random inputs")
    parser.add_argument("--rtol", type=_tolerance, help="relative tolerance (default: by dtype)")
    parser.add_argument("--atol", type=_tolerance, help="absolute tolerance (default: by dtype)")
    parser.add_argument(
        "--equal-nan",
        action="store_true",
        help="count NaN in the program where the reference has NaN as a match",
    )
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="run each '// -----' separated chunk (of the input and the reference) on its own",
    )
    parser.add_argument(
        "--disable-verify",
        action="store_true",
        help="run IR the verifier would refuse (for tests of what such IR does)",
    )
    parser.add_argument(
        "--no-cuda-graph",
        action="store_true",
        help="on CUDA, launch op by op instead of replaying one captured graph",
    )
    return parser


SEED_RANGE = (0, 2**64 - 1)
"""The seeds torch's generator accepts."""


def _seed(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    low, high = SEED_RANGE
    if not low <= seed <= high:
        raise argparse.ArgumentTypeError(f"{seed} is not in [{low}, {high}]")
    return seed


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a finite, non-negative number")
    return value


def default_device() -> str:
    """`$LUMIR_DEVICE`, checked like `--device` is, or cpu."""
    device = os.environ.get("LUMIR_DEVICE", "").strip() or "cpu"
    if device not in DEVICES:
        raise LumirDiagnosticError(
            [
                Diagnostic(
                    f"LUMIR_DEVICE='{device}' is not a device lumir runs on ({', '.join(DEVICES)})"
                )
            ]
        )
    return device


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `lumir-run` console script."""
    args = make_parser().parse_args(argv)
    try:
        if args.device is None:
            args.device = default_device()
        autotune_requested()  # a bad LUMIR_AUTOTUNE is refused before anything loads
        return run(Options(**vars(args)), sys.stdout)
    except BrokenPipeError:  # the reader of stdout went away (`lumir-run ... | head`)
        return closed_stdout()
    except LumirDiagnosticError as error:
        for diagnostic in error.diagnostics:  # the tool's name only where no file:line:col
            prefix = "lumir-run: " if diagnostic.location is None else ""
            print(f"{prefix}{diagnostic}", file=sys.stderr)
        return 1
    except (DeviceUnavailableError, AutotuneSettingError, KernelCompileError) as error:
        print(f"lumir-run: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
