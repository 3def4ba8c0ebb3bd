"""`hl.fused` and `hl.yield`: a chain of elementwise and row-reduction ops as one kernel.

`%r:2 = hl.fused(%x, %w) : (T0, T1) -> (R0, R1) { ^bb0(%a: T0, %b: T1): ... hl.yield %p, %q }`
holds a body of ordinary `hl` ops over its block arguments (the fused op's operands) and
yields its results. It means exactly what the body means op by op (so the reference
executor runs the body unchanged), but it is one launch: `fuse-kernels` forms it and, on
CUDA, it runs as one generated Triton kernel (`lumir.runtime.triton_codegen`).

What one kernel can compute is a *row program*: every value of the body broadcasts to
one row domain `[rows..., hidden]` (the broadcast of all of them); every reduction and
softmax is over the last dimension of an operand spanning the whole row, with keepdim,
so a value is either a full row or one scalar per row; each result covers every row
(its leading dimensions are the domain's). One kernel program per row can then load
its row, compute in registers and store each result. `row_program_problem` checks this
(the verifier and the pass share it).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from lumir.dialects.hl.base import int_list, int_value

FUSABLE_ELEMENTWISE = (
    "hl.add",
    "hl.sub",
    "hl.mul",
    "hl.div",
    "hl.pow",
    "hl.maximum",
    "hl.neg",
    "hl.rsqrt",
    "hl.sqrt",
    "hl.exp",
    "hl.relu",
    "hl.silu",
    "hl.sigmoid",
    "hl.tanh",
    "hl.cast",
)
"""Elementwise ops a fused kernel computes (binary ones with broadcasting)."""

FUSABLE_REDUCTIONS = ("hl.sum", "hl.mean", "hl.amax")
"""Reductions a fused kernel computes, over the last dimension with keepdim."""

FUSABLE = (*FUSABLE_ELEMENTWISE, *FUSABLE_REDUCTIONS, "hl.softmax", "hl.constant")
"""Every op name a fused body may hold (`hl.constant` only with one element)."""

FLOAT_TYPES = ("f16", "bf16", "f32")
"""Element types a fused kernel loads and stores (it computes in f32)."""


def _shape(value: SSAValue) -> tuple[int, ...]:
    typ = value.type
    if not isinstance(typ, TensorType):
        raise _Problem(f"operates on tensors, not {typ}")
    return tuple(typ.get_shape())


class _Problem(Exception):
    pass


def row_domain(values: Sequence[SSAValue]) -> tuple[int, ...]:
    """The broadcast of the shapes of `values` (raises ValueError if they do not broadcast)."""
    rank = max((len(_shape(v)) for v in values), default=0)
    domain = [1] * rank
    for value in values:
        shape = _shape(value)
        for index, size in enumerate(shape):
            slot = rank - len(shape) + index
            if size != 1:
                if domain[slot] not in (1, size):
                    raise ValueError(f"shapes do not broadcast: {list(shape)} vs {domain}")
                domain[slot] = size
    return tuple(domain)


def row_program_problem(
    ops: Sequence[Operation], inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> str | None:
    """Why `ops` over `inputs`, yielding `outputs`, is not one row program (None if it is)."""
    try:
        return _row_problem(ops, inputs, outputs)
    except _Problem as problem:
        return str(problem)


def _row_problem(
    ops: Sequence[Operation], inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> str | None:
    values = [*inputs, *(r for op in ops for r in op.results)]
    for value in values:
        typ = value.type
        if not isinstance(typ, TensorType) or typ.element_type.name not in FLOAT_TYPES:
            return f"a fused kernel computes on f16/bf16/f32 tensors, not {typ}"
    for op in ops:
        if op.name not in FUSABLE:
            return f"'{op.name}' cannot be part of a fused kernel"
        if op.name == "hl.constant" and _element_count(op.results[0]) != 1:
            return "only single-element constants can be part of a fused kernel"
        if op.name in FUSABLE_REDUCTIONS or op.name == "hl.softmax":
            problem = row_reduction_problem(op)
            if problem is not None:
                return problem
    try:
        domain = row_domain(values)
    except ValueError as error:
        return str(error)
    if not domain:
        return "a fused kernel needs a row domain of rank 1 or more"
    hidden = domain[-1]
    for op in ops:
        reduces = op.name in FUSABLE_REDUCTIONS or op.name == "hl.softmax"
        if reduces and _shape(op.operands[0])[-1] != hidden:
            return f"'{op.name}' in a fused kernel reduces a whole row of {hidden} elements"
    for output in outputs:
        shape = _shape(output)
        if len(shape) != len(domain) or shape[:-1] != domain[:-1] or shape[-1] not in (1, hidden):
            return (
                f"a fused result must cover every row of {list(domain)}, not have shape "
                f"{list(shape)}"
            )
    return None


def _element_count(value: SSAValue) -> int:
    count = 1
    for size in _shape(value):
        count *= size
    return count


def row_reduction_problem(op: Operation) -> str | None:
    source = _shape(op.operands[0])
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


def body_problem(
    block: Block, operand_types: Sequence[object], result_types: Sequence[object]
) -> str | None:
    """What is wrong with a fused body whose region-holder has these operand/result types."""
    if [arg.type for arg in block.args] != list(operand_types):
        return "the body's arguments must have the operands' types"
    terminator = block.last_op
    if not isinstance(terminator, YieldOp):
        return "the body must end with hl.yield"
    if [v.type for v in terminator.values] != list(result_types):
        return "hl.yield must yield values of the result types"
    ops = [op for op in block.ops if op is not terminator]
    return row_program_problem(ops, list(block.args), list(terminator.values))


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The results of a fused body (`hl.fused` or `cublaslt_rt.fused_launch`)."""

    name = "hl.yield"

    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[list(values)])

    def verify_(self) -> None:
        parent = self.parent_op()
        if parent is None or parent.name not in ("hl.fused", "cublaslt_rt.fused_launch"):
            raise VerifyException(
                "'hl.yield' ends the body of an hl.fused or cublaslt_rt.fused_launch"
            )


@irdl_op_definition
class FusedOp(IRDLOperation):
    """A row program of elementwise and reduction ops, run as one kernel (see the module)."""

    name = "hl.fused"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(Pure())
    assembly_format = "`(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body"

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[object], body: Region):
        super().__init__(operands=[list(inputs)], result_types=[list(result_types)], regions=[body])

    def verify_(self) -> None:
        if not self.outputs:
            raise VerifyException("'hl.fused' must have at least one result")
        problem = body_problem(
            self.body.block,
            [v.type for v in self.inputs],
            [r.type for r in self.outputs],
        )
        if problem is not None:
            raise VerifyException(f"'hl.fused' {problem}")


__all__ = [
    "FUSABLE",
    "FusedOp",
    "YieldOp",
    "body_problem",
    "row_domain",
    "row_program_problem",
]
