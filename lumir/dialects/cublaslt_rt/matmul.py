"""`cublaslt_rt.plan` and `cublaslt_rt.matmul`: one cuBLASLt call, made once and run.

The plan verifies the descriptor alone (invariants V1, V2, V3 and V7 of
docs/design.md); a matmul verifies its buffers against its plan (V4, V5, V6, V8, V9,
V10), so a matmul that verifies is one cuBLASLt accepts.
"""

from __future__ import annotations

from dataclasses import fields

from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.traits import (
    HasParent,
    MemoryReadEffect,
    MemoryWriteEffect,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from lumir.cublaslt_enums import FORWARD_EPILOGUES, DataType, Epilogue, Operand
from lumir.dialects.cublaslt import (
    DataTypeAttr,
    DescriptorProperties,
    MatmulDescriptor,
    descriptor_properties,
)
from lumir.dialects.cublaslt_rt.buffers import int_value, require_buffer, tensor_of
from lumir.dialects.cublaslt_rt.effects import Access, BufferOp
from lumir.operand_layout import OPERAND_FIELDS, matrix_layout
from lumir.plan_algorithms import ALGORITHMS, gemv_problems
from lumir.verifier import (
    INVARIANT_CHECKS,
    FindingsVerifyException,
    Invariant,
    MatmulCall,
    MatmulDiagnostic,
    find_row,
)

DEFAULT_WORKSPACE_SIZE = 32 * 1024 * 1024
"""Workspace bytes a plan may use: cuBLASLt's documentation asks for 32 MiB on Hopper so
that its split-K and stream-K kernels stay eligible. The lowering and the CUDA executor
both default to it."""


PLAN_INVARIANTS = (Invariant.V1, Invariant.V2, Invariant.V3, Invariant.V7)
"""The invariants that read only the descriptor: a plan checks them."""

BUFFER_INVARIANTS = (
    Invariant.V4,
    Invariant.V5,
    Invariant.V6,
    Invariant.V8,
    Invariant.V9,
    Invariant.V10,
)
"""The invariants that compare the descriptor with operands: a matmul checks them."""


@irdl_op_definition
class PlanOp(DescriptorProperties):
    """A cuBLASLt plan made once at load time: descriptor, layouts, algorithm, workspace.

    The properties are the whole `MatmulDescriptor` of the `cublaslt.matmul` it came
    from, plus `workspace_size` (the most workspace bytes its algorithm may use),
    `algorithm` (how the algorithm is chosen, see `ALGORITHMS`) and, for the BIAS
    epilogues, `bias_dtype` (cuBLASLt's BIAS_DATA_TYPE).
    """

    name = "cublaslt_rt.plan"

    sym_name = prop_def(SymbolNameConstraint())
    workspace_size = prop_def(IntegerAttr)
    algorithm = prop_def(StringAttr)
    bias_dtype = opt_prop_def(DataTypeAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(SymbolOpInterface(), HasParent(ModuleOp))
    assembly_format = "$sym_name attr-dict"

    def __init__(
        self,
        sym_name: str,
        descriptor: MatmulDescriptor,
        workspace_size: int,
        bias_dtype: DataType | None = None,
        algorithm: str = "heuristic",
    ):
        properties: dict[str, Attribute] = {"sym_name": StringAttr(sym_name)}
        by_field = descriptor_properties(descriptor)
        # In the descriptor's own field order, which reads like the cuBLASLt call.
        for field in fields(MatmulDescriptor):
            properties[field.name] = by_field[field.name]
        properties["workspace_size"] = IntegerAttr(workspace_size, i64)
        properties["algorithm"] = StringAttr(algorithm)
        if bias_dtype is not None:
            properties["bias_dtype"] = DataTypeAttr(bias_dtype)
        super().__init__(properties=properties)

    def bias_data_type(self) -> DataType | None:
        """The bias vector's type, or None when the epilogue adds no bias."""
        return self.bias_dtype.data if self.bias_dtype is not None else None

    def verify_(self) -> None:
        descriptor = self.descriptor()
        problems = [str(p) for p in _plan_layout_problems(descriptor)]
        if not problems:
            call = MatmulCall(
                descriptor,
                _canonical_tensor(descriptor, Operand.A),
                _canonical_tensor(descriptor, Operand.B),
                None,
                None,
                _canonical_tensor(descriptor, Operand.D),
            )
            problems = [str(p) for p in _run_invariants(PLAN_INVARIANTS, call)]
        if descriptor.epilogue not in FORWARD_EPILOGUES:
            problems.append(epilogue_problem(descriptor.epilogue))
        workspace = int_value(self.workspace_size)
        if workspace < 0:
            problems.append(f"workspace_size = {workspace}, but it must not be negative")
        if self.algorithm.data not in ALGORITHMS:
            problems.append(
                f'algorithm = "{self.algorithm.data}", but it must be one of '
                f"{', '.join(repr(a) for a in ALGORITHMS)}"
            )
        problems += _bias_dtype_problems(descriptor, self.bias_data_type())
        if self.algorithm.data == "gemv":
            problems += [f'algorithm = "gemv": {p}' for p in gemv_problems(descriptor)]
        if problems:
            raise FindingsVerifyException([f"@{self.sym_name.data}: {p}" for p in problems])


def epilogue_problem(epilogue: Epilogue) -> str:
    """Why a plan cannot have `epilogue` (one of the AUX or gradient ones)."""
    runnable = ", ".join(str(e) for e in Epilogue if e in FORWARD_EPILOGUES)
    return (
        f"epilogue {epilogue} needs auxiliary buffers that lumir's executors do not "
        f"provide; expected one of {runnable}"
    )


def _run_invariants(ids: tuple[Invariant, ...], call: MatmulCall) -> list[MatmulDiagnostic]:
    found: list[MatmulDiagnostic] = []
    for invariant, check in INVARIANT_CHECKS:
        if invariant in ids:
            found += check(call)
    return found


def _canonical_tensor(desc: MatmulDescriptor, operand: Operand) -> TensorType[Attribute]:
    """The dense row-major tensor a descriptor's operand is read from (conventions.md)."""
    layout = matrix_layout(desc, operand)
    shape = layout.stored_shape()
    if layout.batch_count > 1 and layout.stride != 0:
        shape = [layout.batch_count, *shape]
    return TensorType(layout.dtype.element_type(), shape)


def _plan_layout_problems(desc: MatmulDescriptor) -> list[str]:
    """What cuBLASLt's layout checks reject: negative sizes, short leading dimensions."""
    problems: list[str] = []
    for field in ("m", "n", "k"):
        if getattr(desc, field) < 0:
            problems.append(f"{field} = {getattr(desc, field)}, but it must not be negative")
    if desc.batch_count < 1:
        problems.append(f"batch_count = {desc.batch_count}, but it must be at least 1")
    for operand, names in OPERAND_FIELDS.items():
        layout = matrix_layout(desc, operand)
        needed = max(1, layout.contiguous)
        if layout.ld < needed:
            problems.append(
                f"{names.ld} = {layout.ld}, but a {layout.rows} x {layout.cols} matrix in "
                f"{layout.order} order needs a leading dimension of at least {needed}"
            )
        if layout.stride < 0:
            problems.append(f"{names.stride} = {layout.stride}, but it must not be negative")
    return problems


def _bias_dtype_problems(desc: MatmulDescriptor, bias_dtype: DataType | None) -> list[str]:
    if not desc.epilogue.reads_bias:
        if bias_dtype is None:
            return []
        return [
            f"epilogue {desc.epilogue} adds no bias, but the plan has bias_dtype = {bias_dtype}"
        ]
    if bias_dtype is None:
        return [f"epilogue {desc.epilogue} adds a bias, but the plan has no bias_dtype"]
    row = find_row(
        desc.compute_type, desc.scale_type, desc.a_dtype, desc.b_dtype, desc.c_dtype, desc.d_dtype
    )
    if row is not None and bias_dtype not in row.bias_dtypes:
        allowed = " or ".join(str(dtype) for dtype in row.bias_dtypes)
        return [f"bias_dtype = {bias_dtype}, but this type row takes a bias of {allowed}"]
    return []


@irdl_op_definition
class MatmulOp(BufferOp):
    """One `cublasLtMatmul` with plan `plan`: D = epilogue(alpha*op(A)op(B) + beta*C + bias).

    Reads A, B, C (when beta != 0) and the bias; writes D in place. C may be D's own
    buffer (cuBLASLt's in-place form); D may not share a buffer with A, B or the bias.
    """

    name = "cublaslt_rt.matmul"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = opt_operand_def(MemRefType)
    bias = opt_operand_def(MemRefType)
    d = operand_def(MemRefType)
    plan = prop_def(SymbolRefAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = (
        "$plan `a` `(` $a `:` type($a) `)` `b` `(` $b `:` type($b) `)`"
        " (`c` `(` $c^ `:` type($c) `)`)? (`bias` `(` $bias^ `:` type($bias) `)`)?"
        " `d` `(` $d `:` type($d) `)` attr-dict"
    )

    def __init__(
        self,
        plan: str,
        a: SSAValue,
        b: SSAValue,
        d: SSAValue,
        c: SSAValue | None = None,
        bias: SSAValue | None = None,
    ):
        super().__init__(
            operands=[a, b, [c] if c is not None else [], [bias] if bias is not None else [], d],
            properties={"plan": SymbolRefAttr(plan)},
        )

    def read_operands(self) -> list[tuple[str, SSAValue]]:
        """The buffers this matmul reads, each with its role: A, B, C, the bias."""
        roles = [("A", self.a), ("B", self.b), ("C", self.c), ("the bias", self.bias)]
        return [(role, value) for role, value in roles if value is not None]

    def plan_op(self) -> PlanOp | None:
        """The `cublaslt_rt.plan` this matmul names, or None if there is none."""
        try:
            found = SymbolTable.lookup_symbol(self, self.plan)
        except ValueError:  # not inside a module yet
            return None
        return found if isinstance(found, PlanOp) else None

    def complete_plan(self) -> tuple[PlanOp, MatmulDescriptor] | None:
        """The plan this matmul names and its descriptor, or None when there is no such
        plan or its properties do not make a descriptor (a missing or misspelled field:
        the plan's own verifier reports that, at the plan)."""
        plan = self.plan_op()
        if plan is None:
            return None
        try:
            return plan, plan.descriptor()
        except (KeyError, AssertionError, TypeError, ValueError):
            return None

    def buffer_access(self) -> Access:
        """A, B, C and the bias are read; D is written."""
        return Access(tuple(v for _, v in self.read_operands()), (self.d,))

    def verify_(self) -> None:
        plan = self.plan_op()
        if plan is None:
            raise VerifyException(
                f"'{self.name}' names plan {self.plan}, but the enclosing module has no "
                f"cublaslt_rt.plan of that name"
            )
        complete = self.complete_plan()
        if complete is None:
            return  # the plan's own verifier says what its properties lack
        a = require_buffer(self, "operand A", self.a)
        b = require_buffer(self, "operand B", self.b)
        c = require_buffer(self, "operand C", self.c) if self.c is not None else None
        bias = require_buffer(self, "bias", self.bias) if self.bias is not None else None
        d = require_buffer(self, "operand D", self.d)
        for role, value in (("A", self.a), ("B", self.b), ("bias", self.bias)):
            if value is self.d:
                raise VerifyException(
                    f"'{self.name}' writes D into the buffer it reads as {role}; cuBLASLt "
                    f"needs D apart from A, B and the bias"
                )
        call = MatmulCall(
            complete[1],
            tensor_of(a),
            tensor_of(b),
            tensor_of(c) if c is not None else None,
            tensor_of(bias) if bias is not None else None,
            tensor_of(d),
        )
        # The shared checks print operand types as tensors; here the operands are buffers.
        problems = [
            str(p).replace("tensor<", "memref<") for p in _run_invariants(BUFFER_INVARIANTS, call)
        ]
        bias_dtype = plan.bias_data_type()
        if (
            bias is not None
            and bias_dtype is not None
            and DataType.from_element_type(bias.element_type) != bias_dtype
        ):
            problems.append(
                f"the plan reads the bias as {bias_dtype}, but the bias buffer is {bias}"
            )
        if problems:
            raise FindingsVerifyException([f"{self.plan}: {p}" for p in problems])
