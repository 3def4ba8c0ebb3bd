"""Run the small integer launches that need nothing the program computes first.

A decode step over a `StaticCache` computes, in every layer, the position its keys and
values go to: `index_i = arange(1) + cumulative_length_i`, an i64 add that reads the
layer's own counter, a graph argument, and nothing any launch before it writes. The
backend's group-launches pass (on the program it loads) runs such independent integer
adds as one launch, but only where each can move next to the others. By then
share-buffers has placed the intermediates in one arena, and a layer's index sits in
bytes that the layers before it use: moving it up would cross their writes, so the 1B
model's 16 index adds and 16 counter adds ran as ~16 launches, ~1.5-2 µs each.

This pass runs before share-buffers and moves each such launch up to the function's
first launch, keeping their order: the buffer plan then sees each index live from
there, and the launches stand together for group-launches. The values are those of the
same launches where they stood (a launch moves only where it reads what it read there).

What moves (`moves_up`): a `cublaslt_rt.launch` whose output is an integer or boolean
buffer of at most `MAX_BYTES` that the function does not return (a returned value may
be an update the backend writes into its input in place at load time, which needs
every other reader of that input to run before it), and that can cross every op
between the first launch (or the last launch moved) and itself: none writes what it
reads or touches what it writes (`ProgramOrder.can_move_above`), and its buffers are
load-time ops that move with it. So a launch reading only arguments, constants and
launches moved before it moves; one reading anything computed in between stays.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerType, MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from lumir.dialects.cublaslt_rt import LaunchOp, buffer_bytes
from lumir.passes.program_order import LOAD_TIME_OPS, ProgramOrder

MAX_BYTES = 256
"""The largest output a moved launch may have: index arithmetic (a position, a row of
positions), whose lifetime from the first launch on costs the arena nothing that
matters."""


def moves_up(op: Operation, returned: list[SSAValue], order: ProgramOrder) -> bool:
    """Whether `op` is index arithmetic this pass moves (legality aside)."""
    if not isinstance(op, LaunchOp):
        return False
    output = op.output
    buffer_type = output.type
    assert isinstance(buffer_type, MemRefType)
    if not isinstance(buffer_type.element_type, IntegerType):
        return False
    if buffer_bytes(buffer_type) > MAX_BYTES:
        return False
    return not any(order.overlaps(output, value) for value in returned)


def hoist_function(func: FuncOp) -> int:
    """Move `func`'s index launches up (module doc); returns how many moved."""
    if not func.body.blocks:
        return 0
    block = func.body.block
    terminator = block.last_op
    returned = list(terminator.operands) if isinstance(terminator, ReturnOp) else []
    order = ProgramOrder(block)
    first = next((op for op in order.ops if not isinstance(op, LOAD_TIME_OPS)), None)
    if first is None:
        return 0
    last: Operation | None = None  # the last launch in place at the top
    moved = 0
    for op in list(order.ops):
        if not moves_up(op, returned, order):
            continue
        start = order.position[last] + 1 if last is not None else order.position[first]
        crossed = order.ops[start : order.position[op]]
        runs = [other for other in crossed if not isinstance(other, LOAD_TIME_OPS)]
        if not runs:
            last = op  # already first, or only buffers before it
            continue
        # It goes before the first op it must cross: buffers it needs that stand above
        # that op stay where they are.
        needed = order.definitions_to_move(op, crossed[0])
        if needed is None:
            continue
        place = next(other for other in crossed if other not in needed)
        crossed = crossed[crossed.index(place) :]
        effects = order.access(op)
        if not order.can_move_above(effects.reads, effects.writes, crossed):
            continue
        order.move_before(op, place)
        last = op
        moved += 1
    return moved


@dataclass(frozen=True)
class HoistIndexMathPass(ModulePass):
    """Run small integer launches that read only arguments and constants first.

    Each `cublaslt_rt.launch` with an integer or boolean output of at most 256 bytes,
    not a function result, moves up to the function's first launch when no op it
    crosses writes what it reads or touches what it writes (views resolved to bytes),
    in program order. A decode step's per-layer cache indices (`arange(1) + counter`)
    then stand together, with arena bytes of their own once share-buffers runs after
    it, so group-launches can run them as one launch at load time. Values are
    unchanged: a launch moves only past ops it does not depend on. See
    docs/passes/hoist-index-math.md.
    """

    name = "hoist-index-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.ops:
            if isinstance(func, FuncOp):
                hoist_function(func)


__all__ = ["MAX_BYTES", "HoistIndexMathPass", "hoist_function", "moves_up"]
