"""The buffer plan: intermediates whose lifetimes do not overlap share memory.

After bufferization every intermediate of a function is its own `cublaslt_rt.alloc`,
so a program holds every value it ever computes at once. The plan places them instead
in one arena, `%arena = cublaslt_rt.alloc : memref<Nxi8>`, each intermediate becoming a
`cublaslt_rt.view` of it at a byte offset, so that two values share bytes only when one
is dead before the other is first written.

- Lifetimes are op positions in the function's body: from the alloc to the last op that
  reads or writes the buffer or any view of it (a reshape view keeps its source alive).
- Placement packs intervals: each buffer takes the lowest offset, aligned to
  `ALIGNMENT` bytes, that clears every buffer already placed whose lifetime meets its
  own. Buffers are taken in two orders, program order and largest first (ties in
  program order), and the smaller arena wins, program order on a tie: largest first
  avoids the holes small long-lived buffers leave between large ones (a 1B Llama at
  1024 tokens: 44.25 MiB in program order, 40.25 largest first, which is every byte
  live at its MLP). Neither order depends on hashing, so the same function always
  gets the same plan.
- In place: an output of a `cublaslt_rt.fused_launch` takes the bytes of an input that
  dies at that launch (the two are one slot of the packing), when it is that input's
  whole buffer, the launch may write over it (`FusedLaunchOp.may_overwrite`: same
  type, an elementwise body) and no other input of the launch reads those bytes (a
  view of the same buffer, as in `y + y[1]`, reads them at other indices; nor does
  another member of its `cublaslt_rt.fused_group`, which runs at the same time). A Llama
  MLP's SiLU(gate) * up is written over gate, so its three [tokens, intermediate]
  buffers need two places instead of three (a 1B model at 1024 tokens: 16 MiB less).
- Function arguments, constants and every buffer a result is (or is a view of) are
  never placed: the caller owns arguments and reads results after the call. Nor is an
  arena already (bytes used only through views): so a second run changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType, i8
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from lumir.diagnostics import copy_location
from lumir.dialects.cublaslt_rt import (
    AllocOp,
    ConstantOp,
    FusedGroupOp,
    FusedLaunchOp,
    ViewOp,
    buffer_bytes,
    byte_range,
)

ALIGNMENT = 256
"""Every placed buffer starts on a 256-byte boundary: what cuBLASLt's fastest kernels
want of their pointers (and what torch's CUDA allocator gives a fresh tensor)."""


@dataclass(frozen=True)
class Placement:
    """One intermediate in the arena: bytes [offset, offset + size), live until op `last`."""

    alloc: AllocOp
    offset: int
    size: int
    last: int


def _aligned(size: int) -> int:
    return -(-size // ALIGNMENT) * ALIGNMENT


def _position(op: Operation, position: dict[Operation, int]) -> int:
    """The position of `op`, or of the function-level op it is nested in (a member of a
    `cublaslt_rt.matmul_group` runs when its group does)."""
    while op not in position:
        parent = op.parent_op()
        assert parent is not None, f"{op.name} is not inside the function"
        op = parent
    return position[op]


def _last_use(value: SSAValue, position: dict[Operation, int]) -> int:
    """The last op position that touches `value` or a view of it."""
    last = position[value.owner] if isinstance(value.owner, Operation) else -1
    for use in value.uses:
        last = max(last, _position(use.operation, position))
        if isinstance(use.operation, ViewOp):
            last = max(last, _last_use(use.operation.result, position))
    return last


def _returned_roots(func: FuncOp) -> set[SSAValue]:
    roots: set[SSAValue] = set()
    for op in func.body.block.ops:
        if isinstance(op, ReturnOp):
            roots.update(byte_range(value)[0] for value in op.arguments)
    return roots


def _is_arena(alloc: AllocOp) -> bool:
    """Whether `alloc` is an arena (this plan's, from an earlier run): bytes (`i8`, one
    dimension) only ever used through views, holding no value of its own, so not placed
    again. A typed buffer written and read only through views (an output that
    chunk-rows fills by row windows) is a value and is placed like any other."""
    buffer_type = alloc.memref.type
    assert isinstance(buffer_type, MemRefType)
    uses = list(alloc.memref.uses)
    return (
        buffer_type.element_type == i8
        and len(buffer_type.get_shape()) == 1
        and bool(uses)
        and all(isinstance(use.operation, ViewOp) for use in uses)
    )


@dataclass(frozen=True)
class _Slot:
    """Bytes that one intermediate holds, then each one written over it in place in
    turn (`allocs`, with the last use of each in `lasts`): live from the first alloc's
    position to the last member's last use."""

    allocs: tuple[AllocOp, ...]
    lasts: tuple[int, ...]
    size: int
    first: int

    @property
    def last(self) -> int:
        return self.lasts[-1]


@dataclass(frozen=True)
class _Member:
    """An intermediate already grouped: its last use and the index of its slot."""

    last: int
    slot: int


def _overwritten(
    alloc: AllocOp,
    position: dict[Operation, int],
    members: dict[SSAValue, _Member],
    taken: set[SSAValue],
) -> _Member | None:
    """The earlier intermediate whose bytes `alloc` may take over in place, if any: the
    whole buffer of an input of the fused launch that first touches `alloc` (writing
    it), dying at that launch."""
    # Uses are a set: the first by position, so the plan never depends on hashing.
    launch = min(
        (use.operation for use in alloc.memref.uses),
        key=lambda op: _position(op, position),
        default=None,
    )
    if not isinstance(launch, FusedLaunchOp) or alloc.memref not in launch.outputs:
        return None
    roots = [byte_range(value)[0] for value in launch.inputs]
    # The other members of a grouped fused launch run at the same time as this one: an
    # input one of them also reads is not this launch's to write over.
    group = launch.parent_op()
    siblings = group.members() if isinstance(group, FusedGroupOp) else []
    shared = [
        byte_range(value)[0] for other in siblings if other is not launch for value in other.inputs
    ]
    for index, value in enumerate(launch.inputs):
        root, start, end = byte_range(value)
        source = members.get(root)
        if (
            source is None
            or root in taken
            or (start, end) != (0, buffer_bytes(root.type))  # type: ignore[arg-type]
            or source.last != _position(launch, position)
            or not launch.may_overwrite(alloc.memref, value)
            # another input reads the same bytes at other indices (`y + y[1]` reads row
            # 1 for every row): writing row 0 first would change what it reads
            or any(other is root for i, other in enumerate(roots) if i != index)
            or any(other is root for other in shared)
        ):
            continue
        taken.add(root)
        return source
    return None


def _slots(func: FuncOp, position: dict[Operation, int]) -> list[_Slot]:
    """The function's placeable intermediates grouped into slots, in program order."""
    returned = _returned_roots(func)
    groups: list[list[AllocOp]] = []
    lasts: list[list[int]] = []
    sizes: list[int] = []
    members: dict[SSAValue, _Member] = {}
    taken: set[SSAValue] = set()
    for op in func.body.block.ops:
        if not isinstance(op, AllocOp) or op.memref in returned or _is_arena(op):
            continue
        size = _aligned(buffer_bytes(op.memref.type))
        if size == 0:
            continue
        source = _overwritten(op, position, members, taken)
        if source is None:
            slot = len(groups)
            groups.append([])
            lasts.append([])
            sizes.append(size)
        else:
            slot = source.slot
        last = _last_use(op.memref, position)
        groups[slot].append(op)
        lasts[slot].append(last)
        members[op.memref] = _Member(last, slot)
    return [
        _Slot(tuple(allocs), tuple(ends), size, position[allocs[0]])
        for allocs, ends, size in zip(groups, lasts, sizes, strict=True)
    ]


def _first_fit(taken: list[tuple[int, int]], size: int) -> int:
    """The lowest offset where `size` bytes clear every (offset, size) in `taken`."""
    offset = 0
    for other_offset, other_size in sorted(taken):
        if offset + size <= other_offset:
            break
        offset = max(offset, other_offset + other_size)
    return offset


def _pack(slots: list[_Slot]) -> dict[_Slot, int]:
    """Each slot, taken in the given order, at the lowest aligned offset that clears
    every slot already placed whose lifetime meets its own."""
    offsets: dict[_Slot, int] = {}
    for slot in slots:
        alive = [
            (offsets[other], other.size)
            for other in offsets
            if other.first <= slot.last and slot.first <= other.last
        ]
        offsets[slot] = _first_fit(alive, slot.size)
    return offsets


def _arena_size(offsets: dict[_Slot, int]) -> int:
    return max((offset + slot.size for slot, offset in offsets.items()), default=0)


def plan_buffers(func: FuncOp) -> tuple[int, list[Placement]]:
    """The arena size and each placed intermediate's offset, in program order."""
    position = {op: index for index, op in enumerate(func.body.block.ops)}
    slots = _slots(func, position)
    in_order = _pack(slots)
    largest_first = _pack(sorted(slots, key=lambda slot: (-slot.size, slot.first)))
    offsets = min(in_order, largest_first, key=_arena_size)  # a tie keeps program order
    placements = [
        Placement(alloc, offsets[slot], slot.size, last)
        for slot in slots
        for alloc, last in zip(slot.allocs, slot.lasts, strict=True)
    ]
    placements.sort(key=lambda placement: position[placement.alloc])
    return _arena_size(offsets), placements


def share_buffers(func: FuncOp) -> None:
    """Rewrite `func`'s intermediates into views of one arena, as `plan_buffers` places them."""
    size, placements = plan_buffers(func)
    if not placements:
        return
    block = func.body.block
    arena = AllocOp(MemRefType(i8, [size]))
    arena.memref.name_hint = "arena"
    copy_location(func, arena)
    block.insert_op_before(arena, block.first_op)
    for placement in placements:
        alloc = placement.alloc
        assert isinstance(alloc.memref.type, MemRefType)
        view = ViewOp(arena.memref, placement.offset, alloc.memref.type)
        copy_location(alloc, view)
        Rewriter.replace_op(alloc, view)


def allocated_bytes(func: FuncOp) -> int:
    """Bytes a loaded program of `func` allocates: its arguments, allocs and constants."""
    total = sum(buffer_bytes(arg.type) for arg in func.body.block.args)  # type: ignore[arg-type]
    for op in func.body.block.ops:
        if isinstance(op, AllocOp | ConstantOp):
            total += buffer_bytes(op.memref.type)  # type: ignore[arg-type]
    return total
