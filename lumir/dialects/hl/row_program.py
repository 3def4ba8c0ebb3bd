"""The row-program model: what one generated kernel can compute, row by row.

A fused body is a row program when its values share one *row domain* `[rows..., hidden]`:

- every value's leading dimensions broadcast to `rows...` (the leading dimensions of all
  of them), and its last dimension, its *width*, is at most `hidden` (the widest one);
  a width-1 value is one scalar per row, broadcast along the row;
- every reduction and softmax is over the last dimension of a value of width `hidden`,
  with keepdim;
- every result covers every row (its leading dimensions are `rows...`).

The kernel program of a row holds each value as registers indexed by a column lane
`cols` in `[0, BLOCK)`. Beyond elementwise ops, three data-movement ops are part of the
model because on a row they only move the column (or row) a load reads:

- `hl.transpose` of a kernel input (a block argument) whose permutation keeps the last
  dimension in place is a load of that input with permuted row strides. Only kernel
  inputs: a computed value's rows are in other programs' registers.
- `hl.slice` on the last dimension with step 1 reads column `start + j` of its operand
  at column `j`; it must keep at least two columns of a wider operand (one column would
  be a broadcast scalar read at a fixed column, which the kernel does not emit).
- `hl.cat` on the last dimension is, at column `j`, piece `i` at column `j - offset_i`
  for the piece whose column range holds `j` (`tl.where` on the column).

So every value is evaluated at a column *shift* `k` (at lanes `cols + k`): the yielded
values at 0, a slice's operand at its shift plus `start`, a cat's pieces at its shift
minus their offsets, an elementwise op's operands at its own shift, a reduction's or
softmax's operand at 0 (a width-1 value at any shift is itself at 0). An input is loaded
once per shift it is needed at, with a mask for the columns it has; an op is computed
once per shift. Lanes outside a value's columns hold garbage that no slice, cat, store
or (masked) reduction ever selects. A softmax keeps its row in registers, so its result
is only read at shift 0, and a value is read at no more than `MAX_SHIFTS` shifts (the
kernel text grows with each).

`row_program` computes this (domain and shifts) or says what breaks it; the verifier of
`hl.fused`, the fuse-kernels pass and the Triton generator all use it, so a group the
pass forms is one the generator compiles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from lumir.dialects.hl.base import int_list, int_value

FUSABLE_ELEMENTWISE = (
    "hl.add",
    "hl.sub",
    "hl.mul",
    "hl.div",
    "hl.pow",
    "hl.maximum",
    "hl.minimum",
    "hl.neg",
    "hl.rsqrt",
    "hl.sqrt",
    "hl.exp",
    "hl.log",
    "hl.abs",
    "hl.relu",
    "hl.silu",
    "hl.sigmoid",
    "hl.tanh",
    "hl.cast",
)
"""Elementwise ops a fused kernel computes (binary ones with broadcasting)."""

FUSABLE_REDUCTIONS = ("hl.sum", "hl.mean", "hl.amax")
"""Reductions a fused kernel computes, over the last dimension with keepdim."""

FUSABLE_MOVES = ("hl.transpose", "hl.slice", "hl.cat")
"""Data movement a fused kernel does by where it loads (see the module docstring)."""

FUSABLE = (
    *FUSABLE_ELEMENTWISE,
    *FUSABLE_REDUCTIONS,
    "hl.softmax",
    *FUSABLE_MOVES,
    "hl.constant",
)
"""Every op name a fused body may hold (`hl.constant` only with one element)."""

FLOAT_TYPES = ("f16", "bf16", "f32")
"""Element types a fused kernel loads and stores (it computes in f32)."""

MAX_SHIFTS = 8
"""The most column shifts one value of a fused kernel is evaluated at."""


class _Problem(Exception):
    pass


def is_elementwise(ops: Iterable[Operation]) -> bool:
    """Whether every op of a fused body is elementwise or a constant (or its hl.yield):
    each element of every result then depends on each same-shaped operand only at its
    own index. A kernel of such ops may write a result over exactly such an input
    (`cublaslt_rt.FusedLaunchOp.may_overwrite`)."""
    return all(op.name in (*FUSABLE_ELEMENTWISE, "hl.constant", "hl.yield") for op in ops)


def shape_of(value: SSAValue) -> tuple[int, ...]:
    typ = value.type
    if not isinstance(typ, TensorType):
        raise _Problem(f"operates on tensors, not {typ}")
    return tuple(typ.get_shape())


def width(value: SSAValue) -> int:
    """A value's last dimension (1 for a rank-0 value: one scalar, broadcast)."""
    shape = shape_of(value)
    return shape[-1] if shape else 1


@dataclass(frozen=True)
class RowProgram:
    """A body's row domain and the column shifts at which each value is computed."""

    lead: tuple[int, ...]
    """The leading dimensions of the row domain (one kernel program per element)."""
    hidden: int
    """The widest value's last dimension: the columns a program covers."""
    shifts: dict[SSAValue, tuple[int, ...]]
    """Each needed value (inputs and op results) -> the shifts it is read at, ascending;
    a value no result depends on is absent."""

    @property
    def domain(self) -> tuple[int, ...]:
        return (*self.lead, self.hidden)


def row_program_problem(
    ops: Sequence[Operation], inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> str | None:
    """Why `ops` over `inputs`, yielding `outputs`, is not one row program (None if it is)."""
    try:
        row_program(ops, inputs, outputs)
    except ValueError as problem:
        return str(problem)
    return None


def row_program(
    ops: Sequence[Operation], inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> RowProgram:
    """The row program of `ops` over `inputs` yielding `outputs` (ValueError: why not)."""
    try:
        return _analyse(ops, inputs, outputs)
    except _Problem as problem:
        raise ValueError(str(problem)) from None


def _analyse(
    ops: Sequence[Operation], inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> RowProgram:
    values = [*inputs, *(r for op in ops for r in op.results)]
    for value in values:
        typ = value.type
        if not isinstance(typ, TensorType) or typ.element_type.name not in FLOAT_TYPES:
            raise _Problem(f"a fused kernel computes on f16/bf16/f32 tensors, not {typ}")
    produced = {r for op in ops for r in op.results}
    for op in ops:
        _check_op(op, produced)
    lead, hidden = _domain(ops, inputs, values)
    for op in ops:
        reduces = op.name in FUSABLE_REDUCTIONS or op.name == "hl.softmax"
        if reduces and width(op.operands[0]) != hidden:
            raise _Problem(
                f"'{op.name}' in a fused kernel reduces a whole row of {hidden} elements"
            )
    for output in outputs:
        shape = shape_of(output)
        if len(shape) != len(lead) + 1 or shape[:-1] != lead or shape[-1] > hidden:
            raise _Problem(
                f"a fused result must cover every row of {[*lead, hidden]}, not have shape "
                f"{list(shape)}"
            )
    return RowProgram(lead, hidden, _shifts(ops, outputs))


def _check_op(op: Operation, produced: set[SSAValue]) -> None:
    if op.name not in FUSABLE:
        raise _Problem(f"'{op.name}' cannot be part of a fused kernel")
    if op.name == "hl.constant" and any(size != 1 for size in shape_of(op.results[0])):
        raise _Problem("only single-element constants can be part of a fused kernel")
    if op.name in FUSABLE_REDUCTIONS or op.name == "hl.softmax":
        problem = row_reduction_problem(op)
        if problem is not None:
            raise _Problem(problem)
    if op.name in FUSABLE_MOVES:
        problem = move_problem(op)
        if problem is not None:
            raise _Problem(problem)
    if op.name == "hl.transpose" and op.operands[0] in produced:
        raise _Problem("'hl.transpose' in a fused kernel permutes a kernel input only")


def move_problem(op: Operation) -> str | None:
    """Why the transpose / slice / cat `op` is not one a fused kernel does (None if it is)."""
    rank = len(shape_of(op.results[0]))
    if op.name == "hl.transpose":
        permutation = int_list(op.properties["permutation"])  # type: ignore[arg-type]
        if rank == 0 or permutation[-1] != rank - 1:
            return "'hl.transpose' in a fused kernel keeps the last dimension in place"
        return None
    dim = int_value(op.properties["dim"])
    if rank == 0 or dim % rank != rank - 1:
        return f"'{op.name}' in a fused kernel works on the last dimension only"
    if op.name == "hl.slice":
        if int_value(op.properties["step"]) != 1:
            return "'hl.slice' in a fused kernel has step 1"
        kept, source = width(op.results[0]), width(op.operands[0])
        if kept == 0 or (kept == 1 and source > 1):
            return "'hl.slice' in a fused kernel keeps at least two columns of a wider row"
    if op.name == "hl.cat" and any(width(piece) == 0 for piece in op.operands):
        return "'hl.cat' in a fused kernel concatenates non-empty pieces"
    return None


def row_reduction_problem(op: Operation) -> str | None:
    source = shape_of(op.operands[0])
    rank = len(source)
    if op.name == "hl.softmax":
        dims: tuple[int, ...] = (int_value(op.properties["dim"]),)
        keepdim = True
    else:
        dims = int_list(op.properties["dims"])  # type: ignore[arg-type]
        keepdim = "keepdim" in op.properties
    if rank == 0 or [d % rank for d in dims] != [rank - 1] or not keepdim:
        return f"'{op.name}' in a fused kernel reduces the last dimension only, with keepdim"
    return None


def _domain(
    ops: Sequence[Operation], inputs: Sequence[SSAValue], values: Sequence[SSAValue]
) -> tuple[tuple[int, ...], int]:
    """The row domain's leading dimensions and width.

    An input read only through transposes has its rows in another order: its shape is
    not part of the domain (its transposes' results are)."""
    readers: dict[SSAValue, list[Operation]] = {}
    for op in ops:
        for operand in op.operands:
            readers.setdefault(operand, []).append(op)
    permuted = {
        value
        for value in inputs
        if readers.get(value) and all(r.name == "hl.transpose" for r in readers[value])
    }
    domained = [v for v in values if v not in permuted]
    lead_rank = max((len(shape_of(v)) for v in domained), default=0) - 1
    if lead_rank < 0:
        raise _Problem("a fused kernel needs a row domain of rank 1 or more")
    lead = [1] * lead_rank
    hidden = 1
    for value in domained:
        shape = shape_of(value)
        rows = shape[:-1]
        for index, size in enumerate(rows):
            slot = lead_rank - len(rows) + index
            if size != 1:
                if lead[slot] not in (1, size):
                    raise _Problem(f"shapes do not broadcast: {list(shape)} vs {[*lead, hidden]}")
                lead[slot] = size
        hidden = max(hidden, width(value))
    return tuple(lead), hidden


def _shifts(
    ops: Sequence[Operation], outputs: Sequence[SSAValue]
) -> dict[SSAValue, tuple[int, ...]]:
    """The column shifts each value is needed at, from the results back to the inputs."""
    needed: dict[SSAValue, set[int]] = {}

    def need(value: SSAValue, shift: int) -> None:
        needed.setdefault(value, set()).add(0 if width(value) == 1 else shift)

    for output in outputs:
        need(output, 0)
    for op in reversed(ops):
        shifts = sorted(needed.get(op.results[0], ()))
        if op.name == "hl.softmax" and shifts not in ([], [0]):
            raise _Problem(
                "a softmax in a fused kernel is read at its own columns only "
                "(not sliced, nor concatenated after another piece)"
            )
        if len(shifts) > MAX_SHIFTS:
            raise _Problem(
                f"a value of a fused kernel is read at more than {MAX_SHIFTS} column offsets"
            )
        for shift in shifts:
            _need_operands(op, shift, need)
    return {value: tuple(sorted(shifts)) for value, shifts in needed.items()}


def _need_operands(op: Operation, shift: int, need: Callable[[SSAValue, int], None]) -> None:
    if op.name == "hl.constant" or op.name == "hl.transpose":
        return  # a literal; a load of the kernel input with permuted strides
    if op.name in FUSABLE_REDUCTIONS or op.name == "hl.softmax":
        need(op.operands[0], 0)
    elif op.name == "hl.slice":
        source = op.operands[0]
        start = slice_start(op)
        need(source, shift + start)
    elif op.name == "hl.cat":
        for piece, offset in zip(op.operands, cat_offsets(op), strict=True):
            need(piece, shift - offset)
    else:
        for operand in op.operands:
            need(operand, shift)


def slice_start(op: Operation) -> int:
    """The first column an `hl.slice` on the last dimension keeps (Python's clamping)."""
    bounds = (int_value(op.properties[name]) for name in ("start", "end", "step"))
    return slice(*bounds).indices(width(op.operands[0]))[0]


def cat_offsets(op: Operation) -> list[int]:
    """The first column of each piece of an `hl.cat` on the last dimension."""
    offsets, total = [], 0
    for piece in op.operands:
        offsets.append(total)
        total += width(piece)
    return offsets


__all__ = [
    "FLOAT_TYPES",
    "FUSABLE",
    "FUSABLE_ELEMENTWISE",
    "FUSABLE_MOVES",
    "FUSABLE_REDUCTIONS",
    "MAX_SHIFTS",
    "RowProgram",
    "cat_offsets",
    "move_problem",
    "row_program",
    "row_program_problem",
    "row_reduction_problem",
    "slice_start",
    "width",
]
