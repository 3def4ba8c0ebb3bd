"""Move the one-row launch that computes a grouped GEMV's activation into the group.

At one token every Llama layer runs an RMSNorm as a one-program fused kernel right
before the grouped GEMV that reads it (q/k/v after the input norm, gate/up after the
post-attention norm). The norm moves 8 KiB, so its cost is latency on the serial
chain of launches: its own launch, its loads and reduction, and the GEMV's wait for
it. On the H100 one kernel that recomputes the norm in every GEMV program and sums
against it in registers took 23.4 µs where the norm and the gate/up GEMV took 24.5,
and 5.5-6.1 µs where the norm and q/k/v took 6.8 (`bench/norm_prologue_sweep.py`,
docs/perf-notes.md). That kernel is the group's prologue: `cublaslt_rt.matmul_group`'s
first step, one generated kernel on CUDA (`lumir.runtime.gemv_prologue`), the launch
and then the members on the CPU.

For each group without a prologue, in program order, the pass takes the op that
writes the members' B, when it is a `cublaslt_rt.fused_launch` that the group would
verify with (`gemv_prologue_problems`: one output, B itself; a body over one row of
k lanes; every member summing the row in one block; nothing but the group reading B;
no step of the group writing what the launch reads), which nothing between it and the
group depends on or disturbs: no op in between reads or writes bytes it writes, or
writes bytes it reads (views resolved; `lumir.passes.program_order`). The launch then
moves into the group, before its members. Nothing is decided by set or dict order or
object ids; a group that has a prologue is left alone, so a second run changes
nothing.

Run it after group-gemv and gemv-epilogue and before the buffer plan
(`share-buffers`), as lumir-pipeline does: once intermediates share bytes, the
dependence check refuses moves it would allow before.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass

from lumir.dialects.cublaslt_rt import (
    FusedLaunchOp,
    MatmulGroupOp,
    gemv_prologue_problems,
)
from lumir.passes.program_order import ProgramOrder


def _writer_of_b(state: ProgramOrder, group: MatmulGroupOp) -> FusedLaunchOp | None:
    """The last op before `group` that writes bytes of its members' B, when it is a fused
    launch; None otherwise."""
    members = group.members()
    if not members:
        return None
    b = members[0].b
    for op in reversed(state.ops[: state.position[group]]):
        effects = state.access(op)
        if effects.everything:
            return None
        if any(state.overlaps(b, written) for written in effects.writes):
            return op if isinstance(op, FusedLaunchOp) else None
    return None


def _prologue_of(state: ProgramOrder, group: MatmulGroupOp) -> FusedLaunchOp | None:
    """The fused launch that may become `group`'s prologue, if any (module doc). Its
    operands are defined above it, so above the group too: only effects can stop it."""
    launch = _writer_of_b(state, group)
    if launch is None or gemv_prologue_problems(group, launch):
        return None
    effects = state.access(launch)
    if not state.can_move_above(effects.reads, effects.writes, state.crossed(launch, group)):
        return None
    return launch


def add_prologues(func: FuncOp) -> int:
    """Give `func`'s GEMV groups their prologues in place (module doc); returns how many."""
    if not func.body.blocks:
        return 0
    block = func.body.block
    state = ProgramOrder(block)
    made = 0
    for group in [op for op in block.ops if isinstance(op, MatmulGroupOp)]:
        if group.prologue() is not None:
            continue
        launch = _prologue_of(state, group)
        if launch is None:
            continue
        launch.detach()
        body = group.body.block
        assert body.first_op is not None
        body.insert_op_before(launch, body.first_op)
        state = ProgramOrder(block)  # the group's effects changed: none remembered
        made += 1
    return made


@dataclass(frozen=True)
class GemvProloguePass(ModulePass):
    """Run the one-row launch that computes a grouped GEMV's activation inside the group.

    A `cublaslt_rt.fused_launch` whose one output is the B that every member of a
    `cublaslt_rt.matmul_group` reads, over one row whose k columns each member sums in
    one block, moves into the group as its prologue, when nothing else reads B and no
    op between it and the group depends on it or disturbs it: on CUDA every program of
    the group's one generated kernel then computes the row (a decode step's RMSNorm)
    in registers and sums its rows against it; on the CPU the same launches run in the
    same order. Run it on lowered IR after group-gemv and gemv-epilogue and before
    share-buffers, as lumir-pipeline does when `gemv`, `group_gemv` and `gemv_prologue`
    are on. See docs/runtime.md, "The grouped GEMV's prologue".
    """

    name = "gemv-prologue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.ops:
            if isinstance(func, FuncOp):
                add_prologues(func)


__all__ = ["GemvProloguePass", "add_prologues"]
