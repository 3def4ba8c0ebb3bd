"""What the grouping passes need to move a runtime op up to an earlier one, safely.

`group-gemv` and `group-launches` both make one launch out of ops that stand apart in a
function: the later members move up to the first (the anchor). A move is safe when the
member's operands exist at the anchor (or are load-time ops that can move there too)
and no op it crosses writes bytes it reads, or reads or writes bytes it writes, with
views resolved to the bytes they alias. Both passes ask these questions here; what an
op touches is the op's own answer (`lumir.dialects.cublaslt_rt.access`), which the group
verifier reads too, so no pass and no check can disagree about it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from lumir.diagnostics import copy_location
from lumir.dialects.cublaslt_rt import (
    Access,
    AllocOp,
    ConstantOp,
    ViewOp,
    access,
    byte_range,
)

LOAD_TIME_OPS = (AllocOp, ConstantOp, ViewOp)
"""Ops that do all their work when a program is loaded (a buffer, a literal, an alias):
where they stand among the launches changes nothing at run time."""


Range = tuple[SSAValue, int, int]
"""A buffer value's bytes: (root buffer, first byte, end byte), as `byte_range` gives."""


def _intersect(first: Range, second: Range) -> bool:
    return first[0] is second[0] and first[1] < second[2] and second[1] < first[2]


class ProgramOrder:
    """One function's block while ops move in it: positions, kept up to date, and each
    op's `access` and each value's byte range, computed once (moving an op changes
    neither; a group made of members is a new op, looked at afresh)."""

    def __init__(self, block: Block) -> None:
        self.block = block
        self.ops: list[Operation] = []
        self.position: dict[Operation, int] = {}
        self._effects: dict[Operation, Access] = {}
        self._ranges: dict[SSAValue, Range] = {}
        self._touched: dict[Operation, tuple[list[Range], list[Range]]] = {}
        self.renumber()

    def access(self, op: Operation) -> Access:
        """`access(op)`, remembered."""
        found = self._effects.get(op)
        if found is None:
            found = self._effects[op] = access(op)
        return found

    def overlaps(self, first: SSAValue, second: SSAValue) -> bool:
        """`overlap(first, second)`, with each value's byte range remembered."""
        return _intersect(self._range(first), self._range(second))

    def _range(self, value: SSAValue) -> Range:
        found = self._ranges.get(value)
        if found is None:
            found = self._ranges[value] = byte_range(value)
        return found

    def can_move_above(
        self, reads: Sequence[SSAValue], writes: Sequence[SSAValue], crossed: Sequence[Operation]
    ) -> bool:
        """Whether an op reading `reads` and writing `writes` may run before every op of
        `crossed` instead of after them: none of them writes what it reads, or reads or
        writes what it writes (an op of unknown effects touches everything)."""
        read_ranges = [self._range(v) for v in reads]
        write_ranges = [self._range(v) for v in writes]
        for other in crossed:
            found = self._touched.get(other)
            if found is None:
                effects = self.access(other)
                if effects.everything:
                    return False
                theirs_written = [self._range(v) for v in effects.writes]
                theirs = [self._range(v) for v in effects.reads] + theirs_written
                found = self._touched[other] = (theirs, theirs_written)
            theirs, theirs_written = found
            if any(_intersect(a, b) for a in theirs for b in write_ranges):
                return False
            if any(_intersect(a, b) for a in theirs_written for b in read_ranges):
                return False
        return True

    def renumber(self) -> None:
        self.ops = list(self.block.ops)
        self.position = {op: index for index, op in enumerate(self.ops)}

    def before(self, value: SSAValue, anchor: Operation) -> bool:
        """Whether `value` is defined above `anchor` (a block argument always is)."""
        if isinstance(value, BlockArgument):
            return value.block is self.block
        owner = value.owner
        return owner in self.position and self.position[owner] < self.position[anchor]

    def definitions_to_move(self, op: Operation, anchor: Operation) -> list[Operation] | None:
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
        return self.ops[self.position[start] + 1 : self.position[stop]]

    def move_after(self, op: Operation, last: Operation, anchor: Operation) -> None:
        """Move `op` to just after `last`, with the load-time definitions it needs (which
        `definitions_to_move` found) placed above `anchor`."""
        moved = self.definitions_to_move(op, anchor)
        assert moved is not None, "moved only once definitions_to_move allowed it"
        for definition in moved:
            definition.detach()
            self.block.insert_op_before(definition, anchor)
        op.detach()
        self.block.insert_op_after(op, last)
        self.renumber()

    def move_before(self, op: Operation, anchor: Operation) -> None:
        """Move `op` to just before `anchor`, the load-time definitions it needs (which
        `definitions_to_move` found) above it."""
        moved = self.definitions_to_move(op, anchor)
        assert moved is not None, "moved only once definitions_to_move allowed it"
        for definition in [*moved, op]:
            definition.detach()
            self.block.insert_op_before(definition, anchor)
        self.renumber()

    def sink_before(self, ops: Sequence[Operation], stop: Operation) -> None:
        """Move `ops` (standing together, in order) down to just before `stop`; the caller
        has checked with `can_move_above` that they may cross what stands between."""
        for op in ops:
            op.detach()
            self.block.insert_op_before(op, stop)
        self.renumber()


def group_greedily(
    block: Block,
    candidates: Callable[[Operation], bool],
    limit: int,
    joins: Callable[[ProgramOrder, list[Operation], Operation], bool],
    make_group: Callable[[list[Operation]], Operation],
    sink: bool = False,
) -> int:
    """Group ops of `block` the way both grouping passes do; returns the groups made.

    In program order, each candidate not yet grouped anchors a group, and every later
    candidate joins it (at most `limit` members) when `joins(state, members, later)` (the
    block's `ProgramOrder`, to ask about bytes) and it can
    stand with them: it moves up to the members when its operands exist there (or are
    load-time ops that can move too) and it crosses no op that writes what it reads or
    reads or writes what it writes; with `sink`, the members may instead move down to
    it under the same rule. `make_group(members)` builds the group op, which takes the
    place after the last member. Nothing depends on set or dict order or object ids.
    """
    state = ProgramOrder(block)
    found = [op for op in block.ops if candidates(op)]
    taken: set[Operation] = set()  # membership only, never iterated
    made = 0
    for index, anchor in enumerate(found):
        if anchor in taken:
            continue
        members = [anchor]
        for later in found[index + 1 :]:
            if len(members) == limit:
                break
            if later in taken or not joins(state, members, later):
                continue
            crossed = state.crossed(members[-1], later)
            effects = state.access(later)
            if state.definitions_to_move(later, anchor) is not None and state.can_move_above(
                effects.reads, effects.writes, crossed
            ):
                state.move_after(later, members[-1], anchor)
            elif sink and _members_may_sink(state, members, crossed):
                state.sink_before(members, later)
            else:
                continue
            members.append(later)
        if len(members) > 1:
            after = members[-1].next_op  # the members stand together, the return after them
            assert after is not None
            group = make_group(members)
            copy_location(anchor, group)
            block.insert_op_before(group, after)
            state.renumber()
            taken.update(members)
            made += 1
    return made


def _members_may_sink(
    state: ProgramOrder, members: list[Operation], crossed: list[Operation]
) -> bool:
    """Whether the members so far may move down past `crossed` to the next member: when
    that member reads what an op in between computes, it cannot move up, but the
    earlier members can often move down."""
    reads = [value for member in members for value in state.access(member).reads]
    writes = [value for member in members for value in state.access(member).writes]
    return state.can_move_above(reads, writes, crossed)


__all__ = [
    "LOAD_TIME_OPS",
    "ProgramOrder",
    "group_greedily",
]
