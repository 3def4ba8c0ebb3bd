"""The torch-level differential fuzzer: random PyTorch programs compiled with lumir must
give eager's outputs (values against float64, shapes, dtypes, strides, aliasing).

The first test runs a fixed slice of seed 0 (the same programs every run; about 40 s on
one core); `bench/torch_fuzz.py` runs thousands. The others show that the judge can
fail: a backend whose numbers are 0.1% off, one that returns a contiguous copy of a
transposed output, one that copies an output eager returns as a view of its input and
one that raises are each caught, never a match. docs/fuzzing.md describes the fuzzer.
"""

from __future__ import annotations

import pytest
import torch

from lumir.testing.torch_fuzz import InputSpec, Mode, TorchProgram, random_program
from lumir.testing.torch_fuzz_check import Outcome, check, run, run_many

FUZZ_PROGRAMS = 60
"""About 40 s on one core."""


def test_generated_programs_compile_and_match_eager() -> None:
    failures = [r for r in run_many(seed=0, count=FUZZ_PROGRAMS) if not r.outcome.passed]
    assert not failures, "\n\n".join(
        f"program {r.index}: {r.outcome}: {r.detail}\n{r.reproducer}" for r in failures[:3]
    )


def test_generation_is_deterministic() -> None:
    for index in range(10):
        assert random_program(7, index).text() == random_program(7, index).text()


def _program(lines: list[str], outputs: list[str], dtype: str = "torch.float32") -> TorchProgram:
    build = f"torch.randn((2, L, 8), generator=g).to({dtype})"
    return TorchProgram([InputSpec("x0", build)], lines, outputs, Mode.STATIC, (5,))


def _wrapping(change):
    """A backend that runs the graph in eager and passes each output through `change`."""

    def backend(graph_module, example_inputs):
        def call(*args):
            return tuple(change(o) for o in graph_module(*args))

        return call

    return backend


@pytest.mark.parametrize(
    ("dtype", "factor"),
    [("torch.float32", 1.001), ("torch.bfloat16", 1.05), ("torch.float16", 1.01)],
)
def test_wrong_numbers_are_a_mismatch(dtype, factor) -> None:
    program = _program(["v0 = torch.softmax(x0 * 2.0, -1) + x0"], ["v0"], dtype)
    with torch.no_grad():
        assert run(program, 0, backend=_wrapping(lambda o: o)).outcome == Outcome.MATCH
        result = run(program, 0, backend=_wrapping(lambda o: o * factor))
    assert result.outcome == Outcome.MISMATCH, result.detail
    assert "elements off" in result.detail or "mean error" in result.detail


def test_wrong_strides_are_a_mismatch() -> None:
    program = _program(["v0 = (x0 * 2.0).transpose(1, 2)"], ["v0"])
    with torch.no_grad():
        result = run(program, 0, backend=_wrapping(lambda o: o.contiguous()))
    assert result.outcome == Outcome.MISMATCH and "strides" in result.detail


def test_a_lost_alias_is_a_mismatch() -> None:
    program = _program(["v0 = x0[:, 1:]", "v1 = v0 * 2.0"], ["v0", "v1"])
    with torch.no_grad():
        assert run(program, 0, backend="aot_eager").outcome == Outcome.MATCH
        copy = _wrapping(lambda o: torch.empty_strided(o.shape, o.stride()).copy_(o))
        result = run(program, 0, backend=copy)
    assert result.outcome == Outcome.MISMATCH and "alias" in result.detail


def test_a_raising_backend_is_a_crash_and_a_shared_failure_is_torchs() -> None:
    def raising(graph_module, example_inputs):
        raise RuntimeError("boom")

    program = _program(["v0 = x0 + 1.0"], ["v0"])
    with torch.no_grad():
        result = run(program, 0, backend=raising)
    assert result.outcome == Outcome.CRASH and "boom" in result.detail
    # a program Dynamo refuses under mark_dynamic (a view to a literal length) fails in
    # aot_eager as well: torch's, not lumir's
    specialised = TorchProgram(
        [InputSpec("x0", "torch.randn((2, L, 8), generator=g)")],
        ["v0 = x0.view(2, 5 if x0.shape[1] == 5 else 7, 8)"],
        ["v0"],
        Mode.MARK,
        (5, 7),
        dynamic_dims={"x0": 1},
    )
    assert check(specialised, 0).outcome == Outcome.TORCH


def _writing(change):
    """A backend that runs the graph in eager, then passes each float argument through
    `change` in place (after the graph's own writes to it)."""

    def backend(graph_module, example_inputs):
        def call(*args):
            outputs = graph_module(*args)
            for arg in args:
                if isinstance(arg, torch.Tensor) and arg.is_floating_point():
                    arg.copy_(change(arg))
            return outputs

        return call

    return backend


def test_an_input_written_one_rounding_apart_from_eager_matches() -> None:
    """A half `x.add_(0.1)`: lumir reads 0.1 at f32 (as CUDA's kernels do), ATen's CPU
    kernel rounds it to f16 first, so the written input may differ from eager's in the
    last bit, as an output may (program 226 of seed 1000 was reported as a mismatch)."""
    program = _program(["x0.add_(0.1)", "v0 = x0 * 2.0"], ["v0"], "torch.float16")
    with torch.no_grad():
        result = run(program, 0)
    assert result.outcome == Outcome.MATCH, result.detail


@pytest.mark.parametrize(
    ("lines", "change", "what"),
    [
        (["x0.add_(0.1)", "v0 = x0 * 2.0"], lambda a: a * 1.001, "elements off"),
        (["v0 = x0 * 2.0"], lambda a: torch.nextafter(a, torch.full_like(a, 9.0)), "differs"),
    ],
    ids=["written-wrong", "written-where-eager-does-not"],
)
def test_wrong_inputs_after_the_call_are_a_mismatch(lines, change, what) -> None:
    program = _program(lines, ["v0"])
    with torch.no_grad():
        assert run(program, 0, backend=_writing(lambda a: a)).outcome == Outcome.MATCH
        result = run(program, 0, backend=_writing(change))
    assert result.outcome == Outcome.MISMATCH and "input 0 after the call" in result.detail, (
        result.detail
    )
    assert what in result.detail


def test_the_float64_reference_keeps_the_inputs_layout() -> None:
    """The reference runs on float64 copies of the inputs in their layout: a reshape of
    an every-other-column input copies in eager, and so must it in the reference, or
    writing the input into the reshape overlaps itself there (program 18 of seed 1000
    was reported as an invalid program)."""
    build = "torch.randn((3, 2 * L, 4), generator=g).to(torch.float16)[:, ::2]"
    program = TorchProgram(
        [InputSpec("x0", build)],
        ["v0 = x0.reshape(1, -1, x0.shape[1], 4)", "v0.add_(x0)", "v1 = v0 * 2.0"],
        ["v1"],
        Mode.STATIC,
        (5,),
    )
    with torch.no_grad():
        result = run(program, 0)
    assert result.outcome == Outcome.MATCH, result.detail


def test_a_cast_that_changes_the_dtype_copies_in_the_reference_as_in_eager() -> None:
    """Program 527 of seed 1005 casts an expanded bf16 input to float32 and views the
    result flat: eager's cast copies, but in the float64 reference the cast was a no-op
    on the float64 input and `.view(-1)` of the expanded tensor raised there ("invalid
    program"). A generated cast that changes the dtype now says `copy=True`."""
    program = random_program(1005, 527)
    assert ".to(torch.float32, copy=True)" in program.text()
    with torch.no_grad():
        result = run(program, 1005)
    assert result.outcome == Outcome.MATCH, result.detail
