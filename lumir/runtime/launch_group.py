"""A `cublaslt_rt.launch_group` on CUDA: its member launches as one Triton launch.

The members (made by `group-launches`, checked by `launch_group_problems`) each run
`hl.index_copy` in place or an integer `hl.add`: a copy or an exact sum, so the grouped
kernel (`lumir.runtime.launch_group_kernel`) writes the very bytes that each member's
own torch launch would. On the CPU the executor runs the members one by one instead
(`lumir.runtime.loader`), which is the ungrouped program exactly.

`grouped_launch` checks what the kernel assumes about the tensors (the verifier
guarantees it for IR; a caller handing tensors directly gets a `LaunchGroupError`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from lumir.dialects.cublaslt_rt import LAUNCH_GROUP_MAX
from lumir.runtime.pdl import NO_PDL, PdlMode
from lumir.runtime.triton_launch import TritonLaunch

BLOCK_MAX = 1024
"""Elements (index_copy: (outer, inner) pairs) one program handles at most."""


class LaunchGroupError(ValueError):
    """Tensors the grouped kernel cannot run as their members' own launches would."""


@dataclass(frozen=True)
class Member:
    """One member launch on its tensors: `output` and `inputs` as the kernel reads them."""

    output: torch.Tensor
    inputs: tuple[torch.Tensor, ...]


def grouped_launch(
    kernel: str, members: Sequence[Member], dim: int = 0, pdl: PdlMode = NO_PDL
) -> Callable[[], None]:
    """A zero-argument launch of the grouped `kernel` ("hl.index_copy" along `dim`, or
    "hl.add") over `members` (captured into the program's CUDA graph like any other); a
    programmatic dependent launch when `pdl` says so (`lumir.runtime.pdl`)."""
    if not 1 <= len(members) <= LAUNCH_GROUP_MAX:
        raise LaunchGroupError(f"a grouped launch runs 1 to {LAUNCH_GROUP_MAX} members")
    for index, member in enumerate(members):
        for tensor in (member.output, *member.inputs):
            if not tensor.is_contiguous():
                raise LaunchGroupError(f"member {index} has a strided tensor; groups run dense")
    if kernel == "hl.index_copy":
        return _index_copy_launch(members, dim, pdl.kernel_options())
    if kernel == "hl.add":
        return _add_launch(members, pdl.kernel_options())
    raise LaunchGroupError(f'no grouped kernel for "{kernel}"')


def _block(largest: int) -> int:
    return max(16, min(BLOCK_MAX, 1 << max(0, largest - 1).bit_length()))


def _programs(totals: Sequence[int], block: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Member i's programs [starts[i], ends[i]): one per `block` of its elements."""
    starts, ends, total = [], [], 0
    for count in totals:
        starts.append(total)
        total += -(-count // block)
        ends.append(total)
    return tuple(starts), tuple(ends)


def _index_copy_launch(
    members: Sequence[Member], dim: int, options: dict[str, object]
) -> Callable[[], None]:
    """The members' `out.index_copy_(dim, index, source)` in one launch; every member reads
    one index tensor (its first member's)."""
    index = members[0].inputs[1]
    if index.dim() != 1 or index.dtype != torch.int64:
        raise LaunchGroupError(f"the index must be a 1-D int64 tensor, got {index.dtype}")
    count = index.shape[0]
    sizes, inners, totals = [], [], []
    for number, member in enumerate(members):
        cache, given, source = member.inputs
        out = member.output
        if given.data_ptr() != index.data_ptr() or given.shape != index.shape:
            raise LaunchGroupError(f"member {number} reads another index than member 0")
        if cache.data_ptr() != out.data_ptr() or cache.shape != out.shape:
            raise LaunchGroupError(f"member {number} does not update its cache in place")
        axis = dim % out.dim()
        expected = (*out.shape[:axis], count, *out.shape[axis + 1 :])
        if tuple(source.shape) != expected or source.dtype != out.dtype:
            raise LaunchGroupError(
                f"member {number}: a source of {tuple(source.shape)} {source.dtype} does not "
                f"fill {count} slices of {tuple(out.shape)} {out.dtype} along dim {axis}"
            )
        inner = math.prod(out.shape[axis + 1 :])
        sizes.append(out.shape[axis])
        inners.append(max(inner, 1))
        totals.append(math.prod(out.shape[:axis]) * inner)
    block = _block(max(totals))
    starts, ends = _programs(totals, block)
    grid = (ends[-1],)
    arguments = (
        index,
        count,
        tuple(member.output for member in members),
        tuple(member.inputs[2] for member in members),
        tuple(sizes),
        tuple(inners),
        tuple(totals),
        starts,
        ends,
    )
    from lumir.runtime.launch_group_kernel import grouped_index_copy_kernel

    return _launch_or_nothing(
        grouped_index_copy_kernel,
        grid,
        arguments,
        {"MEMBERS": len(members), "BLOCK": block},
        options,
    )


def _add_launch(members: Sequence[Member], options: dict[str, object]) -> Callable[[], None]:
    """The members' `torch.add(lhs, rhs, out=out)` on integers in one launch."""
    counts, lhs_steps, rhs_steps = [], [], []
    for number, member in enumerate(members):
        out = member.output
        lhs, rhs = member.inputs
        if out.dtype.is_floating_point or out.dtype.is_complex or out.dtype == torch.bool:
            raise LaunchGroupError(f"member {number} adds {out.dtype}; groups add integers")
        if lhs.dtype != out.dtype or rhs.dtype != out.dtype:
            raise LaunchGroupError(f"member {number} adds tensors of another type than its out")
        steps = []
        for operand in (lhs, rhs):
            if operand.numel() not in (out.numel(), 1):
                raise LaunchGroupError(f"member {number} broadcasts an input; groups do not")
            steps.append(1 if operand.numel() == out.numel() else 0)
        counts.append(out.numel())
        lhs_steps.append(steps[0])
        rhs_steps.append(steps[1])
    block = _block(max(counts))
    starts, ends = _programs(counts, block)
    grid = (ends[-1],)
    arguments = (
        tuple(member.output for member in members),
        tuple(member.inputs[0] for member in members),
        tuple(member.inputs[1] for member in members),
        tuple(counts),
        tuple(lhs_steps),
        tuple(rhs_steps),
        starts,
        ends,
    )
    from lumir.runtime.launch_group_kernel import grouped_add_kernel

    return _launch_or_nothing(
        grouped_add_kernel, grid, arguments, {"MEMBERS": len(members), "BLOCK": block}, options
    )


def _launch_or_nothing(
    kernel: object,
    grid: tuple[int],
    arguments: tuple[object, ...],
    constants: dict[str, object],
    options: dict[str, object],
) -> Callable[[], None]:
    """The launch (compilable ahead: `lumir.runtime.triton_launch`), or, when every
    member is empty (a grid of no program), a call that does nothing."""
    if not grid[0]:
        return lambda: None
    return TritonLaunch(kernel, grid, arguments, {**constants, **options})


__all__ = ["BLOCK_MAX", "LaunchGroupError", "Member", "grouped_launch"]
