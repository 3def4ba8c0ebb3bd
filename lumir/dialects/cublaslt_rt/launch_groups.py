"""`cublaslt_rt.launch_group` and `cublaslt_rt.fused_group`: independent launches as one.

Members that depend on none of each other (a decode layer's KV-cache writes, its
counters' integer adds, independent fused kernels) run one after the other on the CPU
and as one launch on CUDA; the checks here refuse members that read or write what
another member writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
)

from lumir.dialects.cublaslt_rt.buffers import overlap
from lumir.dialects.cublaslt_rt.effects import Access
from lumir.dialects.cublaslt_rt.group import GroupOp
from lumir.dialects.cublaslt_rt.launch import FusedLaunchOp, LaunchOp

GROUPED_KERNELS = ("hl.index_copy", "hl.add")
"""Kernels whose independent launches `cublaslt_rt.launch_group` runs as one (on CUDA, one
small Triton kernel, `lumir.runtime.launch_group`): the KV-cache writes of a decode
layer, and the integer adds of its per-layer cache counters. Each is a copy or an
integer sum, so the one launch writes exactly the bytes of the separate ones."""

LAUNCH_GROUP_MAX = 16
"""Members of one grouped launch at most (the kernel's unrolled member slots): a 16-layer
model's cache counters are one launch."""


@irdl_op_definition
class LaunchGroupOp(GroupOp):
    """Launches of one kernel that depend on none of each other, run as one launch.

    The body is the member `cublaslt_rt.launch` ops themselves, in program order, each
    with its own buffers and location. On the CPU the members run one after the other,
    exactly as they would ungrouped; on CUDA they are one launch of a small Triton
    kernel (`lumir.runtime.launch_group`), which copies (`hl.index_copy`) or adds
    integers (`hl.add`), so every member's output holds the bytes its own launch would
    write. The verifier refuses a group that launch could not run that way
    (`launch_group_problems`). Made by `group-launches`.
    """

    name = "cublaslt_rt.launch_group"

    def members(self) -> list[LaunchOp]:
        """The member launches, in order (only launches, once the group verifies)."""
        return [op for op in self.body.block.ops if isinstance(op, LaunchOp)]

    def kernel(self) -> str:
        """The kernel every member runs (its first member's, once the group verifies)."""
        return self.members()[0].kernel.data

    def buffer_access(self) -> Access:
        """What its members read and write."""
        members = self.members()
        reads = tuple(v for member in members for v in member.inputs)
        return Access(reads, tuple(member.output for member in members))

    def verify_(self) -> None:
        self.verify_members(LaunchOp, launch_group_problems)


def launch_member_problem(launch: LaunchOp) -> str | None:
    """Why `launch` cannot be a member of a grouped launch at all (None when it can).

    It runs a kernel of `GROUPED_KERNELS` on dense buffers (no permuted views), and

    - `hl.index_copy`: updates its cache in place (`outs` is `ins[0]`): the grouped
      kernel writes the indexed slices only, it never copies a whole cache;
    - `hl.add`: adds integers of one type (8 bits or wider; an i1 add is a logical or
      in torch), each input read whole (as many elements as the output) or as one
      element, so the kernel's sums are torch's wrap-around sums, element for element.
    """
    kernel = launch.kernel.data
    if kernel not in GROUPED_KERNELS:
        return f'runs "{kernel}"; a group runs {" or ".join(GROUPED_KERNELS)}'
    if launch.input_permutations is not None or launch.output_permutation is not None:
        return "reads or writes through a permuted view; a group runs dense buffers"
    if kernel == "hl.index_copy":
        if not launch.inputs or launch.inputs[0] is not launch.output:
            return (
                "writes a new buffer (outs is not ins[0]); a group updates caches in "
                "place, writing the indexed slices only"
            )
        return None
    output = launch.output.type
    assert isinstance(output, MemRefType)
    element = output.element_type
    types = [value.type for value in launch.inputs]
    if (
        not isinstance(element, IntegerType)
        or element.width.data < 8
        or any(not isinstance(t, MemRefType) or t.element_type != element for t in types)
    ):
        return (
            f"adds {', '.join(str(t) for t in types)} into {output}; a group adds "
            f"integers of one type (8 bits or wider) only"
        )
    count = _elements(output)
    for index, value_type in enumerate(types):
        assert isinstance(value_type, MemRefType)
        if _elements(value_type) not in (count, 1):
            return (
                f"broadcasts input {index} ({value_type}) to {output}; a group reads each "
                f"input whole or as one element"
            )
    return None


def _elements(buffer_type: MemRefType[Attribute]) -> int:
    count = 1
    for dim in buffer_type.get_shape():
        count *= dim
    return count


def _index(launch: LaunchOp) -> SSAValue | None:
    """The index buffer an `hl.index_copy` launch reads (None when it has no such input)."""
    return launch.inputs[1] if len(launch.inputs) > 1 else None


def launch_group_problems(
    members: Sequence[LaunchOp], overlaps: Callable[[SSAValue, SSAValue], bool] | None = None
) -> list[str]:
    """Why `members` cannot run as one grouped launch (empty when they can).

    Two to `LAUNCH_GROUP_MAX` members, each one a grouped launch can run
    (`launch_member_problem`), all running member 0's kernel with its params, an
    `hl.index_copy` member reading member 0's index buffer (the kernel reads one
    index), and no member writing bytes another member reads or writes (views
    resolved): the members run at once, so none may depend on another. `overlaps`
    replaces `overlap` (a pass that remembers byte ranges asks often).
    """
    overlaps = overlaps or overlap
    if not 2 <= len(members) <= LAUNCH_GROUP_MAX:
        return [f"holds {len(members)} launch(es); a grouped launch runs 2 to {LAUNCH_GROUP_MAX}"]
    problems: list[str] = []
    first = members[0]
    for index, member in enumerate(members):
        name = f"member {index} ({member.kernel.data})"
        problem = launch_member_problem(member)
        if problem is not None:
            problems.append(f"{name} {problem}")
        if index == 0:
            continue
        if member.kernel != first.kernel or member.params != first.params:
            problems.append(
                f"{name} runs another kernel or params than member 0; a group runs one kernel"
            )
        elif member.kernel.data == "hl.index_copy" and _index(member) is not _index(first):
            problems.append(f"{name} reads another index than member 0; a group reads one index")
    for index, member in enumerate(members):
        for other_index, other in enumerate(members):
            if other is member:
                continue
            touched = list(other.inputs) + ([other.output] if other_index > index else [])
            if any(overlaps(member.output, value) for value in touched):
                problems.append(
                    f"member {index} writes bytes member {other_index} reads or writes; the "
                    f"members of a group run at once and may not depend on each other"
                )
    return problems


FUSED_GROUP_MAX = 4
"""Members of one grouped fused launch at most: each is a branch of the one kernel, so
the kernel's text (and its compile time) grows with them; a layer's independent
launches (the q and k rotaries) are two."""


@irdl_op_definition
class FusedGroupOp(GroupOp):
    """Fused launches that depend on none of each other, run as one launch.

    The body is the member `cublaslt_rt.fused_launch` ops themselves, in program order,
    each with its own buffers, body and location. On the CPU the members run one after
    the other, exactly as they would ungrouped; on CUDA they are one launch of one
    generated Triton kernel (`lumir.runtime.fused_kernels.group_launch`) whose programs
    are the members' programs one after the other, each running its member's body text
    unchanged, so every member's outputs hold the bytes its own launch would write. The
    verifier refuses members that read or write what another member writes
    (`fused_group_problems`). Made by `group-fused`.
    """

    name = "cublaslt_rt.fused_group"

    def members(self) -> list[FusedLaunchOp]:
        """The member launches, in order (only fused launches, once the group verifies)."""
        return [op for op in self.body.block.ops if isinstance(op, FusedLaunchOp)]

    def buffer_access(self) -> Access:
        """What its members read and write."""
        members = self.members()
        reads = tuple(v for member in members for v in member.inputs)
        return Access(reads, tuple(v for member in members for v in member.outputs))

    def verify_(self) -> None:
        self.verify_members(FusedLaunchOp, fused_group_problems)


def fused_group_problems(
    members: Sequence[FusedLaunchOp], overlaps: Callable[[SSAValue, SSAValue], bool] | None = None
) -> list[str]:
    """Why `members` cannot run as one grouped fused launch (empty when they can).

    Two to `FUSED_GROUP_MAX` members, none writing bytes another member reads or writes
    (views resolved): the members' programs run at once, in no order, so none may
    depend on another. A member's own outputs may overwrite its own inputs as its
    launch allows (`FusedLaunchOp.may_overwrite`). `overlaps` replaces `overlap` (a
    pass that remembers byte ranges asks often).
    """
    overlaps = overlaps or overlap
    if not 2 <= len(members) <= FUSED_GROUP_MAX:
        return [
            f"holds {len(members)} fused launch(es); a grouped fused launch runs 2 to "
            f"{FUSED_GROUP_MAX}"
        ]
    problems: list[str] = []
    for index, member in enumerate(members):
        for other_index, other in enumerate(members):
            if other_index == index:
                continue
            touched = [*other.inputs, *(other.outputs if other_index > index else ())]
            if any(overlaps(out, value) for out in member.outputs for value in touched):
                problems.append(
                    f"member {index} writes bytes member {other_index} reads or writes; the "
                    f"members of a group run at once and may not depend on each other"
                )
    return problems
