"""Bufferize a function of tensors into cuBLASLt plans and runtime ops on buffers.

Level 2 (and whatever `hl` ops fusion left) to level 3. Every value becomes a buffer of
the same shape and element type (`tensor<...>` -> `memref<...>`):

- function arguments and results become buffers the caller fills and reads;
- each `cublaslt.matmul` becomes a module-level `cublaslt_rt.plan` carrying its whole
  descriptor, a `cublaslt_rt.alloc` for D and a `cublaslt_rt.matmul` naming the plan;
  the plan's `algorithm` is the cost model's pick (`preferred_algorithm`): cuBLASLt's
  heuristic, or lumir's GEMV for a one-column call it runs faster (unless `gemv` is
  off);
- each shape op that leaves a dense buffer's bytes where they are (every reshape; a
  slice of whole leading rows; a transpose or expand that only moves or adds unit
  dimensions) becomes a `cublaslt_rt.view` of its input: no allocation, no kernel;
- each other `hl` op becomes an alloc for its result and a `cublaslt_rt.launch` of that
  op, with the op's properties as the launch's params;
- each `hl.fused` becomes an alloc per result and a `cublaslt_rt.fused_launch` holding
  the same body (which stays on tensors: it is the kernel's definition, not buffers);
- each `hl.constant` becomes a `cublaslt_rt.constant` buffer, and so does each small
  integer or boolean value that constants alone determine (`fold_known_integers`: an
  `arange` of fixed bounds and the index arithmetic on it), which is filled once when
  the program loads instead of launched on every call;
- then, unless `share_buffers` is off, the buffer plan (`lumir.passes.buffer_plan`)
  places the function's intermediates in one arena, sharing bytes between values whose
  lifetimes do not overlap.

A transpose that reorders real dimensions stays a launch (a copy): a cuBLASLt plan and a
kernel's output need dense row-major buffers, and a transposed operand of a GEMM has
already been folded into its trans flags by `hl-to-cublaslt`. The exception is
attention: a transpose (keeping the last dimension last) read only as an `hl.sdpa`
query, key or value, or applied to an sdpa result and nothing else, is absorbed into the
sdpa launch, which reads the transpose's input through `input_permutations` or writes
the transpose's buffer through `output_permutation` (strided views, no copy kernel).
Likewise a query, key or value that an `hl.slice` copied out of the last dimension of
an intermediate (q, k and v of a fused projection such as GPT-2's `c_attn`), read by
that sdpa alone, is read in place through `input_windows`, and the copy goes.

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
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from lumir.cublaslt_enums import FORWARD_EPILOGUES, DataType
from lumir.diagnostics import LumirDiagnosticError, copy_location, op_diagnostic
from lumir.dialects import cublaslt, cublaslt_rt, hl
from lumir.dialects.cublaslt_rt import DEFAULT_WORKSPACE_SIZE, buffer_of, epilogue_problem
from lumir.dtypes import ELEMENT_DTYPES, element_dtype
from lumir.egraph_bridge.cost_model import preferred_algorithm
from lumir.passes import check_int_option
from lumir.passes.buffer_plan import share_buffers
from lumir.passes.constant_values import fold_known_integers


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


_SDPA_VIEWED_OPERANDS = 3
"""hl.sdpa reads query, key and value (its first three operands) through permuted views;
a mask stays a dense buffer."""


def _keeps_last_dim(op: hl.TransposeOp) -> bool:
    permutation = [int(v) for v in op.permutation.get_values()]
    return not permutation or permutation[-1] == len(permutation) - 1


def _is_view(op: hl.TransposeOp) -> bool:
    source = op.input.type
    assert isinstance(source, TensorType | MemRefType)
    return _view_offset(op, source.get_shape()) is not None


def _read_by_sdpa_launch(op: Operation) -> bool:
    """Whether `op` is a transpose that every user reads as an sdpa query, key or value,
    so that each sdpa launch reads it through a permuted view and it needs no copy."""
    if not isinstance(op, hl.TransposeOp) or _in_fused_body(op) or not op.result.uses:
        return False
    if not _keeps_last_dim(op) or _is_view(op):
        return False
    return all(
        isinstance(use.operation, hl.ScaledDotProductAttentionOp)
        and use.index < _SDPA_VIEWED_OPERANDS
        for use in op.result.uses
    )


def _written_by_sdpa_launch(op: hl.ScaledDotProductAttentionOp) -> hl.TransposeOp | None:
    """The transpose that is the sdpa result's only use, when the launch can write the
    result through a permuted view of the transpose's buffer instead."""
    uses = list(op.result.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, hl.TransposeOp):
        return None
    transpose = uses[0].operation
    if _in_fused_body(transpose) or not _keeps_last_dim(transpose) or _is_view(transpose):
        return None
    return transpose


class SdpaToStridedLaunch(RewritePattern):
    """hl.sdpa -> alloc + cublaslt_rt.launch, absorbing the slices and transposes around it.

    An operand that is a transpose read only by sdpa launches becomes the transpose's
    input read through `input_permutations`; a result whose only use is a transpose is
    written into that transpose's buffer through `output_permutation`. An operand (or a
    transpose's input) that is a column block of another buffer, copied out by an
    `hl.slice` launch of the last dimension and read by nothing but this sdpa (q, k and
    v of a fused q/k/v projection), is read in place through `input_windows` instead,
    and the copy goes. The attention kernels take strided query/key/value (last
    dimension contiguous), so none of these is a copy kernel. Without them the launch
    is what `HlOpToLaunch` makes.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: hl.ScaledDotProductAttentionOp, rewriter: PatternRewriter
    ) -> None:
        if _in_fused_body(op):
            return
        inputs: list[SSAValue] = []
        permutations: list[tuple[int, ...]] = []
        windows: list[cublaslt_rt.Window | None] = []
        absorbed: list[hl.TransposeOp] = []
        copies: list[list[Operation]] = []  # per column block read in place: view, copy, alloc
        for index, value in enumerate(op.operands):
            owner = value.owner
            if isinstance(owner, hl.TransposeOp) and _read_by_sdpa_launch(owner):
                absorbed.append(owner)
                value = owner.input
                permutations.append(tuple(int(v) for v in owner.permutation.get_values()))
            else:
                permutations.append(tuple(range(_rank(value))))
            if not isinstance(value.type, MemRefType):
                return  # a producer is not lowered yet; the walker comes back
            block = _column_block(value, op) if index < _SDPA_VIEWED_OPERANDS else None
            if block is None:
                inputs.append(value)
                windows.append(None)
            else:
                source, window, dead = block
                inputs.append(source)
                windows.append(window)
                copies.append(dead)
        transpose = _written_by_sdpa_launch(op)
        result = transpose.result if transpose is not None else op.result
        assert isinstance(result.type, TensorType)
        alloc = cublaslt_rt.AllocOp(buffer_of(result.type))
        permuted = transpose is not None or any(p != tuple(range(len(p))) for p in permutations)
        launch = cublaslt_rt.LaunchOp(
            op.name,
            inputs,
            alloc.memref,
            op.properties,
            input_permutations=permutations if permuted else None,
            output_permutation=_permutation(transpose) if permuted else None,
            input_windows=windows if copies else None,
        )
        copy_location(op, alloc, launch)
        if transpose is None:
            rewriter.replace(op, [alloc, launch], [alloc.memref])
        else:
            alloc.memref.name_hint = transpose.result.name_hint
            rewriter.insert([alloc, launch], InsertPoint.before(op))
            rewriter.replace_all_uses_with(transpose.result, alloc.memref)
            rewriter.erase(transpose)
            rewriter.erase(op)
        for read in absorbed:  # dead once the last sdpa reading it is a launch
            if not read.result.uses and read.parent is not None:
                rewriter.erase(read)
        for dead in copies:  # the copies of the blocks now read in place
            for copied in dead:
                rewriter.erase(copied)


def _column_block(
    value: SSAValue, sdpa: hl.ScaledDotProductAttentionOp
) -> tuple[SSAValue, cublaslt_rt.Window, list[Operation]] | None:
    """(source, window, the ops that made the copy) when `value` (a buffer, or a
    reshaping view of one) holds a column block that an `hl.slice` launch copied out of
    the last dimension of `source`, an intermediate, and `sdpa` is its one reader
    (directly or through a transpose it absorbs): the launch can then read the block
    in place through the window, and the copy, its buffer and the view go."""
    view = value.owner if isinstance(value.owner, cublaslt_rt.ViewOp) else None
    if view is not None and view.byte_offset.value.data != 0:
        return None
    copy = view.source if view is not None else value
    if not isinstance(copy, OpResult) or not isinstance(copy.owner, cublaslt_rt.AllocOp):
        return None
    users = [use.operation for use in copy.uses]
    writers = [u for u in users if isinstance(u, cublaslt_rt.LaunchOp) and u.output is copy]
    readers = [u for u in users if u not in writers]
    if len(writers) != 1 or len(readers) != 1:
        return None
    if view is not None and (readers[0] is not view or len(list(view.result.uses)) != 1):
        return None
    reader = next(iter(value.uses)).operation if view is not None else readers[0]
    if not _reads_for(reader, sdpa):
        return None
    launch = writers[0]
    if launch.kernel.data != "hl.slice" or len(launch.inputs) != 1 or launch.input_windows:
        return None
    source = launch.inputs[0]
    root, _, _ = cublaslt_rt.byte_range(source)
    if not isinstance(root, OpResult) or not isinstance(root.owner, cublaslt_rt.AllocOp):
        return None  # an argument may be updated in place at load time: keep the copy
    source_shape = _memref_shape(source)
    params = launch.kernel_params()
    dim, start, end, step = (
        int(params[name].value.data)  # type: ignore[attr-defined]
        for name in ("dim", "start", "end", "step")
    )
    if not source_shape or dim % len(source_shape) != len(source_shape) - 1:
        return None
    first, stop, stride = slice(start, end, step).indices(source_shape[-1])
    window = cublaslt_rt.Window(first, stop, _memref_shape(value))
    if stride != 1 or window.problem(source_shape) is not None:
        return None
    dead: list[Operation] = [view] if view is not None else []
    return source, window, [*dead, launch, copy.owner]


def _reads_for(reader: Operation, sdpa: hl.ScaledDotProductAttentionOp) -> bool:
    """Whether `reader` is `sdpa`, or a transpose read by `sdpa` alone."""
    if isinstance(reader, hl.TransposeOp):
        uses = list(reader.result.uses)
        return len(uses) == 1 and uses[0].operation is sdpa
    return reader is sdpa


def _memref_shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, MemRefType)
    return tuple(value.type.get_shape())


def _rank(value: SSAValue) -> int:
    assert isinstance(value.type, TensorType | MemRefType)
    return value.type.get_num_dims()


def _permutation(transpose: hl.TransposeOp | None) -> tuple[int, ...] | None:
    if transpose is None:
        return None
    return tuple(int(v) for v in transpose.permutation.get_values())


class HlOpToLaunch(RewritePattern):
    """Any other hl op -> alloc for its result + cublaslt_rt.launch of the op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() != "hl" or isinstance(op, hl.ConstantOp | hl.FusedOp):
            return
        if _in_fused_body(op) or _read_by_sdpa_launch(op):
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

    gemv: bool = True
    """Let a plan run as lumir's GEMV (`algorithm = "gemv"`) where the cost model
    (`preferred_algorithm`) expects it to beat cuBLASLt: one-column bf16/f16 calls,
    a decode step's projections. `gemv=false` keeps every plan on cuBLASLt."""

    def __post_init__(self) -> None:
        check_int_option(f"{self.name}: workspace_size", self.workspace_size, 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check_no_nested_modules(op)
        functions = [func for func in op.ops if isinstance(func, FuncOp)]
        for func in functions:
            _check_lowerable(func)
        # A function already on buffers (this pass's own output) keeps its plan.
        unlowered = [func for func in functions if _has_tensors(func)]
        for func in unlowered:
            if func.body.blocks:
                fold_known_integers(func)
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
                    SdpaToStridedLaunch(),
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
            plan = cublaslt_rt.PlanOp(
                name,
                matmul.descriptor(),
                self.workspace_size,
                bias_dtype,
                self._algorithm(matmul),
            )
            copy_location(matmul, plan)
            names[matmul] = name
            plans.append(plan)
        if plans:
            module.body.block.insert_ops_before(plans, module.body.block.first_op)
        return names

    def _algorithm(self, matmul: cublaslt.MatmulOp) -> str:
        if not self.gemv:
            return "heuristic"
        operands = (matmul.a, matmul.b, matmul.c, matmul.bias, matmul.d)
        a, b, c, bias, d = (None if v is None else v.type for v in operands)
        assert isinstance(a, TensorType) and isinstance(b, TensorType)
        assert isinstance(d, TensorType)
        return preferred_algorithm(matmul.descriptor(), a, b, c, bias, d)  # type: ignore[arg-type]


def _element_data_type(value_type: Attribute) -> DataType | None:
    assert isinstance(value_type, TensorType)
    return DataType.from_element_type(value_type.element_type)


def _check_no_nested_modules(module: ModuleOp) -> None:
    """Refuse, located, a builtin.module inside the module.

    Plans live at the top of the module and the runtime runs its top-level functions, so
    the pass lowers only those; the rewrite walk would still reach the ops of a nested
    module's functions and leave their signatures on tensors (invalid IR).
    """
    nested = [
        inner for inner in module.walk() if isinstance(inner, ModuleOp) and inner is not module
    ]
    if nested:
        raise LumirDiagnosticError(
            [
                op_diagnostic(
                    inner,
                    "lower-to-cublaslt-rt lowers the functions at the top level of the "
                    "module, not a nested builtin.module; move its functions to the top level",
                )
                for inner in nested
            ]
        )


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
        if isinstance(op, cublaslt.MatmulOp) and op.descriptor().epilogue not in FORWARD_EPILOGUES:
            problems.append(op_diagnostic(op, epilogue_problem(op.descriptor().epilogue)))
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
    if element_dtype(value_type.element_type) is None:
        # Refused here, not by the buffer plan's byte arithmetic (an AssertionError on
        # complex<f32> or index) or the runtime: what lowers must also load and run.
        supported = ", ".join(row.name for row in ELEMENT_DTYPES)
        return (
            f"{value_type}: lumir's buffers cannot hold element type "
            f"{value_type.element_type}; expected one of {supported}"
        )
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
