"""Checks of a module's structure that no single op's verifier makes: dominance and symbols.

xDSL's parser accepts a value used before it is defined (`%y = hl.add %y, %x`, or a use
above the definition: it keeps forward references for graph regions), and an op
verifier only looks at its own operands' types, so such IR would reach the passes and
the interpreter. MLIR refuses it in the verifier ("operand does not dominate this use");
lumir does the same here, for the single-block regions its dialects use.

A region of several blocks is refused, at the first op of its second block: lumir's
dialects have no branch op (a CFG needs `cf`, which lumir does not load), so every block
after the first is unreachable, and the passes and executors read a function as its one
block (`lumir-run` of a second `^bb1:` block raised "'block' property of Region class is
only available for single-block regions").

A duplicate symbol (`func.func @f` twice) fails xDSL's `SymbolTable` check on the
enclosing module, which is often the implicit module with no location; it is reported
here at the second definition instead.

Each check yields `(op, message)`: the op the problem is located at, and what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import FileLineColLoc, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import SymbolTable


def structural_problems(module: Operation) -> Iterator[tuple[Operation, str]]:
    """Every dominance, block and symbol problem in `module`, in walk order."""
    order = _BlockOrder()
    for op in module.walk():
        for region in op.regions:
            if len(region.blocks) > 1:
                second = region.blocks[1]
                yield (
                    second.first_op or op,
                    (
                        f"a region of '{op.name}' has {len(region.blocks)} blocks, but "
                        f"lumir has no branch ops, so a block after the first can never "
                        f"run: write the region as one block"
                    ),
                )
        for index, operand in enumerate(op.operands):
            if not _dominates(operand, op, order):
                yield (
                    op,
                    (
                        f"operand #{index} of '{op.name}' ({_describe(operand)}) is used "
                        f"before it is defined: a value must be defined above its uses"
                    ),
                )
        if op.has_trait(SymbolTable):
            yield from _duplicate_symbols(op)


class _BlockOrder:
    """The position of each op in its block, computed once per block on demand."""

    def __init__(self) -> None:
        self._positions: dict[Block, dict[Operation, int]] = {}

    def position(self, op: Operation, block: Block) -> int:
        positions = self._positions.get(block)
        if positions is None:
            positions = {member: index for index, member in enumerate(block.ops)}
            self._positions[block] = positions
        return positions[op]


def _dominates(value: SSAValue, user: Operation, order: _BlockOrder) -> bool:
    """Whether `value` is defined before `user` (or an op enclosing it) in its block."""
    if isinstance(value, BlockArgument):
        block = value.block
        defining = None
    elif isinstance(value, OpResult):
        defining = value.op
        block = defining.parent_block()
        if block is None:
            return False
    else:
        return False  # a placeholder the parser never resolved
    region = block.parent
    if region is not None and len(region.blocks) > 1:
        return True  # refused as a whole (see the module docstring)
    ancestor: Operation | None = user
    while ancestor is not None and ancestor.parent_block() is not block:
        ancestor = ancestor.parent_op()
    if ancestor is None:
        return False
    if defining is None:
        return True
    if ancestor is defining:
        return False
    return order.position(defining, block) < order.position(ancestor, block)


def _describe(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else f"a value of type {value.type}"


def _duplicate_symbols(table: Operation) -> Iterator[tuple[Operation, str]]:
    first: dict[str, Operation] = {}
    for region in table.regions:
        for block in region.blocks:
            for op in block.ops:
                name = op.attributes.get("sym_name") or op.properties.get("sym_name")
                if not isinstance(name, StringAttr):
                    continue
                if name.data in first:
                    yield (
                        op,
                        (f"redefinition of symbol @{name.data}{_defined_where(first[name.data])}"),
                    )
                else:
                    first[name.data] = op


def _defined_where(op: Operation) -> str:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f" (first defined at line {loc.line.data})"
    return ""
