"""`hl.fused` and `hl.yield`: a chain of elementwise, row-reduction and row-movement ops
as one kernel.

`%r:2 = hl.fused(%x, %w) : (T0, T1) -> (R0, R1) { ^bb0(%a: T0, %b: T1): ... hl.yield %p, %q }`
holds a body of ordinary `hl` ops over its block arguments (the fused op's operands) and
yields its results. It means exactly what the body means op by op (so the reference
executor runs the body unchanged), but it is one launch: `fuse-kernels` forms it and, on
CUDA, it runs as one generated Triton kernel (`lumir.runtime.triton_codegen`).

What one kernel can compute is a *row program* (`lumir.dialects.hl.row_program`): every
value of the body has the leading dimensions of one row domain `[rows..., hidden]` (or
broadcasts to them) and at most `hidden` columns; every reduction and softmax is over
the last dimension of a whole row, with keepdim; each result covers every row. Besides
elementwise ops, a transpose of a kernel input that keeps the last dimension, and
slices (step 1) and cats on the last dimension are part of it: they only change where
the kernel loads. A kernel program loads its rows (one, several, or part of one: the
runtime's launch shape, `lumir.runtime.fused_tiling`), computes in registers and stores
each result. `row_program_problem` checks this (the verifier, the pass and the
generator share it).
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

from lumir.dialects.hl.row_program import (
    FLOAT_TYPES,
    FUSABLE,
    FUSABLE_ELEMENTWISE,
    FUSABLE_MOVES,
    FUSABLE_REDUCTIONS,
    row_program_problem,
    row_reduction_problem,
)


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
    if not all(_verifies(op) for op in ops):
        # Each such op reports its own problem, located at it (the op walk of
        # `lumir.diagnostics.verify_module`, or xDSL's nested verification); the row
        # analysis reads the ops' properties and assumes they are well formed.
        return None
    return row_program_problem(ops, list(block.args), list(terminator.values))


def _verifies(op: Operation) -> bool:
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException:
        return False
    return True


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
    "FLOAT_TYPES",
    "FUSABLE",
    "FUSABLE_ELEMENTWISE",
    "FUSABLE_MOVES",
    "FUSABLE_REDUCTIONS",
    "FusedOp",
    "YieldOp",
    "body_problem",
    "row_program_problem",
    "row_reduction_problem",
]
