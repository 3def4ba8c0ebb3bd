"""The judge of the torch-level fuzzer: a generated program compiled with lumir against
eager and a float64 reference, and many seeded programs in parallel.

Each call of the compiled program must give eager's outputs: the same types, shapes,
dtypes, strides (of the dimensions longer than one) and aliasing (an output that is a
view of an input or of another output in eager is one in lumir too), integers and
masks bit for bit, the inputs left as eager leaves them. Floats are judged against
the program run in float64 on the same inputs: lumir's error may be at most twice
eager's own largest error, plus a floor of the program's lowest precision (1e-4 for an
all-f32 program, the unit roundoff of bf16 or f16 where one appears) relative to the
element and the output's mean magnitude, so rounding in another order passes and a
miscompile, which moves values by about their size, does not. The mean error is held
to the same bound, which catches a small error spread over every element.

A `LumirFallbackWarning` (part of the program runs in eager) is allowed but counted.
Where lumir's run fails, the same program compiled with `aot_eager` is judged too: if
it fails as well, the failure is torch's (Dynamo or aot_autograd), not lumir's.
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import traceback
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from lumir.backend import LumirFallbackWarning
from lumir.backend.partition import LumirRuntimeFallbackWarning
from lumir.testing.torch_fuzz import (
    Mode,
    TorchProgram,
    build_inputs,
    input_seed,
    make_callable,
    random_program,
)

FLOOR = {torch.float32: 1e-4, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}
"""The relative error every program may have, by the lowest precision it computes in."""


class Outcome(StrEnum):
    MATCH = "match"
    FALLBACK = "fallback"
    """Matched, with part of the program in eager (a LumirFallbackWarning)."""
    MISMATCH = "mismatch"
    """A wrong value, shape, dtype, stride or aliasing: a miscompile."""
    CRASH = "crash"
    """The compiled program raised where eager did not."""
    TRACED_LAYOUT = "traced layout"
    """Matched but for strides that torch's own FakeTensor trace gives as lumir does
    (a half-precision binary op with a broadcast operand: torch's reference computes
    in f32 and loses the stride-0 dimension); inductor returns them too."""
    TORCH = "torch"
    """aot_eager fails the same way: not lumir's bug."""
    INVALID = "invalid program"
    """Eager raised: a generator bug."""

    @property
    def passed(self) -> bool:
        return self in (Outcome.MATCH, Outcome.FALLBACK, Outcome.TRACED_LAYOUT, Outcome.TORCH)


@dataclass
class Result:
    outcome: Outcome
    detail: str = ""
    fallbacks: list[str] = field(default_factory=list)
    """The first line of each fallback warning."""


class _Failure(Exception):
    """A mismatch found while comparing, with what differs."""


def _lowest_precision(program: TorchProgram, inputs: Sequence[torch.Tensor]) -> torch.dtype:
    source = program.source()
    dtypes = {t.dtype for t in inputs if t.is_floating_point()}
    if "bfloat16" in source:
        dtypes.add(torch.bfloat16)
    if "float16" in source or ".half()" in source:
        dtypes.add(torch.float16)
    return max(dtypes, key=lambda d: FLOOR.get(d, 0.0), default=torch.float32)


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


def _layout(t: torch.Tensor) -> tuple[int, ...]:
    """The strides that mean something: those of dimensions longer than one."""
    if t.numel() == 0:
        return ()
    return tuple(s for s, n in zip(t.stride(), t.shape, strict=True) if n > 1)


def _compare_floats(got: torch.Tensor, want: torch.Tensor, exact: torch.Tensor, floor: float):
    reference = exact.double()
    got_error = (got.double() - reference).abs()
    eager_error = (want.double() - reference).abs()
    if not torch.isfinite(got).all():
        raise _Failure(f"non-finite values where eager's are finite: {got.flatten()[:8]}")
    magnitude = reference.abs()
    mean = magnitude.mean()
    bound = 2 * eager_error.max() + floor * (magnitude + mean)
    bad = got_error > bound
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        raise _Failure(
            f"{int(bad.sum())} of {got.numel()} elements off: at flat index {i} lumir "
            f"{got.flatten()[i].item():.6g}, eager {want.flatten()[i].item():.6g}, float64 "
            f"{reference.flatten()[i].item():.6g} (bound {bound.flatten()[i].item():.3g})"
        )
    if got_error.mean() > 2 * eager_error.mean() + floor * mean:
        raise _Failure(
            f"mean error {got_error.mean().item():.3g} where eager's is "
            f"{eager_error.mean().item():.3g}"
        )


def _compare(
    got: Any,
    want: Any,
    exact: Any,
    traced: Any,
    inputs: tuple[list, list],
    floor: float,
    what: str,
    notes: list[str],
) -> None:
    """Raise `_Failure` where `got` is not eager's `want`; a layout that differs from
    eager's only as torch's own trace (`traced`) does is noted in `notes` instead."""
    if not isinstance(want, torch.Tensor):
        if got != want:
            raise _Failure(f"{what}: {got!r} where eager gives {want!r}")
        return
    if not isinstance(got, torch.Tensor):
        raise _Failure(f"{what}: a {type(got).__name__} where eager gives a tensor")
    if got.shape != want.shape or got.dtype != want.dtype:
        raise _Failure(
            f"{what}: {got.dtype} {list(got.shape)} where eager gives {want.dtype} "
            f"{list(want.shape)}"
        )
    if _layout(got) != _layout(want):
        if traced is None or _layout(got) != _layout(traced):
            raise _Failure(f"{what}: strides {got.stride()} where eager's are {want.stride()}")
        notes.append(
            f"{what}: strides {got.stride()} where eager's are {want.stride()}, as torch's "
            "FakeTensor traces them"
        )
    eager_inputs, lumir_inputs = inputs
    for i, (e, c) in enumerate(zip(eager_inputs, lumir_inputs, strict=True)):
        if want.numel() and (_storage(want) == _storage(e)) != (_storage(got) == _storage(c)):
            alias = "aliases" if _storage(want) == _storage(e) else "does not alias"
            raise _Failure(f"{what}: in eager it {alias} input {i}, in lumir not so")
    if torch.equal(got, want):
        return
    if not want.is_floating_point():
        differ = (got != want).sum()
        raise _Failure(f"{what}: {int(differ)} of {want.numel()} elements differ (exact dtype)")
    try:
        _compare_floats(got, want, exact, floor)
    except _Failure as failure:
        raise _Failure(f"{what}: {failure}") from None


def _compare_inputs(
    eager_inputs: Sequence[torch.Tensor],
    lumir_inputs: Sequence[torch.Tensor],
    before: Sequence[torch.Tensor],
    arguments: Sequence[int],
    exact_arguments: Sequence[Any],
    floor: float,
) -> None:
    """Raise `_Failure` where an input after the call is not as eager leaves it.

    An input eager leaves alone must keep its bits, and so must one of integers or
    bools. A float input the program writes holds computed values, judged as an output
    is, against the program run in float64 (`exact_arguments`: the inputs at the
    positions `arguments`, after that run): lumir may sum in another order or round once
    fewer, as for any output (a half `x.add_(0.1)` reads 0.1 at f32, as CUDA's kernels
    do, where ATen's CPU kernel rounds it to the half type first; docs/backend.md)."""
    exact = dict(zip(arguments, exact_arguments, strict=True))
    for i, (e, c, b) in enumerate(zip(eager_inputs, lumir_inputs, before, strict=True)):
        if torch.equal(e, c):
            continue
        if torch.equal(e, b) or not e.is_floating_point() or i not in exact:
            raise _Failure(f"input {i} after the call differs from eager's")
        try:
            _compare_floats(c, e, exact[i], floor)
        except _Failure as failure:
            raise _Failure(f"input {i} after the call: {failure}") from None


def _aliasing(outputs: Sequence[Any]) -> list[tuple[int, int]]:
    tensors = [(i, o) for i, o in enumerate(outputs) if isinstance(o, torch.Tensor) and o.numel()]
    return [(i, j) for i, a in tensors for j, b in tensors if i < j and _storage(a) == _storage(b)]


def _traced(program: TorchProgram, inputs: Sequence[torch.Tensor]) -> list[Any]:
    """The program's outputs as torch's FakeTensor traces them (Dynamo and aot_autograd
    see these strides, and inductor returns them), or Nones where it cannot run so."""
    try:
        with FakeTensorMode() as mode:
            function, arguments = make_callable(program, [mode.from_tensor(t) for t in inputs])
            return list(function(*arguments))
    except Exception:
        return [None] * len(program.outputs)


def _compile(program: TorchProgram, seed: int, backend: str) -> Any:
    first = build_inputs(program, program.lengths[0], seed)
    function, _ = make_callable(program, first)
    dynamic = True if program.mode == Mode.DYNAMIC else None
    return torch.compile(function, backend=backend, dynamic=dynamic)


def run(program: TorchProgram, seed: int, backend: str = "lumir") -> Result:
    """Every call of `program` compiled with `backend` against eager and float64."""
    torch._dynamo.reset()
    fallbacks: list[str] = []
    notes: list[str] = []
    compiled = _compile(program, seed, backend)
    for length in program.lengths:
        eager_inputs = build_inputs(program, length, seed)
        lumir_inputs = build_inputs(program, length, seed)
        exact_inputs = build_inputs(program, length, seed)
        before = build_inputs(program, length, seed)
        floor = FLOOR[_lowest_precision(program, eager_inputs)]
        try:
            function, eager_args = make_callable(program, eager_inputs)
            want = function(*eager_args)
            reference, exact_args = make_callable(program, exact_inputs, torch.float64)
            exact = reference(*exact_args)
        except Exception:
            return Result(Outcome.INVALID, traceback.format_exc(limit=-3))
        _, lumir_args = make_callable(program, lumir_inputs)
        if program.mode == Mode.MARK:
            for name, dim in program.dynamic_dims.items():
                position = [s.name for s in program.inputs].index(name)
                torch._dynamo.mark_dynamic(lumir_inputs[position], dim)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got = compiled(*lumir_args)
            except Exception:
                return Result(Outcome.CRASH, traceback.format_exc(limit=-4), fallbacks)
        fallbacks += [
            str(w.message).splitlines()[0]
            for w in caught
            if issubclass(w.category, (LumirFallbackWarning, LumirRuntimeFallbackWarning))
        ]
        try:
            if len(got) != len(want):
                raise _Failure(f"{len(got)} outputs where eager gives {len(want)}")
            # a module's parameters are the compiled module's own tensors, not these
            arguments = [
                i for i, s in enumerate(program.inputs) if not (program.module and s.param)
            ]
            pairs = ([eager_inputs[i] for i in arguments], [lumir_inputs[i] for i in arguments])
            traced = _traced(program, build_inputs(program, length, seed))
            for i, (g, w, e, t) in enumerate(zip(got, want, exact, traced, strict=True)):
                what = f"call at length {length}, output {i}"
                _compare(g, w, e, t, pairs, floor, what, notes)
            if _aliasing(got) != _aliasing(want):
                raise _Failure(
                    f"outputs aliasing each other: {_aliasing(got)} where eager's are "
                    f"{_aliasing(want)}"
                )
            _compare_inputs(eager_inputs, lumir_inputs, before, arguments, exact_args, floor)
        except _Failure as failure:
            return Result(Outcome.MISMATCH, str(failure), fallbacks)
    if notes:
        return Result(Outcome.TRACED_LAYOUT, "\n".join(notes), fallbacks)
    return Result(Outcome.FALLBACK if fallbacks else Outcome.MATCH, "", fallbacks)


def check(program: TorchProgram, seed: int) -> Result:
    """`run` with lumir; a failure that aot_eager shares is torch's."""
    with torch.no_grad():
        result = run(program, seed)
        if result.outcome.passed or result.outcome == Outcome.INVALID:
            return result
        torch_result = run(program, seed, backend="aot_eager")
    if torch_result.outcome == result.outcome:
        return Result(Outcome.TORCH, f"aot_eager too: {torch_result.detail}", result.fallbacks)
    return result


@dataclass(frozen=True)
class Record:
    """What happened to one program of a seeded run."""

    index: int
    outcome: Outcome
    detail: str
    reproducer: str
    fallbacks: tuple[str, ...]


def run_seeded(seed: int, index: int) -> Record:
    """Generate and judge program `index` of the run with `seed`."""
    try:
        program = random_program(seed, index)
    except Exception:
        return Record(index, Outcome.INVALID, traceback.format_exc(limit=-4), "", ())
    result = check(program, input_seed(seed, index))
    torch._dynamo.reset()
    return Record(index, result.outcome, result.detail, program.text(), tuple(result.fallbacks))


def minimized(seed: int, index: int) -> Record:
    """Program `index` of the run with `seed`, minimized (`minimize`) and judged again."""
    program = random_program(seed, index)
    result = check(program, input_seed(seed, index))
    program = minimize(program, input_seed(seed, index), result)
    result = check(program, input_seed(seed, index))
    return Record(index, result.outcome, result.detail, program.text(), tuple(result.fallbacks))


def _quiet_worker() -> None:
    """One torch thread (sums in one order whatever the machine) and no log on stderr:
    Dynamo logs the errors it raises, which the records carry."""
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    logging.getLogger("torch").setLevel(logging.CRITICAL)


def _run_task(task: tuple[int, int]) -> Record:
    return run_seeded(*task)


def run_many(seed: int, count: int, jobs: int = 1, start: int = 0) -> Iterator[Record]:
    """Programs start..start+count-1 of the run with `seed`, in index order, as each is
    judged."""
    tasks = [(seed, index) for index in range(start, start + count)]
    if jobs <= 1:
        threads, level = torch.get_num_threads(), logging.getLogger("torch").level
        try:
            with warnings.catch_warnings():
                _quiet_worker()
                yield from map(_run_task, tasks)
        finally:  # in-process (a test): leave the process as it was
            torch.set_num_threads(threads)
            logging.getLogger("torch").setLevel(level)
        return
    # spawn, not fork: each worker imports torch afresh instead of inheriting threads
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=_quiet_worker) as pool:
        yield from pool.imap(_run_task, tasks, chunksize=2)


def _defined(line: str) -> str | None:
    target, equals, _ = line.partition(" = ")
    return target if equals and target.isidentifier() else None


def minimize(program: TorchProgram, seed: int, result: Result) -> TorchProgram:
    """A smaller program that fails as `program` does (same outcome, same first words of
    the detail): statements and outputs dropped one at a time while that holds (a
    reproducer to read, not a test: the inputs stay those of the whole program)."""

    def same(candidate: TorchProgram) -> bool:
        if not candidate.outputs:
            return False
        got = check(candidate, seed)
        return got.outcome == result.outcome and _kind(got.detail) == _kind(result.detail)

    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(program.lines))):
            name = _defined(program.lines[i])
            lines = program.lines[:i] + program.lines[i + 1 :]
            outputs = [o for o in program.outputs if o != name]
            candidate = dataclasses.replace(program, lines=lines, outputs=outputs)
            if same(candidate):
                program, changed = candidate, True
        for output in list(program.outputs):
            outputs = [o for o in program.outputs if o != output]
            candidate = dataclasses.replace(program, outputs=outputs)
            if same(candidate):
                program, changed = candidate, True
    return program


def _kind(detail: str) -> str:
    """What kind of failure a detail describes: its last line's words before a colon
    (a crash's exception type), or the words that say what differs."""
    lines = [line for line in detail.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    for word in ("strides", "alias", "elements off", "mean error", "differ", "outputs"):
        if word in last:
            return word
    return last.split(":")[0]
