"""Differential fuzzing of the Triton code generator: every fused body of random programs.

The CPU executor runs a fused body op by op (`fused_reference`), so the generated Triton
kernels (`triton_codegen`, `fused_tiling`) never run in the CPU suite except for the
hand-picked bodies the interpreter tests check. This harness collects the fused bodies
of random programs from two sources and checks each with `fused_check.check` under
Triton's interpreter (`TRITON_INTERPRET=1`, which must be set before triton is first
imported: `bench/codegen_fuzz.py` sets it, the test runs the harness in a child), with
and without `--specials` (a NaN, a +inf and a -inf in each input):

- `hl_cases`: a random hl program (`hl_program`) of fusable ops on the row domains where
  generated kernels are easiest to get wrong (rows of 0, 1 and odd sizes, widths that
  are not a power of two, rows wider than one tile, broadcast and width-1 operands,
  transposed inputs, slices, cats, reductions over width-1 rows, 0-d and one-element
  constants, f16/bf16/f32 with casts), run through `fuse-kernels` alone, so every body
  is one the pass forms;
- `torch_cases`: a torch-level fuzz program (`torch_fuzz.random_program`) compiled by
  the backend with `dump_ir`; the bodies are those of each partition's final lowered
  IR (`cublaslt_rt.fused_launch`), the kernels a CUDA run would launch.

A body fails when generating or running its kernel raises (`codegen`), a result is not
within the error bound of `fused_check` (`values`: `within_bound`, NaN and infinities
where the reference has them, else at most twice the reference's own error against the
body computed in float64, plus a floor), the tiled launch and the one-row launch wrote
different bytes (`forms`), or an elementwise kernel writing over its input wrote other
bytes (`in_place`); `collect` when building a program's bodies raised (a pass's bug, not
the kernel's). Program `i` of seed `S` depends only on `(S, i)`. docs/fuzzing.md says
what it found.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import re
import tempfile
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lumir.diagnostics import first_line


@dataclass(frozen=True)
class BodyCase:
    """One fused body to check: the module holding it and its index among its bodies."""

    origin: str
    """Where it came from (`hl S:i`, `torch S:i <partition label>`)."""
    text: str
    body: int


@dataclass(frozen=True)
class Finding:
    """A check of a body that failed."""

    case: BodyCase
    specials: bool
    kind: str
    """`codegen`, `values`, `forms`, `in_place`, or `reference` (the reference executor
    itself raised: not the kernel's fault, reported apart)."""
    detail: str


@dataclass
class Report:
    """What one program gave: its bodies, its findings, whether it was usable."""

    origin: str
    bodies: int = 0
    findings: list[Finding] = field(default_factory=list)
    skipped: str = ""
    """Why the program gave no bodies (it did not compile: the other fuzzers' business)."""


# --- random hl programs ----------------------------------------------------------------

_WIDTHS = (0, 1, 2, 3, 5, 7, 8, 16, 33, 100, 128, 129, 1000, 2048, 2049, 5000)
_ROWS = (0, 1, 1, 2, 3, 4, 5, 8, 17)
_TYPES = ("f32", "f16", "bf16")
_UNARY = ("neg", "rsqrt", "sqrt", "exp", "log", "abs", "relu", "silu", "sigmoid", "tanh")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
_REDUCE = ("sum", "mean", "amax")
_STEPS = ("unary", "unary", "binary", "binary", "literal", "pow", "cast", "reduce", "softmax")
_STEPS += ("slice", "cat")
_LITERALS = ("2.0", "0.5", "-1.0", "1.0e-06", "0.0", "3.0", "-0.0", "1.0e+04")
_EXPONENTS = ("2.0", "0.5", "-0.5", "3.0", "0.0", "-1.0", "1.5", "-2.0", "4.0", "5.0")


def _type(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=True):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(out)


class _HlProgram:
    """A straight-line hl function built value by value, with each value's type."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.args: list[str] = []
        self.lines: list[str] = []
        self.values: list[tuple[str, tuple[int, ...], str]] = []
        lead_rank = rng.choice((1, 1, 2, 2, 3))
        self.lead = tuple(rng.choice(_ROWS) for _ in range(lead_rank - 1))
        self.hidden = rng.choice(_WIDTHS)
        self.element = rng.choice(_TYPES)

    def new(self, shape: tuple[int, ...], element: str, expr: str, register: bool = True) -> str:
        """A new value `expr` of `shape`; unregistered (a constant): no later op picks it."""
        name = f"v{len(self.lines)}"
        t = _type(shape, element)
        self.lines.append(
            f"  %{name} = {expr} {t}" if expr.endswith("->") else f"  %{name} = {expr} : {t}"
        )
        if register:
            self.values.append((name, shape, element))
        return name

    def argument(self, shape: tuple[int, ...], element: str) -> str:
        name = f"a{len(self.args)}"
        self.args.append(f"%{name}: {_type(shape, element)}")
        self.values.append((name, shape, element))
        return name

    def input(self) -> None:
        """A full-domain input, a broadcast one, a width-1 one, or a transposed one."""
        rng, lead, hidden = self.rng, self.lead, self.hidden
        kind = rng.choice(("full", "full", "bias", "row", "unit", "transposed"))
        element = self.element if rng.random() < 0.8 else rng.choice(_TYPES)
        if kind == "bias":
            self.argument((hidden,), element)
        elif kind == "row":
            self.argument((*lead, 1), element)
        elif kind == "unit" and lead:
            self.argument((*(1 if rng.random() < 0.5 else d for d in lead), hidden), element)
        elif kind == "transposed" and len(lead) >= 2:
            stored = (lead[1], lead[0], *lead[2:], hidden)
            source = self.argument(stored, element)
            permutation = ", ".join(str(p) for p in (1, 0, *range(2, len(lead) + 1)))
            self.new(
                (*lead, hidden),
                element,
                f"hl.transpose %{source} {{permutation = array<i64: {permutation}>}} : "
                f"{_type(stored, element)} ->",
            )
        else:
            self.argument((*lead, hidden), element)

    def pick(self, predicate=lambda v: True) -> tuple[str, tuple[int, ...], str] | None:
        options = [v for v in self.values if predicate(v)]
        if not options:
            return None
        # Later values more often: chains rather than many independent ops.
        return options[min(len(options) - 1, int(len(options) * self.rng.random() ** 0.5))]

    def constant(self, element: str, literal: str, shape: tuple[int, ...]) -> str:
        value = f"hl.constant {{value = dense<{literal}> : {_type(shape, element)}}}"
        return self.new(shape, element, value, register=False)

    def step(self) -> None:
        rng = self.rng
        name, shape, element = self.pick()  # type: ignore[misc]
        t = _type(shape, element)
        choice = rng.choice(_STEPS)
        if choice == "unary":
            op = rng.choice(_UNARY)
            self.new(shape, element, f"hl.{op} %{name} : {t} ->")
        elif choice == "binary":
            other = self.pick(lambda v: v[2] == element and _broadcast(v[1], shape) is not None)
            assert other is not None  # the value itself qualifies
            out = _broadcast(shape, other[1])
            assert out is not None
            a, b = (name, shape), (other[0], other[1])
            if rng.random() < 0.5:
                a, b = b, a
            op = rng.choice(_BINARY)
            self.new(
                out,
                element,
                f"hl.{op} %{a[0]}, %{b[0]} : ({_type(a[1], element)}, {_type(b[1], element)}) ->",
            )
        elif choice == "literal":
            cshape = rng.choice(((), (1,), (1, 1)))
            c = self.constant(element, rng.choice(_LITERALS), cshape)
            out = _broadcast(shape, cshape)
            assert out is not None
            operands = [(name, shape), (c, cshape)]
            if rng.random() < 0.5:
                operands.reverse()
            types = ", ".join(_type(s, element) for _, s in operands)
            self.new(
                out,
                element,
                f"hl.{rng.choice(_BINARY)} %{operands[0][0]}, %{operands[1][0]} : ({types}) ->",
            )
        elif choice == "pow":
            exponent = self.constant(element, rng.choice(_EXPONENTS), ())
            self.new(
                shape, element, f"hl.pow %{name}, %{exponent} : ({t}, {_type((), element)}) ->"
            )
        elif choice == "cast":
            target = rng.choice([e for e in _TYPES if e != element])
            self.new(shape, target, f"hl.cast %{name} : {t} ->")
        elif choice == "reduce":
            out = (*shape[:-1], 1)
            op = rng.choice(_REDUCE)
            if op == "amax" and shape[-1] == 0:
                op = "sum"  # torch.amax of no elements raises
            self.new(out, element, f"hl.{op} %{name} {{dims = array<i64: -1>, keepdim}} : {t} ->")
        elif choice == "softmax":
            self.new(shape, element, f"hl.softmax %{name} {{dim = -1 : i64}} : {t} ->")
        elif choice == "slice" and shape[-1] >= 3:
            start = rng.randrange(0, shape[-1] - 1)
            end = rng.randrange(start + 2, shape[-1] + 1)
            out = (*shape[:-1], end - start)
            dim = len(shape) - 1
            self.new(
                out,
                element,
                f"hl.slice %{name} {{dim = {dim} : i64, start = {start} : i64, end = {end} : i64, "
                f"step = 1 : i64}} : {t} ->",
            )
        elif choice == "cat" and shape[-1] >= 1:
            other = self.pick(
                lambda v: v[2] == element and v[1][:-1] == shape[:-1] and v[1][-1] >= 1
            )
            assert other is not None
            out = (*shape[:-1], shape[-1] + other[1][-1])
            self.new(
                out,
                element,
                f"hl.cat %{name}, %{other[0]} {{dim = {len(shape) - 1} : i64}} : "
                f"({t}, {_type(other[1], element)}) ->",
            )
        else:
            self.new(shape, element, f"hl.{rng.choice(_UNARY)} %{name} : {t} ->")

    def text(self, returned: list[tuple[str, tuple[int, ...], str]]) -> str:
        names = ", ".join(f"%{n}" for n, _, _ in returned)
        types = ", ".join(_type(s, e) for _, s, e in returned)
        return "\n".join(
            [
                f"func.func @f({', '.join(self.args)}) -> ({types}) {{",
                *self.lines,
                f"  func.return {names} : {types}",
                "}",
                "",
            ]
        )


def hl_program(seed: int, index: int) -> str:
    """Program `index` of `seed`: 1-3 inputs on one random row domain, then 1-10 fusable
    ops; it returns the last value and up to two others."""
    rng = random.Random(f"codegen-fuzz:{seed}:{index}")
    program = _HlProgram(rng)
    for _ in range(rng.randint(1, 3)):
        program.input()
    for _ in range(rng.randint(1, 10)):
        program.step()
    computed = [v for v in program.values if not v[0].startswith("a")] or program.values
    returned = [computed[-1]]
    for _ in range(rng.randint(0, 2)):
        extra = rng.choice(computed)
        if extra not in returned:
            returned.append(extra)
    return program.text(returned)


def hl_cases(seed: int, index: int) -> tuple[list[BodyCase], str]:
    """The fused bodies fuse-kernels forms in `hl_program(seed, index)`; and why there are
    none when the program does not verify (a generator bug)."""
    from lumir.context import lumir_context
    from lumir.parsing import parse_module_text
    from lumir.passes.fuse_kernels import FuseKernelsPass
    from lumir.testing.fused_check import fused_bodies

    text = hl_program(seed, index)
    try:
        module = parse_module_text(text, "<codegen-fuzz>")
        module.verify()
    except Exception as error:
        return [], f"invalid program: {first_line(error)}\n{text}"
    FuseKernelsPass().apply(lumir_context(), module)
    module.verify()
    fused = str(module)
    origin = f"hl {seed}:{index}"
    return [BodyCase(origin, fused, i) for i in range(len(fused_bodies(fused)))], ""


_DUMP = re.compile(r"(?P<label>.*)\.(?P<stage>\d\d)-[^.]*\.mlir")


def torch_cases(seed: int, index: int) -> tuple[list[BodyCase], str]:
    """The fused bodies of the final lowered IR of each partition of torch-level fuzz
    program `index` of `seed`, compiled by the backend on its first call; why there are
    none when it does not compile or run."""
    import torch

    from lumir.testing.fused_check import fused_bodies
    from lumir.testing.torch_fuzz import Mode, build_inputs, input_seed, make_callable
    from lumir.testing.torch_fuzz import random_program as torch_program

    program = torch_program(seed, index)
    torch._dynamo.reset()
    with tempfile.TemporaryDirectory(prefix="lumir-codegen-fuzz-") as directory:
        inputs = build_inputs(program, program.lengths[0], input_seed(seed, index))
        function, arguments = make_callable(program, inputs)
        dynamic = True if program.mode == Mode.DYNAMIC else None
        compiled = torch.compile(
            function, backend="lumir", dynamic=dynamic, options={"dump_ir": directory}
        )
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                compiled(*arguments)
        except Exception as error:
            return [], f"does not run: {type(error).__name__}: {first_line(error)}"
        finally:
            torch._dynamo.reset()
        finals: dict[str, tuple[str, Path]] = {}
        for path in sorted(Path(directory).glob("*.mlir")):
            match = _DUMP.fullmatch(path.name)
            if match is not None:  # the last stage's dump of each label wins (sorted)
                finals[match["label"]] = (match["stage"], path)
        cases = []
        for label, (_, path) in sorted(finals.items()):
            text = path.read_text()
            origin = f"torch {seed}:{index} {label}"
            cases += [BodyCase(origin, text, i) for i in range(len(fused_bodies(text)))]
    return cases, ""


# --- checking --------------------------------------------------------------------------


def check_case(case: BodyCase, seed: int = 0) -> list[Finding]:
    """`fused_check.check` of `case` without and with specials; what failed. Needs this
    process's triton to run in its interpreter (`TRITON_INTERPRET=1`)."""
    import torch

    from lumir.runtime.buffers import shaped_type_parts
    from lumir.runtime.fused_reference import bind_fused_body
    from lumir.testing.fused_check import check, first_fused_body

    findings = []
    for specials in (False, True):
        try:
            report = check(case.text, seed, case.body, specials=specials)
        except Exception:
            detail = traceback.format_exc(limit=-3)
            try:  # is it the reference that cannot run the body?
                block = first_fused_body(case.text, case.body)
                parts = [shaped_type_parts(arg.type) for arg in block.args]
                bind_fused_body(block)(*(torch.zeros(shape, dtype=d) for shape, d in parts))
            except Exception:
                findings.append(Finding(case, specials, "reference", detail))
                continue
            findings.append(Finding(case, specials, "codegen", detail))
            continue
        if not all(report["within_bound"]):  # type: ignore[arg-type]
            detail = f"within_bound {report['within_bound']}, max_abs_diff {report['max_abs_diff']}"
            findings.append(Finding(case, specials, "values", detail))
        if not report["forms_equal"]:
            findings.append(Finding(case, specials, "forms", str(report["launch"])))
        bad = [run for run in report["in_place"] if not run[2]]  # type: ignore[union-attr]
        if bad:
            findings.append(Finding(case, specials, "in_place", f"[result, input]: {bad}"))
    return findings


SOURCES = {"hl": hl_cases, "torch": torch_cases}


def run_program(source: str, seed: int, index: int) -> Report:
    """Every body of program `index` of `seed` from `source` (`hl` or `torch`), checked."""
    report = Report(f"{source} {seed}:{index}")
    try:
        cases, why = SOURCES[source](seed, index)
    except Exception as error:
        summary = f"{type(error).__name__}: {str(error).strip().splitlines()[0]}"
        report.skipped = f"collecting bodies raised {summary}"
        detail = f"{traceback.format_exc(limit=-3)}{report.skipped}"
        report.findings.append(Finding(BodyCase(report.origin, "", -1), False, "collect", detail))
        return report
    report.skipped = why
    report.bodies = len(cases)
    for case in cases:
        report.findings += check_case(case)
    return report


def _worker() -> None:
    """One torch thread (the reference sums in one order) and no warnings: a fallback
    of a torch program is the torch-level fuzzer's business."""
    import torch

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")


def _run_task(task: tuple[str, int, int]) -> Report:
    return run_program(*task)


def run_many(source: str, seed: int, count: int, start: int = 0, jobs: int = 1) -> Iterator[Report]:
    """`run_program` for programs `start` .. `start + count - 1`, in index order."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError(
            "the codegen fuzzer runs kernels in Triton's interpreter: set TRITON_INTERPRET=1 "
            "before triton is imported"
        )
    tasks = [(source, seed, index) for index in range(start, start + count)]
    if jobs <= 1:
        import torch

        threads = torch.get_num_threads()
        try:
            with warnings.catch_warnings():
                _worker()
                yield from map(_run_task, tasks)
        finally:
            torch.set_num_threads(threads)
        return
    # spawn: each worker imports triton afresh, under the TRITON_INTERPRET it inherits
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=_worker) as pool:
        yield from pool.imap(_run_task, tasks, chunksize=2)


__all__ = [
    "BodyCase",
    "Finding",
    "Report",
    "check_case",
    "hl_cases",
    "hl_program",
    "run_many",
    "run_program",
    "torch_cases",
]
