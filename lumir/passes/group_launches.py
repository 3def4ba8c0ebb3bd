"""Run independent launches of one small kernel as one launch (`cublaslt_rt.launch_group`).

A decode step over a `StaticCache` writes each layer's keys and values into their
caches (two `hl.index_copy` launches with the same index) and advances each layer's
token counter (an `hl.add` of one i64). Each launch moves a few hundred bytes, so each
costs what a launch costs, ~2 µs inside a CUDA graph on the H200: the 1B model's 32
cache writes took 75 µs of a 1.21 ms step. One launch can do the work of several when
they depend on none of each other, and because the work is a copy or an integer sum,
the one launch writes exactly the bytes the separate ones would.

The pass walks each function in program order. Each launch that a group can hold
(`cublaslt_rt.launch_member_problem`) and that is not grouped yet anchors a group, and
every later such launch joins it (at most `LAUNCH_GROUP_MAX`) when the group still
verifies (`launch_group_problems`: one kernel and params, one index for
`hl.index_copy`, no member touching bytes another writes) and either it can move up to
the members without crossing an op that writes what it reads or reads or writes what
it writes, or the members can move down to it under the same rule (views resolved to
their bytes; `lumir.passes.program_order`). The second way matters when the later
launch reads what an op in between computes: on CUDA a layer's value-cache write
stands before the key's rotary, whose result the key-cache write reads. The group stands
where its last member stood once the members are together. Nothing is decided by set
or dict order or object ids, so a module always groups the same way. Existing groups
are left alone, so a second run changes nothing.

The KV-cache writes are in place only once the backend has bound the cache by address
(`lumir.backend.in_place`, at load time): before that, each is a copy of the whole
cache into a new buffer, which a group does not take. So the backend runs this pass
after that rewrite, on the program it loads, and lumir-pipeline does not run it: its
functions have no in-place updates, and grouping a counter's add there would hide
that add from the in-place rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from lumir.dialects.cublaslt_rt import (
    LAUNCH_GROUP_MAX,
    LaunchGroupOp,
    LaunchOp,
    launch_group_problems,
    launch_member_problem,
)
from lumir.passes.program_order import ProgramOrder, group_greedily


def _groupable(op: Operation) -> bool:
    return isinstance(op, LaunchOp) and launch_member_problem(op) is None


def _joins(state: ProgramOrder, members: list[Operation], later: Operation) -> bool:
    assert isinstance(later, LaunchOp) and isinstance(members[0], LaunchOp)
    if later.kernel != members[0].kernel:
        return False
    return not launch_group_problems([*members, later], state.overlaps)  # type: ignore[list-item]


def group_function(func: FuncOp) -> int:
    """Group `func`'s launches in place (see the module doc); returns the groups made.

    The members may also move down to a later launch: on CUDA a layer's value-cache
    write stands before the key's rotary, whose result the key-cache write reads, so
    the key write cannot move up, but the value write can move down."""
    if not func.body.blocks:
        return 0
    return group_greedily(
        func.body.block, _groupable, LAUNCH_GROUP_MAX, _joins, _make_group, sink=True
    )


def _make_group(members: list[Operation]) -> Operation:
    return LaunchGroupOp(members)  # type: ignore[arg-type]


def has_groupable_launches(module: ModuleOp) -> bool:
    """Whether two launches of one function of `module` run a kernel a group can hold (a
    cheap look before the backend copies the module to group it)."""
    for func in module.ops:
        if not isinstance(func, FuncOp) or not func.body.blocks:
            continue
        kernels = [op.kernel.data for op in func.body.block.ops if _groupable(op)]  # type: ignore[attr-defined]
        if len(kernels) != len(set(kernels)):
            return True
    return False


def group_module(module: ModuleOp) -> int:
    """Group the launches of every function of `module`; returns the groups made."""
    return sum(group_function(func) for func in module.ops if isinstance(func, FuncOp))


@dataclass(frozen=True)
class GroupLaunchesPass(ModulePass):
    """Run independent launches of one small kernel as one launch (cublaslt_rt.launch_group).

    A decode step's KV-cache writes (two in-place `hl.index_copy` launches per layer,
    reading one index) and its per-layer counter updates (integer `hl.add`s) each move
    a few hundred bytes and cost a launch apiece. Launches of one such kernel and
    params that depend on none of each other become the members of one
    `cublaslt_rt.launch_group`: one launch of a small Triton kernel on CUDA, which
    copies or adds exactly what each member's own launch would, and the members one by
    one on the CPU. Groups form greedily in program order, anchored at their first
    member; a later launch joins when the group still verifies and it can move up to
    the anchor without crossing a write of what it reads or an access to what it
    writes. The backend runs it on the program it loads, after writing the cache
    updates in place (lumir.backend.in_place); lumir-pipeline does not. See
    docs/passes/group-launches.md.
    """

    name = "group-launches"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        group_module(op)


__all__ = ["GroupLaunchesPass", "group_function", "group_module", "has_groupable_launches"]
