"""Bufferize a function of tensors into cuBLASLt plans and runtime ops on buffers.

Level 2 (and whatever `hl` ops fusion left) to level 3. Every value becomes a buffer of
the same shape and element type (`tensor<...>` -> `memref<...>`):

- function arguments and results become buffers the caller fills and reads;
- each `cublaslt.matmul` becomes a module-level `cublaslt_rt.plan` carrying its whole
  descriptor, a `cublaslt_rt.alloc` for D and a `cublaslt_rt.matmul` naming the plan;
- each shape op that leaves a dense buffer's bytes where they are (every reshape; a
  slice of whole leading rows; a transpose or expand that only moves or adds unit
  dimensions) becomes a `cublaslt_rt.view` of its input: no allocation, no kernel;
- each other `hl` op becomes an alloc for its result and a `cublaslt_rt.launch` of that
  op, with the op's properties as the launch's params;
- each `hl.fused` becomes an alloc per result and a `cublaslt_rt.fused_launch` holding
  the same body (which stays on tensors: it is the kernel's definition, not buffers);
- each `hl.constant` becomes a `cublaslt_rt.constant` buffer;
- then, unless `share_buffers` is off, the buffer plan (`lumir.passes.buffer_plan`)
  places the function's intermediates in one arena, sharing bytes between values whose
  lifetimes do not overlap.

A transpose that reorders real dimensions stays a launch (a copy): a cuBLASLt plan and a
kernel's output need dense row-major buffers, and a transposed operand of a GEMM has
already been folded into its trans flags by `hl-to-cublaslt`.

Plans are named `@plan0`, `@plan1`, ... in IR order (skipping names the module already
uses) and placed at the top of the module in that order, so the same input always gives
the same output. Every created op takes the location of the op it replaces.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from lumir.cublaslt_enums import DataType
from lumir.diagnostics import LumirDiagnosticError, copy_location, op_diagnostic
from lumir.dialects import cublaslt, cublaslt_rt, hl
from lumir.dialects.cublaslt_rt import DEFAULT_WORKSPACE_SIZE, buffer_of
from lumir.passes.buffer_plan import share_buffers


@dataclass(frozen=True)
class MatmulToPlan(RewritePattern):
    """cublaslt.matmul -> alloc D + cublaslt_rt.matmul on the plan named for it."""

    plan_names: dict[cublaslt.MatmulOp, str]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cublaslt.MatmulOp, rewriter: PatternRewriter) -> None:
        result_type = op.d.type
        assert isinstance(result_type, TensorType)
        alloc = cublaslt_rt.AllocOp(buffer_of(result_type))
        call = cublaslt_rt.MatmulOp(
            self.plan_names[op], op.a, op.b, alloc.memref, c=op.c, bias=op.bias
        )
        copy_location(op, alloc, call)
        rewriter.replace(op, [alloc, call], [alloc.memref])


class ShapeOpToView(RewritePattern):
    """hl.reshape / slice / transpose / expand that keep the bytes in place -> a view."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, hl.ReshapeOp | hl.SliceOp | hl.TransposeOp | hl.ExpandOp):
            return
        source, result = op.operands[0].type, op.results[0].type
        if not isinstance(source, MemRefType) or not isinstance(result, TensorType):
            return  # the input is still a tensor: its producer is lowered first
        offset = _view_offset(op, source.get_shape())
        if offset is None:
            return
        width = cublaslt_rt.element_byte_width(result.element_type)
        view = cublaslt_rt.ViewOp(op.operands[0], offset * width, buffer_of(result))
        copy_location(op, view)
        rewriter.replace(op, view)


def _view_offset(op: Operation, shape: Sequence[int]) -> int | None:
    """The element offset at which `op`'s result sits, unchanged, in its dense input's
    bytes, or None when the result is not a dense run of them."""
    if isinstance(op, hl.ReshapeOp):
        return 0
    if isinstance(op, hl.TransposeOp):
        moved = [d for d in op.permutation.get_values() if shape[d] != 1]
        return 0 if moved == sorted(moved) else None
    if isinstance(op, hl.ExpandOp):
        result = op.results[0].type
        assert isinstance(result, TensorType)
        return 0 if math.prod(result.get_shape()) == math.prod(shape) else None
    assert isinstance(op, hl.SliceOp)
    dim = op.dim.value.data % len(shape)
    first, _, step = slice(op.start.value.data, op.end.value.data, op.step.value.data).indices(
        shape[dim]
    )
    result = op.results[0].type
    assert isinstance(result, TensorType)
    count = result.get_shape()[dim]
    whole_rows = math.prod(shape[:dim]) == 1 or count == shape[dim]
    if (step != 1 and count > 1) or not whole_rows:
        return None
    return first * math.prod(shape[dim + 1 :])


def _in_fused_body(op: Operation) -> bool:
    """Whether `op` is part of a fused kernel's body (lowered with it, not on its own)."""
    return isinstance(op.parent_op(), hl.FusedOp | cublaslt_rt.FusedLaunchOp)


class FusedToLaunch(RewritePattern):
    """hl.fused -> an alloc per result + cublaslt_rt.fused_launch holding the same body."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.FusedOp, rewriter: PatternRewriter) -> None:
        allocs = []
        for result in op.outputs:
            assert isinstance(result.type, TensorType)
            allocs.append(cublaslt_rt.AllocOp(buffer_of(result.type)))
        body = op.detach_region(op.body)
        launch = cublaslt_rt.FusedLaunchOp(
            list(op.inputs), [alloc.memref for alloc in allocs], body
        )
        copy_location(op, *allocs, launch)
        rewriter.replace(op, [*allocs, launch], [alloc.memref for alloc in allocs])


class HlOpToLaunch(RewritePattern):
    """Any other hl op -> alloc for its result + cublaslt_rt.launch of the op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() != "hl" or isinstance(op, hl.ConstantOp | hl.FusedOp):
            return
        if _in_fused_body(op):
            return
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)
        alloc = cublaslt_rt.AllocOp(buffer_of(result_type))
        launch = cublaslt_rt.LaunchOp(op.name, list(op.operands), alloc.memref, op.properties)
        copy_location(op, alloc, launch)
        rewriter.replace(op, [alloc, launch], [alloc.memref])


class ConstantToBuffer(RewritePattern):
    """hl.constant -> cublaslt_rt.constant holding the same literal."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.ConstantOp, rewriter: PatternRewriter) -> None:
        if _in_fused_body(op):
            return
        constant = cublaslt_rt.ConstantOp(op.value)
        copy_location(op, constant)
        rewriter.replace(op, constant)


@dataclass(frozen=True)
class LowerToCublasltRtPass(ModulePass):
    """Bufferize and lower cublaslt/hl ops to cuBLASLt plans and runtime ops on buffers."""

    name = "lower-to-cublaslt-rt"

    workspace_size: int = DEFAULT_WORKSPACE_SIZE
    """The most workspace bytes each plan's algorithm may use."""

    share_buffers: bool = True
    """Place intermediates with disjoint lifetimes in shared memory (the buffer plan)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [func for func in op.ops if isinstance(func, FuncOp)]
        for func in functions:
            _check_lowerable(func)
        # A function already on buffers (this pass's own output) keeps its plan.
        unlowered = [func for func in functions if _has_tensors(func)]
        plan_names = self._insert_plans(op)
        for func in functions:
            _bufferize_signature(func)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    MatmulToPlan(plan_names),
                    ConstantToBuffer(),
                    ShapeOpToView(),
                    FusedToLaunch(),
                    HlOpToLaunch(),
                ]
            ),
            apply_recursively=False,
        ).rewrite_module(op)
        if self.share_buffers:
            for func in unlowered:
                if func.body.blocks:
                    share_buffers(func)

    def _insert_plans(self, module: ModuleOp) -> dict[cublaslt.MatmulOp, str]:
        """One plan per cublaslt.matmul, named and placed in IR order at the module's top."""
        taken = {
            name.data
            for child in module.ops
            if isinstance(name := child.get_attr_or_prop("sym_name"), StringAttr)
        }
        names: dict[cublaslt.MatmulOp, str] = {}
        plans: list[cublaslt_rt.PlanOp] = []
        index = 0
        for matmul in module.walk():
            if not isinstance(matmul, cublaslt.MatmulOp):
                continue
            while f"plan{index}" in taken:
                index += 1
            name = f"plan{index}"
            index += 1
            bias_dtype = _element_data_type(matmul.bias.type) if matmul.bias is not None else None
            plan = cublaslt_rt.PlanOp(name, matmul.descriptor(), self.workspace_size, bias_dtype)
            copy_location(matmul, plan)
            names[matmul] = name
            plans.append(plan)
        if plans:
            module.body.block.insert_ops_before(plans, module.body.block.first_op)
        return names


def _element_data_type(value_type: Attribute) -> DataType | None:
    assert isinstance(value_type, TensorType)
    return DataType.from_element_type(value_type.element_type)


def _check_lowerable(func: FuncOp) -> None:
    """Report, located, everything in `func` this pass cannot bufferize."""
    problems = []
    for index, arg_type in enumerate(func.function_type.inputs.data):
        problem = _tensor_problem(arg_type)
        if problem is not None:
            problems.append(op_diagnostic(func, f"argument {index}: {problem}"))
    for index, result_type in enumerate(func.function_type.outputs.data):
        problem = _tensor_problem(result_type)
        if problem is not None:
            problems.append(op_diagnostic(func, f"result {index}: {problem}"))
    for op in func.walk():
        if op is func or isinstance(op, ReturnOp | cublaslt.MatmulOp) or _in_fused_body(op):
            continue
        if op.dialect_name() == "cublaslt_rt":  # lowered already: the pass is idempotent
            continue
        if op.dialect_name() != "hl":
            problems.append(
                op_diagnostic(op, f"lower-to-cublaslt-rt cannot lower '{op.name}' to buffers")
            )
            continue
        for result in op.results:
            problem = _tensor_problem(result.type)
            if problem is not None:
                problems.append(op_diagnostic(op, problem))
    if problems:
        raise LumirDiagnosticError(problems)


def _has_tensors(func: FuncOp) -> bool:
    """Whether any argument, result or op result of `func` is still a tensor."""
    signature = [*func.function_type.inputs.data, *func.function_type.outputs.data]
    if any(isinstance(t, TensorType) for t in signature):
        return True
    # Only the function's own ops: a fused kernel's body stays on tensors when lowered.
    return any(
        isinstance(result.type, TensorType)
        for block in func.body.blocks
        for inner in block.ops
        for result in inner.results
    )


def _tensor_problem(value_type: Attribute) -> str | None:
    if isinstance(value_type, MemRefType):
        return None
    if not isinstance(value_type, TensorType):
        return f"lower-to-cublaslt-rt bufferizes tensors, not {value_type}"
    if any(dim < 0 for dim in value_type.get_shape()):
        return f"{value_type} has a dynamic dimension; specialise shapes before lowering"
    return None


def _bufferize_signature(func: FuncOp) -> None:
    """Turn the function's tensor arguments and results into buffers of the same types."""
    body = func.body.blocks.first
    if body is not None:
        for arg in list(body.args):
            if isinstance(arg.type, TensorType):
                Rewriter.replace_value_with_new_type(arg, buffer_of(arg.type))
    inputs = [_buffer_type(t) for t in func.function_type.inputs.data]
    outputs = [_buffer_type(t) for t in func.function_type.outputs.data]
    func.function_type = FunctionType.from_lists(inputs, outputs)


def _buffer_type(value_type: Attribute) -> Attribute:
    return buffer_of(value_type) if isinstance(value_type, TensorType) else value_type


__all__ = ["DEFAULT_WORKSPACE_SIZE", "LowerToCublasltRtPass"]
