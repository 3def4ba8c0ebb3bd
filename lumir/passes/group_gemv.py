"""Run the GEMV matmuls that read one activation as one grouped launch.

A decode step runs every projection as lumir's GEMV (`algorithm = "gemv"`), and the
small ones are bound by launch latency, not bytes: on the H200, inside a CUDA graph, a
Llama-1B layer's k and v projections take ~2.9 µs each, about what one launch over both
takes. Concatenating the weights at load time would cost the guarantee that a weight
changed in place after compiling is seen by the next call (docs/backend.md, "Weights
are bound, not copied"), so instead one launch reads each member's weight where it
lives: `cublaslt_rt.matmul_group`, whose members are the matmuls themselves.

The pass walks each function in program order. Each GEMV matmul not yet grouped
anchors a group, and every later GEMV matmul that reads the same B value joins it (at
most `GEMV_GROUP_MAX`) when

- the group op would verify with it (`cublaslt_rt.matmul_group_problems`: same k, B
  read alike, the same block shape as the others, so its sums and its D are what its
  own launch gives; no member writes bytes another member reads or writes), and
- it can run at the anchor instead of where it is: every operand is defined before the
  anchor, or by load-time ops (alloc, constant, view) that can move there too; and no
  op in between writes bytes it reads, or reads or writes bytes it writes (views
  resolved to the bytes they alias).

The group replaces the anchor; its members move into it in program order. Nothing is
decided by set or dict order or object ids, so a module always groups the same way.
Existing groups are left alone, so a second run changes nothing.

Run it before the buffer plan (`share-buffers`), as `lumir-pipeline` does: once
intermediates share bytes, a later matmul's D often holds bytes an earlier op still
reads, and the dependence check above (rightly) keeps it where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from lumir.diagnostics import copy_location
from lumir.dialects.cublaslt_rt import (
    AllocOp,
    ConstantOp,
    FusedLaunchOp,
    LaunchOp,
    MatmulGroupOp,
    MatmulOp,
    ViewOp,
    matmul_group_problems,
    overlap,
)
from lumir.plan_algorithms import GEMV_GROUP_MAX

LOAD_TIME_OPS = (AllocOp, ConstantOp, ViewOp)
"""Ops that do all their work when a program is loaded (a buffer, a literal, an alias):
where they stand among the launches changes nothing at run time."""


@dataclass(frozen=True)
class Access:
    """The buffers an op reads and writes when it runs; `everything` for an op the pass
    does not know, which no matmul may move across."""

    reads: tuple[SSAValue, ...] = ()
    writes: tuple[SSAValue, ...] = ()
    everything: bool = False

    def touches(self, values: Sequence[SSAValue], *, writes_only: bool) -> bool:
        """Whether this op writes (or, unless `writes_only`, reads) bytes of `values`."""
        if self.everything:
            return True
        mine = self.writes if writes_only else (*self.reads, *self.writes)
        return any(overlap(mine_value, value) for mine_value in mine for value in values)


def access(op: Operation) -> Access:
    """What `op` reads and writes at run time (nothing, for a load-time op)."""
    if isinstance(op, LOAD_TIME_OPS):
        return Access()
    if isinstance(op, MatmulOp):
        return Access(tuple(v for _, v in op.read_operands()), (op.d,))
    if isinstance(op, MatmulGroupOp):
        members = op.members()
        reads = tuple(v for member in members for _, v in member.read_operands())
        return Access(reads, tuple(member.d for member in members))
    if isinstance(op, LaunchOp):
        return Access(tuple(op.inputs), (op.output,))
    if isinstance(op, FusedLaunchOp):
        return Access(tuple(op.inputs), tuple(op.outputs))
    return Access(everything=True)


def _runs_gemv(op: Operation) -> bool:
    if not isinstance(op, MatmulOp):
        return False
    plan = op.plan_op()
    return plan is not None and plan.algorithm.data == "gemv"


class _Function:
    """One function's block while it is being grouped: positions, kept up to date."""

    def __init__(self, block: Block) -> None:
        self.block = block
        self.position: dict[Operation, int] = {}
        self.renumber()

    def renumber(self) -> None:
        self.position = {op: index for index, op in enumerate(self.block.ops)}

    def before(self, value: SSAValue, anchor: Operation) -> bool:
        """Whether `value` is defined above `anchor` (a block argument always is)."""
        if isinstance(value, BlockArgument):
            return value.block is self.block
        owner = value.owner
        return owner in self.position and self.position[owner] < self.position[anchor]

    def definitions_to_move(self, op: MatmulOp, anchor: Operation) -> list[Operation] | None:
        """The load-time ops that define `op`'s operands below `anchor` and must move
        above it with `op`, in program order; None when an operand is computed there."""
        found: list[Operation] = []
        pending = list(op.operands)
        while pending:
            value = pending.pop()
            if self.before(value, anchor):
                continue
            owner = value.owner
            if not isinstance(owner, LOAD_TIME_OPS) or owner not in self.position:
                return None
            if owner not in found:
                found.append(owner)
                pending.extend(owner.operands)
        return sorted(found, key=self.position.__getitem__)

    def crossed(self, start: Operation, stop: Operation) -> list[Operation]:
        """The ops strictly between `start` and `stop`, in program order."""
        ops = list(self.block.ops)
        return ops[self.position[start] + 1 : self.position[stop]]


def _can_move_above(op: MatmulOp, crossed: Sequence[Operation]) -> bool:
    """Whether `op` may run before every op of `crossed` instead of after them: none of
    them writes what it reads, or reads or writes what it writes."""
    reads, writes = [v for _, v in op.read_operands()], [op.d]
    for other in crossed:
        effects = access(other)
        if effects.touches(writes, writes_only=False):
            return False
        if effects.touches(reads, writes_only=True):
            return False
    return True


def group_function(func: FuncOp) -> int:
    """Group `func`'s GEMV matmuls in place (see the module doc); returns the groups made."""
    if not func.body.blocks:
        return 0
    state = _Function(func.body.block)
    candidates = [op for op in func.body.block.ops if _runs_gemv(op)]
    taken: set[Operation] = set()  # membership only, never iterated
    made = 0
    for index, anchor in enumerate(candidates):
        if anchor in taken:
            continue
        assert isinstance(anchor, MatmulOp)
        members = [anchor]
        for later in candidates[index + 1 :]:
            if len(members) == GEMV_GROUP_MAX:
                break
            assert isinstance(later, MatmulOp)
            if later in taken or later.b is not anchor.b:
                continue
            if matmul_group_problems([*members, later]):
                continue
            moved = state.definitions_to_move(later, anchor)
            if moved is None or not _can_move_above(later, state.crossed(members[-1], later)):
                continue
            for definition in moved:
                definition.detach()
                state.block.insert_op_before(definition, anchor)
            later.detach()
            state.block.insert_op_after(later, members[-1])
            state.renumber()
            members.append(later)
        if len(members) > 1:
            after = members[-1].next_op  # the members stand together, the return after them
            assert after is not None
            group = MatmulGroupOp(members)
            copy_location(anchor, group)
            state.block.insert_op_before(group, after)
            state.renumber()
            taken.update(members)
            made += 1
    return made


@dataclass(frozen=True)
class GroupGemvPass(ModulePass):
    """Run the GEMV matmuls that read one activation as one launch (cublaslt_rt.matmul_group).

    A decode step's small GEMVs are bound by launch latency, and concatenating their
    weights at load time would hide later in-place changes of a weight from the
    compiled program, so independent `algorithm = "gemv"` matmuls of a function that
    read the same B become the members of one `cublaslt_rt.matmul_group`: one launch of
    the grouped GEMV kernel on CUDA, which reads each member's weight where it lives and
    writes each member's D bit for bit as its own launch would (same block shape, same
    order of sums), and the members one by one on the CPU. Groups form greedily in
    program order, anchored at their first member; a later matmul joins when the group
    still verifies and it can move up to the anchor without crossing a write of what it
    reads or an access to what it writes. Run it on lowered IR before the buffer plan
    (`share-buffers`), as lumir-pipeline does when `gemv` and `group_gemv` are on. See
    docs/runtime.md, "The grouped GEMV".
    """

    name = "group-gemv"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.ops:
            if isinstance(func, FuncOp):
                group_function(func)


__all__ = ["GroupGemvPass", "access", "group_function"]
