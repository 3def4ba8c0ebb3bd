"""Run a lowered program on the CPU with the bytes the CUDA group kernels leave unwritten.

A `cublaslt_rt.matmul_group` with a prologue or an epilogue is one generated kernel on
CUDA that never writes the prologue's output nor, with an epilogue, the members' D
(docs/runtime.md); the CPU executor runs the group's steps one by one and writes them.
The verifier refuses a program that reads those bytes after the group
(`cublaslt_rt.outside_reader`), so on every program it accepts the two agree, and a
CPU run alone cannot tell when it should not have accepted one. Under
`poisoned_scratch()` the CPU loader fills those bytes with 0xFF (NaN in a float) right
after each such group, keeping what the epilogue writes: a program whose results change
then reads bytes CUDA would not have written, a hole in the verifier. The mutation
fuzzer runs each lowered mutant with such a group both ways (`lumir.testing.mutant_check`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import torch
from xdsl.dialects.builtin import ModuleOp

from lumir.dialects.cublaslt_rt import FusedLaunchOp, MatmulGroupOp
from lumir.runtime.loader import Loader
from lumir.runtime.plans import MatmulPlan


def has_group_kernels(module: ModuleOp) -> bool:
    """Whether a matmul_group of `module` has a prologue or an epilogue."""
    return any(
        isinstance(op, MatmulGroupOp) and (op.prologue() is not None or op.epilogue() is not None)
        for op in module.walk()
    )


@contextlib.contextmanager
def poisoned_scratch() -> Iterator[None]:
    """Within it, the CPU loader fills each group's unwritten bytes after the group runs
    (module doc). Not thread-safe: it replaces `Loader._load_steps` for the duration."""
    original = Loader._load_steps

    def load_steps(
        self: Loader,
        prologue: FusedLaunchOp | None,
        plans: list[MatmulPlan],
        epilogue: FusedLaunchOp | None,
    ) -> None:
        original(self, prologue, plans, epilogue)
        step = (prologue or epilogue).parent_op()  # type: ignore[union-attr]
        assert isinstance(step, MatmulGroupOp)
        scratch = [prologue.outputs[0]] if prologue is not None else []
        if epilogue is not None:
            scratch += [member.d for member in step.members()]
        kept = [] if epilogue is None else list(epilogue.outputs)
        run = self.launches.pop()
        poisoned = [self.buffers[value] for value in scratch if value in self.buffers]
        written = [self.buffers[value] for value in kept if value in self.buffers]

        def launch() -> None:
            run()
            saved = [buffer.clone() for buffer in written]
            for buffer in poisoned:
                buffer.fill_(0xFF)
            for buffer, value in zip(written, saved, strict=True):
                buffer.copy_(value)

        self.launches.append(launch)

    Loader._load_steps = load_steps  # type: ignore[method-assign]
    try:
        yield
    finally:
        Loader._load_steps = original  # type: ignore[method-assign]


def first_difference(first: Sequence[torch.Tensor], second: Sequence[torch.Tensor]) -> int | None:
    """The index of the first result whose bytes differ between two runs, or None."""
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return index
        if not torch.equal(_bytes(a), _bytes(b)):
            return index
    return None


def _bytes(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach().cpu().contiguous().reshape(-1).view(torch.uint8)


__all__ = ["first_difference", "has_group_kernels", "poisoned_scratch"]
