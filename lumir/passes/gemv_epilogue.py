"""Move the elementwise launch that reads a grouped GEMV's results into the group.

In a decode step the MLP's gate and up projections run as one grouped GEMV launch
(`group-gemv`), and SiLU(gate) * up as a fused kernel right after it: on the H100 a
launch inside a CUDA graph costs about as much as that fused kernel's work, and the
Llama-1B shape has one such pair per layer. The fused launch reads nothing but the
group's results, elementwise, so the group's kernel can compute it where the sums
are, in registers: `cublaslt_rt.matmul_group`'s epilogue, one generated kernel on
CUDA (`lumir.runtime.gemv_epilogue`), the members and then the launch on the CPU.

For each group without an epilogue, in program order, the pass takes the one op that
reads the members' D values (through views), when it is a `cublaslt_rt.fused_launch`
that the group would verify with (`gemv_epilogue_problems`: an elementwise body, its
inputs exactly the members' D, one m, nothing else reading a D; where gemv-prologue
ran first, also `gemv_prologue_problems`: no output on bytes the prologue reads), and
it can run at the group instead of where it is: its operands exist there or are
load-time ops that can move above the group, and no op in between writes bytes it
reads, or reads or writes bytes it writes (views resolved;
`lumir.passes.program_order`). The launch then moves
into the group, after its members. Nothing is decided by set or dict order or object
ids; a group that has an epilogue is left alone, so a second run changes nothing.

Run it after group-gemv and before the buffer plan (`share-buffers`), as lumir-pipeline
does: once intermediates share bytes, the dependence check above refuses moves it
would allow before.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from lumir.dialects.cublaslt_rt import (
    FusedLaunchOp,
    MatmulGroupOp,
    gemv_epilogue_problems,
    gemv_prologue_problems,
    view_users,
)
from lumir.passes.program_order import ProgramOrder


def _readers(state: ProgramOrder, value: SSAValue) -> list[Operation]:
    """The function-level ops that use `value` or a view of it (views aside), in order."""
    found: list[Operation] = []
    for user in view_users(value):
        top = state.block.find_ancestor_op_in_block(user)
        if top is not None and top not in found:
            found.append(top)
    return sorted(found, key=state.position.__getitem__)


def _epilogue_of(
    state: ProgramOrder, group: MatmulGroupOp
) -> tuple[FusedLaunchOp, list[Operation]] | None:
    """The fused launch that may become `group`'s epilogue, if any (module doc), with the
    load-time ops that must move above the group with it."""
    readers: list[Operation] = []
    for member in group.members():
        readers += [op for op in _readers(state, member.d) if op is not group]
    if not readers or any(op is not readers[0] for op in readers):
        return None
    launch = readers[0]
    if not isinstance(launch, FusedLaunchOp) or state.position[launch] < state.position[group]:
        return None
    moved = state.definitions_to_move(launch, group)
    if moved is None:
        return None
    effects = state.access(launch)
    crossed = state.crossed(group, launch)
    if not state.can_move_above(effects.reads, effects.writes, crossed):
        return None
    return launch, moved


def add_epilogues(func: FuncOp) -> int:
    """Give `func`'s GEMV groups their epilogues in place (module doc); returns how many."""
    if not func.body.blocks:
        return 0
    block = func.body.block
    state = ProgramOrder(block)
    made = 0
    for group in [op for op in block.ops if isinstance(op, MatmulGroupOp)]:
        if group.epilogue() is not None:
            continue
        found = _epilogue_of(state, group)
        if found is None or gemv_epilogue_problems(group, found[0]):
            continue
        prologue = group.prologue()  # where gemv-prologue ran first
        if prologue is not None and gemv_prologue_problems(group, prologue, found[0]):
            continue
        launch, moved = found
        for definition in moved:
            definition.detach()
            block.insert_op_before(definition, group)
        launch.detach()
        group.body.block.add_op(launch)
        state.renumber()
        made += 1
    return made


@dataclass(frozen=True)
class GemvEpiloguePass(ModulePass):
    """Run the elementwise launch that reads a grouped GEMV's results inside the group.

    A `cublaslt_rt.fused_launch` whose elementwise body reads exactly the D values of a
    `cublaslt_rt.matmul_group`'s members, which nothing else reads, moves into the
    group as its epilogue, when it can run there without crossing a write of what it
    reads or an access to what it writes: on CUDA the group and the body are then one
    generated kernel that writes only the body's results (SiLU(gate) * up after a
    decode step's gate and up GEMVs), on the CPU the same launches in the same order.
    Run it on lowered IR after group-gemv and before share-buffers, as lumir-pipeline
    does when `gemv`, `group_gemv` and `gemv_epilogue` are on. See docs/runtime.md,
    "The grouped GEMV's epilogue".
    """

    name = "gemv-epilogue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.ops:
            if isinstance(func, FuncOp):
                add_epilogues(func)


__all__ = ["GemvEpiloguePass", "add_epilogues"]
