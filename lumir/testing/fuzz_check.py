"""Compile a generated program with lumir-pipeline, run it, and judge the result.

`check` parses a `Program`'s text with lumir's context, runs the `lumir-pipeline` pass
in-process, loads the result on the CPU executor, runs it on seeded random inputs and
compares every returned value with the float64 reference and its error bound
(`lumir.testing.fuzz_reference`). Every program ends in exactly one `Outcome`; only
MATCH passes:

- MATCH: compiled, ran, and every element is within its bound;
- MISMATCH: ran, but a value is outside its bound, or has the wrong type (a miscompile);
- REFUSAL: lumir reported an error on this valid program (a `LumirDiagnosticError`, or
  an xDSL `VerifyException` that lumir-opt prints as `error:`) while compiling, loading
  or running it: an internal error, since the program is valid;
- CRASH: any other exception (a traceback a user would see);
- INVALID: the generated text itself does not parse or verify, a bug of the generator.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.str_enum import StrEnum

from lumir.context import lumir_context
from lumir.diagnostics import LumirDiagnosticError, verify_module
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.dialects.cublaslt_rt import PlanOp
from lumir.parsing import LocatedParser
from lumir.passes.pipeline import LumirPipelinePass
from lumir.runtime import load
from lumir.testing.fuzz_programs import Program, TensorSpec
from lumir.testing.fuzz_reference import (
    TORCH_DTYPES,
    Bounded,
    evaluate,
    random_inputs,
    within_bound,
)

Compiler = Callable[[Context, ModuleOp], ModuleOp]
"""Compiles a parsed hl module down to cublaslt_rt (lumir-pipeline, or a test's
deliberately broken stand-in)."""


class Outcome(StrEnum):
    """How one fuzzed program ended."""

    MATCH = "match"
    MISMATCH = "mismatch"
    REFUSAL = "refusal"
    CRASH = "crash"
    INVALID = "invalid program"


@dataclass(frozen=True)
class CheckResult:
    """A program's outcome, what went wrong (empty for MATCH), and its compiled GEMMs."""

    outcome: Outcome
    detail: str = ""
    plans: tuple[MatmulDescriptor, ...] = ()


def lumir_pipeline(ctx: Context, module: ModuleOp) -> ModuleOp:
    """The compiler under test: the `lumir-pipeline` pass, run in place."""
    LumirPipelinePass().apply(ctx, module)
    return module


def check(
    program: Program,
    input_seed: int = 0,
    compiler: Compiler = lumir_pipeline,
    device: str = "cpu",
) -> CheckResult:
    """Compile, run on `device` and compare `program` on the inputs from `input_seed`.

    The bound assumes f32 accumulation and a GELU epilogue as exact as torch's, which
    the CPU executor gives. On "cuda", cuBLASLt's GELU epilogue was measured to match
    the tanh form to about 5e-6 (docs/design.md), beyond the f32 bound, so an f32 GELU
    mismatch there is expected and not by itself a miscompile.
    """
    ctx = lumir_context()
    try:
        module = _parse(ctx, program.text())
    except Exception as error:  # the generator's fault, never lumir's
        return CheckResult(Outcome.INVALID, _describe(error))
    plans: tuple[MatmulDescriptor, ...] = ()
    try:
        module = compiler(ctx, module)
        plans = tuple(op.descriptor() for op in module.ops if isinstance(op, PlanOp))
        inputs = random_inputs(program, input_seed)
        returned = load(module, device)(*inputs)
    except DiagnosticException as error:
        return CheckResult(Outcome.REFUSAL, str(error).strip(), plans)
    except Exception as error:
        return CheckResult(Outcome.CRASH, _describe(error), plans)
    returned = returned if isinstance(returned, tuple) else (returned,)
    results = tuple(result.cpu() for result in returned)
    expected = evaluate(program, inputs)
    specs = [program.node(name).result for name in program.outputs]
    problem = _compare(results, expected, specs)
    if problem:
        return CheckResult(Outcome.MISMATCH, problem, plans)
    return CheckResult(Outcome.MATCH, "", plans)


def _parse(ctx: Context, text: str) -> ModuleOp:
    module = LocatedParser(ctx, text, "fuzz.mlir").parse_module()
    problems = verify_module(module)
    if problems:
        raise LumirDiagnosticError(problems)
    return module


def _describe(error: BaseException) -> str:
    return "".join(traceback.format_exception(error)).strip()


def _compare(
    results: tuple[torch.Tensor, ...], expected: list[Bounded], specs: list[TensorSpec]
) -> str:
    """Why the results are wrong, or "" when every value is within its bound."""
    if len(results) != len(expected):
        return f"returned {len(results)} values, expected {len(expected)}"
    for index, (result, reference, spec) in enumerate(zip(results, expected, specs, strict=True)):
        dtype = TORCH_DTYPES[spec.dtype]
        if tuple(result.shape) != spec.shape or result.dtype != dtype:
            return (
                f"result {index}: got a {result.dtype} tensor of shape {list(result.shape)}, "
                f"expected {spec.hl()}"
            )
        inside = within_bound(result, reference)
        if not bool(inside.all()):
            return f"result {index} {spec.hl()}: {_worst(result, reference, inside)}"
    return ""


def _worst(result: torch.Tensor, reference: Bounded, inside: torch.Tensor) -> str:
    """The number of elements outside the bound and the one furthest outside it."""
    got = result.to(torch.float64)
    excess = torch.where(
        inside,
        torch.zeros_like(got),
        ((got - reference.value).abs() / reference.error).nan_to_num(nan=float("inf")),
    )
    flat = int(excess.flatten().argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), got.shape))
    return (
        f"{int((~inside).sum())} of {inside.numel()} elements outside the bound; at "
        f"{list(index)} got {got[index].item():.6g}, expected "
        f"{reference.value[index].item():.6g} +- {reference.error[index].item():.3g}"
    )
