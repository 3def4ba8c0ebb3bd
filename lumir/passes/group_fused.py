"""Run fused launches that depend on none of each other as one launch (`cublaslt_rt.fused_group`).

At one token a decode layer's q and k rotaries are two small fused kernels that read
the same cos and sin and each their own projection: a few kilobytes each, so each costs
what a launch costs (~1.5-2 µs on the H100 and H200), 32 launches in a 16-layer step.
Neither reads what the other writes, so one launch can run both: on CUDA one generated
Triton kernel whose programs are the members' programs one after the other, each
running its member's own kernel text (`triton_codegen.generate_group`), so every
output holds the bytes the separate launches write. The CPU runs the members in order.

The pass walks each function in program order, the way group-gemv and group-launches
do (`program_order.group_greedily`): each `cublaslt_rt.fused_launch` not yet grouped
anchors a group, and a later one joins (at most `FUSED_GROUP_MAX`) when the group
still verifies (`fused_group_problems`: no member writes bytes another reads or
writes) and it can move up to the members without crossing an op that writes what it
reads or reads or writes what it writes, or the members can move down to it under the
same rule. A layer's key rotary stands before its cache write and the query rotary
after it; the query rotary moves up.

It runs before share-buffers: after the buffer plan, the query rotary's output may
take the bytes the key rotary's output held until the key-cache write read them, a
dependence that the plan made, not the program, and that keeps the two apart. A
fused launch inside a GEMV group (its epilogue) is not looked at. Nothing is decided by
set or dict order or object ids, and existing groups are left alone, so a second run
changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from lumir.dialects.cublaslt_rt import (
    FUSED_GROUP_MAX,
    FusedGroupOp,
    FusedLaunchOp,
    fused_group_problems,
)
from lumir.passes.program_order import ProgramOrder, group_greedily


def _candidate(op: Operation) -> bool:
    return isinstance(op, FusedLaunchOp)


def _joins(state: ProgramOrder, members: list[Operation], later: Operation) -> bool:
    return not fused_group_problems([*members, later], state.overlaps)  # type: ignore[list-item]


def _make_group(members: list[Operation]) -> Operation:
    return FusedGroupOp(members)  # type: ignore[arg-type]


def group_function(func: FuncOp) -> int:
    """Group `func`'s independent fused launches in place; returns the groups made."""
    if not func.body.blocks:
        return 0
    return group_greedily(
        func.body.block, _candidate, FUSED_GROUP_MAX, _joins, _make_group, sink=False
    )


@dataclass(frozen=True)
class GroupFusedPass(ModulePass):
    """Run fused launches that depend on none of each other as one launch
    (cublaslt_rt.fused_group): a decode layer's q and k rotaries.

    On CUDA a group is one generated Triton kernel whose programs run each member's own
    kernel text, one member after the other, so it writes exactly the bytes the
    separate launches write; on the CPU the members run in order. Groups form greedily
    in program order (as in group-gemv), a later launch joining when no member writes
    what another reads or writes and it can move to the others. Runs before
    share-buffers, whose placement would otherwise tie independent launches together
    through reused bytes. See docs/passes/group-fused.md.
    """

    name = "group-fused"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.ops:
            if isinstance(func, FuncOp):
                group_function(func)


__all__ = ["GroupFusedPass", "group_function"]
