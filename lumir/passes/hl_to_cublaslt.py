"""Turn every hl.matmul into a plain cublaslt.matmul in cuBLASLt's column-major view.

Each `hl.matmul` becomes one `cublaslt.matmul` with alpha = 1, beta = 0, no C, no bias
and the DEFAULT epilogue: the starting point the fusion pass adds alpha, C, bias and
epilogues to. The descriptor comes from `lumir.passes.cublaslt_builders`, which applies
docs/conventions.md (A = rhs, B = lhs, m = N, n = M, k = K, every order COL).

- An operand produced by an `hl.transpose` that swaps its last two dimensions is read
  through `transa` / `transb` from the transpose's input; the transpose is removed when
  nothing else uses it.
- Batch dimensions: a product without batch dimensions above 1 is one GEMM (a
  `[1, R, C]` operand stays 3-D with batch_count 1). When only lhs carries batch
  dimensions (a Linear layer on `[B, S, K]`) and lhs is not read transposed,
  `[.., M, K]` is reshaped to `[B*M, K]` for one larger GEMM whose `[B*M, N]` result is
  reshaped back: what torch does, and usually faster than B small GEMMs that share the
  rhs (`flatten_batched_lhs`, on by default). Otherwise the batch dimensions of each
  operand are flattened into one (`[B, R, C]`): a strided batch, with stride 0 for an
  operand without batch dimensions (shared by every batch) and an `hl.expand` for one
  that broadcasts only some of them (torch materialises those too).
- Element types: f16, bf16 and f32 use compute_32f with an f32 scale (f32 is true fp32,
  no TF32); f64 uses compute_64f with an f64 scale. Anything else (integers, FP8, mixed
  types), and dynamic or zero sizes, is reported as a located error naming the op; the
  module is left unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from lumir.cublaslt_enums import DataType
from lumir.diagnostics import Diagnostic, LumirDiagnosticError, copy_location, op_diagnostic
from lumir.dialects import hl
from lumir.passes.cublaslt_builders import (
    DEFAULT_COMPUTE,
    row_major_matmul_op,
    swaps_last_two,
)


def _tensor_type(value: SSAValue) -> TensorType[Attribute]:
    assert isinstance(value.type, TensorType), "hl ops take tensors (IRDL checks this)"
    return value.type


def _shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(_tensor_type(value).get_shape())


def matmul_problem(op: hl.MatmulOp) -> str | None:
    """Why `op` cannot become a cuBLASLt call, or None when it can."""
    lhs, rhs = _tensor_type(op.lhs), _tensor_type(op.rhs)
    supported = ", ".join(str(dtype) for dtype in DEFAULT_COMPUTE)
    if lhs.element_type != rhs.element_type:
        return (
            f"'hl.matmul' operands are {lhs.element_type} and {rhs.element_type}; cuBLASLt "
            f"lowering expects one element type, one of {supported}"
        )
    dtype = DataType.from_element_type(lhs.element_type)
    if dtype not in DEFAULT_COMPUTE:
        return (
            f"'hl.matmul' on {lhs.element_type} operands has no cuBLASLt lowering; "
            f"expected {supported} operands"
        )
    for role, value in (("lhs", op.lhs), ("rhs", op.rhs)):
        if any(dim <= 0 for dim in _shape(value)):
            return (
                f"'hl.matmul' {role} {value.type} has a dynamic or zero dimension; "
                f"cuBLASLt lowering expects static sizes >= 1"
            )
    return None


@dataclass(frozen=True)
class _Operand:
    """A matmul operand as cuBLASLt reads it: the tensor, and whether it is transposed."""

    value: SSAValue
    transposed: bool

    @property
    def matrix_shape(self) -> tuple[int, int]:
        shape = _shape(self.value)
        return shape[-2], shape[-1]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return _shape(self.value)[:-2]


def read_operand(value: SSAValue) -> _Operand:
    """`value`, or the input of the last-two-dims transpose that produced it, read transposed."""
    owner = value.owner
    if isinstance(owner, hl.TransposeOp) and swaps_last_two(
        [int(v) for v in owner.permutation.get_values()]
    ):
        return _Operand(owner.input, True)
    return _Operand(value, False)


class _Builder:
    """Collects the ops a lowering creates, in order, so they can replace the matmul."""

    def __init__(self, element_type: Attribute):
        self.element_type = element_type
        self.ops: list[Operation] = []

    def reshape(self, value: SSAValue, shape: tuple[int, ...]) -> SSAValue:
        if _shape(value) == shape:
            return value
        result_type = TensorType(self.element_type, list(shape))
        op = hl.ReshapeOp(operands=[value], result_types=[result_type])
        self.ops.append(op)
        return op.result

    def expand(self, value: SSAValue, shape: tuple[int, ...]) -> SSAValue:
        result_type = TensorType(self.element_type, list(shape))
        op = hl.ExpandOp(operands=[value], result_types=[result_type])
        self.ops.append(op)
        return op.result

    def as_matrix(self, operand: _Operand) -> SSAValue:
        """The operand as one 2-D matrix (its batch dimensions are all 1)."""
        return self.reshape(operand.value, operand.matrix_shape)

    def as_single(self, operand: _Operand) -> SSAValue:
        """The operand of a call with batch_count 1: a `[1, R, C]` tensor may stay 3-D."""
        if len(operand.batch_shape) <= 1:
            return operand.value
        return self.as_matrix(operand)

    def as_batch(self, operand: _Operand, batch: tuple[int, ...]) -> SSAValue:
        """The operand as `[prod(batch), R, C]`.

        Batch dimensions it broadcasts (size 1 where the result's is larger) are
        materialised with `hl.expand`, as torch's matmul does; missing leading ones
        need no data, only the reshape.
        """
        own = operand.batch_shape
        padded = (1,) * (len(batch) - len(own)) + own
        value = operand.value
        if padded != batch:
            value = self.expand(value, (*batch, *operand.matrix_shape))
        return self.reshape(value, (math.prod(batch), *operand.matrix_shape))


def _is_shared(operand: _Operand) -> bool:
    """True when every matrix of the batch is the same one (no batch dimension above 1)."""
    return math.prod(operand.batch_shape) == 1


@dataclass
class LowerMatmul(RewritePattern):
    """hl.matmul -> cublaslt.matmul (+ the reshapes that bring operands to 2-D or 3-D)."""

    flatten_batched_lhs: bool = True
    """Run a batched lhs times a shared rhs as one [B*M, K] GEMM (see the module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hl.MatmulOp, rewriter: PatternRewriter) -> None:
        result_type = _tensor_type(op.result)
        out_shape = tuple(result_type.get_shape())
        batch = out_shape[:-2]
        lhs, rhs = read_operand(op.lhs), read_operand(op.rhs)
        build = _Builder(result_type.element_type)
        if _is_shared(lhs) and _is_shared(rhs):
            gemm = row_major_matmul_op(
                build.as_single(lhs), build.as_single(rhs), lhs.transposed, rhs.transposed
            )
        elif self.flatten_batched_lhs and _is_shared(rhs) and not lhs.transposed:
            rows = math.prod(_shape(lhs.value)[:-1])
            flat = build.reshape(lhs.value, (rows, lhs.matrix_shape[1]))
            gemm = row_major_matmul_op(flat, build.as_matrix(rhs), False, rhs.transposed)
        else:
            gemm = row_major_matmul_op(
                build.as_matrix(lhs) if _is_shared(lhs) else build.as_batch(lhs, batch),
                build.as_matrix(rhs) if _is_shared(rhs) else build.as_batch(rhs, batch),
                lhs.transposed,
                rhs.transposed,
            )
        build.ops.append(gemm)
        build.reshape(gemm.d, out_shape)
        copy_location(op, *build.ops)
        transposes = [
            value.owner for value, operand in ((op.lhs, lhs), (op.rhs, rhs)) if operand.transposed
        ]
        rewriter.replace(op, build.ops)
        for transpose in transposes:
            # The same transpose may feed both operands: erase it once, when unused.
            if (
                isinstance(transpose, hl.TransposeOp)
                and transpose.parent is not None
                and not transpose.result.uses
            ):
                rewriter.erase(transpose)


@dataclass(frozen=True)
class HLToCublasltPass(ModulePass):
    """Turn every hl.matmul into a plain cublaslt.matmul in cuBLASLt's column-major view.

    Each call has alpha 1, beta 0, no C or bias and the DEFAULT epilogue, with A = rhs,
    B = lhs, m = N, n = M, k = K (docs/conventions.md). Last-two-dims transposes of an
    operand fold into `transa` / `transb`; batch dimensions become one strided batch
    (stride 0 for a shared operand), or, for a batched lhs times a shared rhs, one
    `[B*M, K]` GEMM between reshapes. f16/bf16/f32 use compute_32f with an f32 scale,
    f64 compute_64f; other element types are located errors. With
    `flatten-batched-lhs=false` that last case is a strided batch too (rhs at stride 0),
    so D is the batched result with no reshape after the call. See
    docs/passes/hl-to-cublaslt.md.
    """

    name = "hl-to-cublaslt"

    flatten_batched_lhs: bool = True
    """Lower `[.., M, K] @ [K, N]` as one `[B*M, K]` GEMM between reshapes (torch's way,
    usually the fastest); false gives a strided batch with the rhs at stride 0, whose D
    is the batched result itself, with no reshape between the call and its users."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        problems: list[Diagnostic] = []
        for matmul in op.walk():
            if isinstance(matmul, hl.MatmulOp) and (problem := matmul_problem(matmul)):
                problems.append(op_diagnostic(matmul, problem))
        if problems:
            raise LumirDiagnosticError(problems)
        lower = LowerMatmul(self.flatten_batched_lhs)
        applier = GreedyRewritePatternApplier([lower], dce_enabled=False)
        PatternRewriteWalker(applier).rewrite_module(op)


__all__ = ["HLToCublasltPass", "LowerMatmul", "matmul_problem", "read_operand"]
