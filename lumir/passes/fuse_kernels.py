"""fuse-kernels: group the chains of non-GEMM ops between GEMMs into `hl.fused` kernels.

At small batch a transformer layer's time is its launches, not its FLOPs: an RMSNorm
alone is seven kernels (cast, pow, mean, add eps, rsqrt, mul, cast, mul weight) around
two GEMMs. This pass runs after `cublaslt-verify`, when the GEMM fusion has taken what
it wants (residual adds into beta * C, bias and activation epilogues), and turns each
maximal connected chain of the remaining elementwise ops, casts, last-dimension
reductions and softmaxes into one `hl.fused` op: one launch, one generated kernel. The
row movement a kernel does by where it loads joins too: a transpose of a group input
that keeps the last dimension, last-dimension slices (step 1) and cats (Llama's rotary
embedding: transpose, rotate-half, `q * cos + rotate_half(q) * sin`, in one kernel).

A unary elementwise op whose only reader is an `hl.reshape`, and whose operand no fusable
op computes, first trades places with the reshape (`_sink_unary_below_reshapes`): the
extractor may leave an RMSNorm's cast to f32 on the GEMM's 2-D result and the reshape to
the model's 3-D shape after it (both orders cost the same to it), and a reshape ends a
chain, so the cast would be a launch of its own in front of the norm's kernel. Below the
reshape it joins the kernel; the values are the same, element for element.

Grouping is greedy in program order, so the same function always gives the same groups:
each fusable op joins the groups of the fusable ops that produce its operands, one group
at a time in the order they were formed, when

- the merged group is still a row program (`lumir.dialects.hl.fused`), and
- no op outside the group reads one of its values before the op that joins (the fused op
  takes the place of its last member, so every outside reader must come after it).

Single-element `hl.constant` operands (a pow's exponent, an epsilon) are copied into the
body; an original left without readers is erased. A group of one op stays as it was: a
kernel of its own either way; so does a group none of whose values is read (dead code).
Values of a group read outside it are its results, in program order; the body's
arguments are its outside operands in order of first use.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lumir.diagnostics import copy_location
from lumir.dialects import hl
from lumir.dialects.hl.row_program import (
    FLOAT_TYPES,
    FUSABLE_ELEMENTWISE,
    FUSABLE_MOVES,
    FUSABLE_REDUCTIONS,
    move_problem,
    row_program_problem,
    row_reduction_problem,
)


def _float_tensor(value: SSAValue) -> bool:
    typ = value.type
    return isinstance(typ, TensorType) and typ.element_type.name in FLOAT_TYPES


def _single_constant(value: SSAValue) -> bool:
    owner = value.owner
    if not isinstance(owner, hl.ConstantOp):
        return False
    typ = value.type
    return isinstance(typ, TensorType) and all(size == 1 for size in typ.get_shape())


def fusable(op: Operation) -> bool:
    """Whether `op` may be part of a fused kernel (alone it is checked as a row program)."""
    if op.name not in (*FUSABLE_ELEMENTWISE, *FUSABLE_REDUCTIONS, "hl.softmax", *FUSABLE_MOVES):
        return False
    values = [*op.operands, *op.results]
    if not all(_float_tensor(v) for v in values):
        return False
    if not all(len(r.type.get_shape()) >= 1 for r in op.results):  # type: ignore[attr-defined]
        return False
    if isinstance(op, hl.PowOp) and not _single_constant(op.rhs):
        return False  # the generated kernel raises to literal exponents only
    if op.name in FUSABLE_REDUCTIONS or op.name == "hl.softmax":
        return row_reduction_problem(op) is None
    if op.name in FUSABLE_MOVES:
        return move_problem(op) is None
    return True


@dataclass
class _Group:
    ops: list[Operation]


def _inputs(ops: list[Operation]) -> list[SSAValue]:
    """The outside operands of `ops` (constants included), in order of first use."""
    members = set(ops)
    seen: dict[SSAValue, None] = {}
    for op in ops:
        for operand in op.operands:
            if operand.owner not in members:
                seen.setdefault(operand, None)
    return list(seen)


def _outputs(ops: list[Operation]) -> list[SSAValue]:
    """The values of `ops` read outside them, in program order."""
    members = set(ops)
    return [
        result
        for op in ops
        for result in op.results
        if any(use.operation not in members for use in result.uses)
    ]


def _legal(ops: list[Operation], joining: Operation, position: dict[Operation, int]) -> bool:
    members = set(ops)
    limit = position[joining]
    for op in ops:
        for result in op.results:
            for use in result.uses:
                user = use.operation
                if user in members:
                    continue
                if user not in position or position[user] < limit:
                    return False
    return _row_problem(ops) is None


def _row_problem(ops: list[Operation]) -> str | None:
    """Why `ops` is no row program (None: it is one). Analysing a group is most of
    this pass's time, so `_groups` asks once per group it forms, not again after
    `_legal` has."""
    return row_program_problem(ops, _inputs(ops), _outputs(ops))


def _groups(block: Block) -> list[list[Operation]]:
    ops = list(block.ops)
    position = {op: index for index, op in enumerate(ops)}
    groups: list[_Group] = []
    group_of: dict[Operation, _Group] = {}
    for op in ops:
        if not fusable(op):
            continue
        merged = _Group([op])
        checked = False  # `merged.ops` is a trial `_legal` found a row program
        producers: list[_Group] = []
        for operand in op.operands:
            group = group_of.get(operand.owner)  # type: ignore[arg-type]
            if group is not None and all(group is not p for p in producers):
                producers.append(group)
        for group in producers:
            trial = sorted([*group.ops, *merged.ops], key=position.__getitem__)
            if _legal(trial, op, position):
                merged.ops = trial
                group.ops = []
                checked = True
        if not checked and _row_problem(merged.ops) is not None:
            continue
        groups.append(merged)
        for member in merged.ops:
            group_of[member] = merged
    # A group nothing outside reads (dead code: a pipeline's earlier passes remove it,
    # fuse-kernels run alone does not) would be an `hl.fused` without results.
    return [g.ops for g in groups if len(g.ops) >= 2 and _outputs(g.ops)]


def _fuse(ops: list[Operation]) -> None:
    members = set(ops)
    inputs = _inputs(ops)
    constants = [v for v in inputs if _single_constant(v)]
    arguments = [v for v in inputs if not _single_constant(v)]
    outputs = _outputs(ops)
    block = Block(arg_types=[v.type for v in arguments])
    mapping: dict[SSAValue, SSAValue] = {}
    for value, arg in zip(arguments, block.args, strict=True):
        arg.name_hint = value.name_hint
        mapping[value] = arg
    for op in ops:
        for operand in op.operands:
            if operand in constants and operand not in mapping:
                owner = operand.owner
                assert isinstance(owner, Operation)
                copy = owner.clone()
                block.add_op(copy)
                mapping[operand] = copy.results[0]
        copy = op.clone(value_mapper=mapping)
        block.add_op(copy)
    block.add_op(hl.YieldOp([mapping[v] for v in outputs]))
    fused = hl.FusedOp(arguments, [v.type for v in outputs], Region(block))
    last = ops[-1]
    copy_location(last, fused)
    assert last.parent is not None
    last.parent.insert_op_before(fused, last)
    for value, result in zip(outputs, fused.results, strict=True):
        result.name_hint = value.name_hint
        value.replace_uses_with_if(result, lambda use: use.operation not in members)
    for op in reversed(ops):
        Rewriter.erase_op(op)
    for value in constants:
        owner = value.owner
        if isinstance(owner, Operation) and not value.uses:
            Rewriter.erase_op(owner)


_BINARY_ELEMENTWISE = ("hl.add", "hl.sub", "hl.mul", "hl.div", "hl.pow", "hl.maximum", "hl.minimum")
_UNARY_ELEMENTWISE = tuple(name for name in FUSABLE_ELEMENTWISE if name not in _BINARY_ELEMENTWISE)
"""The fusable elementwise ops of one operand: they commute with a reshape."""


def _sinks_below(reshape: Operation) -> bool:
    """Whether the unary op feeding `reshape` should move below it: the reshape is its
    only reader, it could join no producer's kernel (its operand is a kernel input
    anyway), and every reader of the reshape may join a kernel."""
    producer = reshape.operands[0].owner
    if not isinstance(producer, Operation) or producer.name not in _UNARY_ELEMENTWISE:
        return False
    if not producer.results[0].has_one_use() or not fusable(producer):
        return False
    source = producer.operands[0].owner
    if isinstance(source, Operation) and fusable(source):
        return False
    readers = [use.operation for use in reshape.results[0].uses]
    return bool(readers) and all(fusable(reader) for reader in readers)


def _sink_unary_below_reshapes(block: Block) -> None:
    """`reshape(f(x))` -> `f(reshape(x))` where `_sinks_below` says so (module docstring)."""
    for reshape in [op for op in block.ops if isinstance(op, hl.ReshapeOp)]:
        if not _sinks_below(reshape):
            continue
        unary = reshape.operands[0].owner
        assert isinstance(unary, Operation)
        source = unary.operands[0]
        result_type = reshape.results[0].type
        assert isinstance(result_type, TensorType) and isinstance(source.type, TensorType)
        moved_type = TensorType(source.type.element_type, result_type.get_shape())
        moved = hl.ReshapeOp.create(operands=[source], result_types=[moved_type])
        applied = type(unary).create(
            operands=[moved.results[0]],
            result_types=[result_type],
            properties=dict(unary.properties),
            attributes=dict(unary.attributes),
        )
        copy_location(reshape, moved)
        copy_location(unary, applied)
        moved.results[0].name_hint = source.name_hint
        applied.results[0].name_hint = reshape.results[0].name_hint
        block.insert_ops_before([moved, applied], reshape)
        reshape.results[0].replace_all_uses_with(applied.results[0])
        Rewriter.erase_op(reshape)
        Rewriter.erase_op(unary)


def fuse_kernels(func: FuncOp) -> int:
    """Fuse `func`'s chains into `hl.fused` ops; return how many were formed."""
    if not func.body.blocks:
        return 0
    _sink_unary_below_reshapes(func.body.block)
    groups = _groups(func.body.block)
    for ops in groups:
        _fuse(ops)
    return len(groups)


@dataclass(frozen=True)
class FuseKernelsPass(ModulePass):
    """Group chains of elementwise, row-reduction and row-movement ops into hl.fused kernels."""

    name = "fuse-kernels"

    enabled: bool = True
    """Form fused kernels (false: leave every op its own launch)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.enabled:
            return
        for func in op.ops:
            if isinstance(func, FuncOp):
                fuse_kernels(func)


__all__ = ["FuseKernelsPass", "fusable", "fuse_kernels"]
