"""The `cublaslt_rt` dialect: the cuBLASLt host API as IR, on buffers.

Level 3 of lumir (buffer semantics, builtin `memref` types). A lowered function is what
an executor runs, op by op:

- `cublaslt_rt.plan @plan0 {...}` (module level): one cuBLASLt plan, i.e. the operation
  descriptor, the four matrix layouts, how the algorithm is chosen and the workspace
  it may use. An executor builds it once, when it loads the program, from the
  properties (the whole `MatmulDescriptor` of level 2) and the real buffers.
- `cublaslt_rt.alloc` and `cublaslt_rt.constant`: a buffer, empty or holding a literal.
- `cublaslt_rt.matmul @plan0 a(..) b(..) c(..)? bias(..)? d(..)`: one `cublasLtMatmul`
  with that plan, reading A, B, C and the bias and writing D in place.
- `cublaslt_rt.matmul_group { cublaslt_rt.matmul ... }`: GEMV matmuls that read one B
  and run as one launch of the grouped GEMV kernel (made by `group-gemv`).
- `cublaslt_rt.launch "hl.softmax" {dim = 1 : i64} ins(..) outs(..)`: any other kernel;
  it runs the `hl` op it names, with that op's properties, from input buffers into an
  output buffer.
- `cublaslt_rt.fused_launch ins(..) outs(..) { hl body }`: one fused kernel (a bufferized
  `hl.fused`), writing each of its output buffers.
- `cublaslt_rt.launch_group { cublaslt_rt.launch ... }`: independent launches of one
  kernel (a decode layer's in-place KV-cache writes, its counters' integer adds) that
  run as one launch on CUDA (made by `group-launches`).

A buffer is a dense row-major `memref` (static shape, no layout, no memory space); at
run time it is a flat `torch.uint8` tensor of raw bytes (docs/conventions.md). The plan
verifies the descriptor alone (invariants V1, V2, V3 and V7 of docs/design.md); a matmul
verifies its buffers against its plan (V4, V5, V6, V8, V9, V10); a launch verifies that
the `hl` op it names accepts its buffers' types. So a program that verifies is one the
CPU and CUDA executors run without further checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    HasParent,
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from lumir.cublaslt_enums import FORWARD_EPILOGUES, DataType, Epilogue, Operand
from lumir.dialects.cublaslt import (
    DataTypeAttr,
    DescriptorProperties,
    MatmulDescriptor,
    descriptor_from_properties,
    descriptor_properties,
)
from lumir.dtypes import element_byte_width as dtype_byte_width
from lumir.operand_layout import OPERAND_FIELDS, matrix_layout
from lumir.plan_algorithms import (
    ALGORITHMS,
    GEMV_GROUP_MAX,
    gemv_config,
    gemv_group_problems,
    gemv_problems,
    vector_step,
)
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


# --- buffers -----------------------------------------------------------------------


def dense_memref_problem(value_type: Attribute) -> str | None:
    """Why `value_type` is not a runtime buffer type, or None if it is one.

    A buffer is a dense row-major memref: a static shape, the identity layout and the
    default memory space, so that its bytes are exactly its elements in row-major order.
    """
    if not isinstance(value_type, MemRefType):
        return f"expected a memref buffer, got {value_type}"
    if any(dim < 0 for dim in value_type.get_shape()):
        return f"buffer {value_type} has a dynamic dimension; buffers have static shapes"
    if not isinstance(value_type.layout, NoneAttr):
        return f"buffer {value_type} has a layout; buffers are dense and row-major"
    if not isinstance(value_type.memory_space, NoneAttr):
        return f"buffer {value_type} has a memory space; executors place every buffer"
    if dtype_byte_width(value_type.element_type) is None:
        return (
            f"buffer {value_type} holds {value_type.element_type}, which has no byte width; "
            "buffers hold elements of a fixed width (f32, bf16, i64, ...)"
        )
    return None


def _members_lack_buffers(members: Iterable[Operation]) -> bool:
    """Whether an operand of a group's member is no runtime buffer (`dense_memref_problem`).

    A group's checks compare the byte ranges of its members' buffers, which such an
    operand has none of; the member's own verifier reports it, located at the member,
    so the group says nothing more (it asserted on a `memref<index>`).
    """
    return any(
        dense_memref_problem(value.type) is not None
        for member in members
        for value in member.operands
    )


def _require_buffer(op: Operation, role: str, value: SSAValue) -> MemRefType[Attribute]:
    problem = dense_memref_problem(value.type)
    if problem is not None:
        raise VerifyException(f"'{op.name}' {role}: {problem}")
    assert isinstance(value.type, MemRefType)
    return value.type


def tensor_of(buffer_type: MemRefType[Attribute]) -> TensorType[Attribute]:
    """The value-semantics type whose data a buffer of `buffer_type` holds."""
    return TensorType(buffer_type.element_type, buffer_type.get_shape())


def buffer_of(tensor_type: TensorType[Attribute]) -> MemRefType[Attribute]:
    """The buffer type that holds a value of `tensor_type` (bufferization's type map)."""
    return MemRefType(tensor_type.element_type, tensor_type.get_shape())


# --- plan ----------------------------------------------------------------------------


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
        workspace = _int(self.workspace_size)
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


def _int(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


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


# --- buffers -------------------------------------------------------------------------


@irdl_op_definition
class AllocOp(IRDLOperation):
    """A new buffer, owned by the program; executors allocate it once, at load time."""

    name = "cublaslt_rt.alloc"

    memref = result_def(MemRefType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($memref)"

    def __init__(self, buffer_type: MemRefType[Attribute]):
        super().__init__(result_types=[buffer_type])

    def verify_(self) -> None:
        problem = dense_memref_problem(self.memref.type)
        if problem is not None:
            raise VerifyException(f"'{self.name}' {problem}")


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A buffer holding a literal (an `hl.constant`), filled once at load time."""

    name = "cublaslt_rt.constant"

    value = prop_def(DenseIntOrFPElementsAttr)
    memref = result_def(MemRefType)
    traits = traits_def(MemoryAllocEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($memref)"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        value_type = value.get_type()
        assert isinstance(value_type, TensorType)
        super().__init__(properties={"value": value}, result_types=[buffer_of(value_type)])

    def verify_(self) -> None:
        buffer_type = _require_buffer(self, "result", self.memref)
        value_type = self.value.get_type()
        if value_type != tensor_of(buffer_type):
            raise VerifyException(
                f"'{self.name}' value of type {value_type} does not fill a buffer of type "
                f"{buffer_type}; expected a value of type {tensor_of(buffer_type)}"
            )


# --- matmul --------------------------------------------------------------------------


@irdl_op_definition
class MatmulOp(IRDLOperation):
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
        a = _require_buffer(self, "operand A", self.a)
        b = _require_buffer(self, "operand B", self.b)
        c = _require_buffer(self, "operand C", self.c) if self.c is not None else None
        bias = _require_buffer(self, "bias", self.bias) if self.bias is not None else None
        d = _require_buffer(self, "operand D", self.d)
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


# --- grouped GEMV ----------------------------------------------------------------------


@irdl_op_definition
class MatmulGroupOp(IRDLOperation):
    """GEMV matmuls that read one activation, run as one launch (`lumir.runtime.gemv`).

    The body is the member `cublaslt_rt.matmul` ops themselves, in program order, each
    with its own plan, weight, D and optional C and bias, and its own location. On the
    CPU the members run one after the other, exactly as they would ungrouped; on CUDA
    they are one launch of the grouped GEMV kernel, in which each member is summed
    with the block shape of its own launch, so every D is bit for bit what it would be
    alone. The verifier refuses a group that launch could not run that way
    (`matmul_group_problems`).

    After the members the body may hold one `cublaslt_rt.fused_launch`, the group's
    epilogue (made by the `gemv-epilogue` pass): an elementwise body whose inputs are
    exactly the members' D values, which nothing outside the group reads. On the CPU it
    runs after the members, as it would ungrouped; on CUDA the whole group is one
    generated kernel (`lumir.runtime.gemv_epilogue`) that keeps each member's rounded
    D in registers, computes the body on it and writes only the body's results: the
    members' D buffers are scratch there, left unwritten
    (`gemv_epilogue_problems`).

    Before the members the body may hold one `cublaslt_rt.fused_launch`, the group's
    prologue (made by the `gemv-prologue` pass): a one-row body (an RMSNorm) whose one
    output is the B every member reads, which nothing outside the group reads. On the
    CPU it runs before the members, as it would ungrouped; on CUDA every program of the
    group's one generated kernel computes the row in registers and sums its rows
    against it, and B's buffer is scratch, left unwritten (`gemv_prologue_problems`).
    """

    name = "cublaslt_rt.matmul_group"

    body = region_def("single_block")

    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = "attr-dict-with-keyword $body"

    def __init__(self, members: Sequence[MatmulOp]):
        block = Block()
        for member in members:
            member.detach()
            block.add_op(member)
        super().__init__(regions=[Region(block)])

    def members(self) -> list[MatmulOp]:
        """The member matmuls, in order (only matmuls, once the group verifies)."""
        return [op for op in self.body.block.ops if isinstance(op, MatmulOp)]

    def epilogue(self) -> FusedLaunchOp | None:
        """The fused launch after the members, if the group has one."""
        last = self.body.block.last_op
        if not isinstance(last, FusedLaunchOp) or last is self.body.block.first_op:
            return None
        return last

    def prologue(self) -> FusedLaunchOp | None:
        """The fused launch before the members, if the group has one."""
        first = self.body.block.first_op
        return first if isinstance(first, FusedLaunchOp) else None

    def steps(self) -> list[Operation]:
        """What the group runs, in order: its prologue, members and epilogue."""
        return list(self.body.block.ops)

    def verify_(self) -> None:
        ops = list(self.body.block.ops)
        if ops and isinstance(ops[0], FusedLaunchOp):
            ops.pop(0)
        if ops and isinstance(ops[-1], FusedLaunchOp):
            ops.pop()
        strangers = [op.name for op in ops if not isinstance(op, MatmulOp)]
        if strangers or self.body.block.args:
            raise VerifyException(
                f"'{self.name}' holds at most one cublaslt_rt.fused_launch, then only "
                f"cublaslt_rt.matmul ops, then at most one cublaslt_rt.fused_launch, and no "
                f"block arguments; found {', '.join(strangers) or 'block arguments'}"
            )
        if _members_lack_buffers(self.body.block.ops):
            return
        steps = [step for step in (self.prologue(), self.epilogue()) if step is not None]
        if any(len(step.body.blocks) != 1 for step in steps):
            return  # the launch's own verifier says what is wrong with its region, located
        problems = matmul_group_problems(self.members())
        prologue = self.prologue()
        if prologue is not None:
            problems += gemv_prologue_problems(self, prologue)
        epilogue = self.epilogue()
        if epilogue is not None:
            problems += gemv_epilogue_problems(self, epilogue)
        if problems:
            raise FindingsVerifyException([f"'{self.name}' {p}" for p in problems])


def _member_name(index: int, member: MatmulOp) -> str:
    return f"member {index} ({member.plan})"


def matmul_group_problems(members: Sequence[MatmulOp]) -> list[str]:
    """Why `members` cannot run as one grouped GEMV launch (empty when they can).

    Two to `GEMV_GROUP_MAX` members (the kernel's slots); each a GEMV plan's call
    (`algorithm = "gemv"`); all reading one B value and agreeing with the first member
    as `gemv_group_problems` asks (k, B's type and step, one block shape); and no
    member writing bytes another member reads or writes (views resolved): the members
    run at once, so none may depend on another. A member whose plan is missing or
    incomplete is left to its own verifier.
    """
    if not 2 <= len(members) <= GEMV_GROUP_MAX:
        return [f"holds {len(members)} matmul(s); a grouped GEMV runs 2 to {GEMV_GROUP_MAX}"]
    problems: list[str] = []
    completes = [member.complete_plan() for member in members]
    first_desc = completes[0][1] if completes[0] is not None else None
    for index, (member, complete) in enumerate(zip(members, completes, strict=True)):
        name = _member_name(index, member)
        plan = complete[0] if complete is not None else None
        if plan is not None and plan.algorithm.data != "gemv":
            problems.append(
                f'{name} runs algorithm = "{plan.algorithm.data}"; a group runs GEMV plans '
                f'(algorithm = "gemv") only'
            )
        if index == 0:
            continue
        if member.b is not members[0].b:
            problems.append(f"{name} reads another B than member 0; a group reads one B")
        if complete is not None and first_desc is not None:
            problems += [f"{name}: {p}" for p in gemv_group_problems(first_desc, complete[1])]
    for index, member in enumerate(members):
        for other_index, other in enumerate(members):
            if other is member:
                continue
            touched = other.read_operands() + ([("D", other.d)] if other_index > index else [])
            for role, value in touched:
                if overlap(member.d, value):
                    problems.append(
                        f"{_member_name(index, member)} writes D into bytes "
                        f"{_member_name(other_index, other)} "
                        f"{'writes' if role == 'D' else 'reads as ' + role}; the members of a "
                        f"group run at once and may not depend on each other"
                    )
    return problems


def buffer_elements(value: SSAValue) -> int:
    """How many elements the buffer `value` holds."""
    assert isinstance(value.type, MemRefType)
    return math.prod(value.type.get_shape())


def element_of(value: SSAValue) -> Attribute:
    """The element type of the buffer `value`."""
    assert isinstance(value.type, MemRefType)
    return value.type.element_type


def view_users(value: SSAValue) -> list[Operation]:
    """The ops that use the buffer `value` or a view of it (views followed, not listed),
    in the order the uses are found, each once."""
    found: list[Operation] = []
    pending = [value]
    while pending:
        for use in pending.pop().uses:
            user = use.operation
            if isinstance(user, ViewOp):
                pending.append(user.result)
            elif user not in found:
                found.append(user)
    return found


def outside_reader(
    group: MatmulGroupOp,
    scratch: SSAValue,
    steps: Sequence[FusedLaunchOp],
    written: Sequence[SSAValue],
) -> Operation | None:
    """An op outside `group` that reads `scratch`, a buffer the group's one CUDA kernel
    leaves unwritten (the prologue's output; with an epilogue, the members' D), or None.

    Two kinds count. An op before the group that uses `scratch` itself or a view of it
    (`view_users`). And an op after the group, in its block, that reads bytes of
    `scratch`, through the value or any other view of its buffer (a sibling view at the
    same bytes, the buffer it views, as the buffer plan makes them), before an op writes
    them again: program order, with the effects the passes see
    (`lumir.passes.program_order.access`: an op they do not know, `func.return`
    included, reads all its operands) and views resolved to their bytes. A later op that
    writes the bytes first (the buffer plan's next tenant) ends the check there; so do
    `written`, bytes the group itself writes on CUDA (the epilogue's outputs, which the
    buffer plan may place over a D). `steps` are the group's prologue and epilogue,
    which need not stand in it yet (a pass asks before it moves one in): not outside.
    """
    from lumir.passes.program_order import access

    later: list[Operation] = []
    op = group.next_op
    while op is not None:
        later.append(op)
        op = op.next_op
    block = group.parent_block()
    for user in view_users(scratch):
        if group.is_ancestor(user) or user in steps:
            continue
        top = None if block is None else block.find_ancestor_op_in_block(user)
        if top not in later:  # before the group: after it, the walk below decides
            return user
    root, start, end = byte_range(scratch)
    stale = _without([(start, end)], root, written)
    op = group.next_op
    while op is not None and stale:
        if op not in steps:
            effects = access(op)
            reads = effects.reads
            if effects.everything:
                reads = tuple(v for inner in op.walk() for v in inner.operands)
            if any(_meets(stale, root, value) for value in reads):
                return op
            stale = _without(stale, root, effects.writes)
        op = op.next_op
    return None


def _meets(ranges: Sequence[tuple[int, int]], root: SSAValue, value: SSAValue) -> bool:
    """Whether the buffer `value` shares a byte with `ranges` of the buffer `root`."""
    if not isinstance(value.type, MemRefType):
        return False
    found, start, end = byte_range(value)
    return found is root and any(first < end and start < last for first, last in ranges)


def _without(
    ranges: Sequence[tuple[int, int]], root: SSAValue, values: Sequence[SSAValue]
) -> list[tuple[int, int]]:
    """`ranges` of the buffer `root` less the bytes of `values` that lie in it."""
    left = list(ranges)
    for value in values:
        found, start, end = byte_range(value)
        if found is not root:
            continue
        pieces = [(first, min(last, start)) for first, last in left]
        pieces += [(max(first, end), last) for first, last in left]
        left = [(first, last) for first, last in pieces if first < last]
    return left


def epilogue_sources(group: MatmulGroupOp, epilogue: FusedLaunchOp) -> list[int | None]:
    """For each input of `epilogue`, the index of the member of `group` whose D it is (the
    same bytes, views resolved), None where it is none (which the verifier refuses)."""
    ds = [byte_range(member.d) for member in group.members()]
    found = [byte_range(value) for value in epilogue.inputs]
    return [ds.index(bytes_) if bytes_ in ds else None for bytes_ in found]


def gemv_epilogue_problems(group: MatmulGroupOp, epilogue: FusedLaunchOp) -> list[str]:
    """Why `epilogue` cannot be the last step of the one kernel that runs `group` on CUDA
    (empty when it can).

    That kernel computes m rows of every member's D per program and applies the body to
    them where they are, so the body must be elementwise (`is_elementwise`), every
    member must have the same m, each input must be exactly a member's D (the same
    bytes, m elements of D's type), each output m elements, and every member's D must
    be read: the kernel never writes the members' D buffers, so nothing outside the
    group may read them, through any view of their bytes (`outside_reader`; bytes the
    epilogue writes are written). `epilogue` need not stand in the group yet (the
    `gemv-epilogue` pass asks before it moves the launch there).
    """
    from lumir.dialects.hl.row_program import is_elementwise

    problems: list[str] = []
    members = group.members()
    values = [*(member.d for member in members), *epilogue.inputs, *epilogue.outputs]
    if not all(isinstance(value.type, MemRefType) for value in values):
        return problems  # the ops' own verifiers say what is wrong
    if not is_elementwise(epilogue.body.block.ops):
        problems.append(
            "epilogue: its body must be elementwise (no reduction, slice, cat or transpose)"
        )
    rows = {buffer_elements(member.d) for member in members}
    if len(rows) != 1:
        problems.append(f"epilogue: the members have different m ({sorted(rows)}); one m runs")
        return problems
    (m,) = rows
    read = [False] * len(members)
    owners = epilogue_sources(group, epilogue)
    for index, (value, owner) in enumerate(zip(epilogue.inputs, owners, strict=True)):
        element = element_of(value)
        if owner is None or buffer_elements(value) != m or element != element_of(members[owner].d):
            problems.append(
                f"epilogue: input {index} must be one member's D, whole ({m} elements of its type)"
            )
            continue
        read[owner] = True
    for index, value in enumerate(epilogue.outputs):
        if buffer_elements(value) != m:
            problems.append(f"epilogue: output {index} must hold {m} elements, one per row")
    for index, member in enumerate(members):
        if not read[index]:
            problems.append(f"epilogue: it reads no D of {_member_name(index, member)}")
        outside = outside_reader(group, member.d, [epilogue], epilogue.outputs)
        if outside is not None:
            problems.append(
                f"epilogue: {outside.name} outside the group reads the D of "
                f"{_member_name(index, member)}, which the group's kernel does not write"
            )
    return problems


def gemv_prologue_problems(
    group: MatmulGroupOp, prologue: FusedLaunchOp, epilogue: FusedLaunchOp | None = None
) -> list[str]:
    """Why `prologue` cannot be the first step of the one kernel that runs `group` on CUDA
    (empty when it can).

    Every program of that kernel computes the prologue's one row in registers, then sums
    its rows of each member against it in one block of columns, as the member's own
    launch does when its block holds the whole row. So the body must be a program over
    one row of k lanes; its one output must be the B every member reads (the same
    bytes, k elements of B's type, read with step 1); every member must sum the row as
    one block (`gemv_config`'s BLOCK_K at least k); nothing may read B but the members,
    as their B (the kernel never writes its buffer: not a member as its A, C or bias,
    not the epilogue, nothing outside the group, through any view of B's bytes:
    `outside_reader`); and no step of the group may write bytes the prologue reads (its
    programs run at once). `prologue` need not stand in the group yet (the
    `gemv-prologue` pass asks before it moves the launch there). The epilogue is the
    group's, or `epilogue` where given: a launch the `gemv-epilogue` pass asks about
    before it moves it in after the members.
    """
    from lumir.dialects.hl.fused import body_problem
    from lumir.dialects.hl.row_program import row_program

    problems: list[str] = []
    members = group.members()
    values = [*(member.b for member in members), *prologue.inputs, *prologue.outputs]
    if not members or not all(isinstance(value.type, MemRefType) for value in values):
        return problems  # the ops' own verifiers say what is wrong
    b = members[0].b
    k = buffer_elements(b)
    if len(prologue.outputs) != 1:
        return [f"prologue: it has {len(prologue.outputs)} outputs; one, the members' B, runs"]
    (output,) = prologue.outputs
    if byte_range(output) != byte_range(b) or element_of(output) != element_of(b):
        problems.append("prologue: its output must be the members' B, whole (the same bytes)")
    block = prologue.body.block
    typed = [tensor_of(value.type) for value in (*prologue.inputs, *prologue.outputs)]  # type: ignore[arg-type]
    split = len(prologue.inputs)
    try:
        for op in block.ops:
            op.verify()
    except VerifyException:
        return problems  # the body's ops say what is wrong with them, located
    if body_problem(block, typed[:split], typed[split:]) is not None:
        return problems  # the launch's own verifier says what is wrong with its body
    terminator = block.last_op
    ops = [op for op in block.ops if op is not terminator]
    try:
        program = row_program(ops, list(block.args), list(terminator.operands))  # type: ignore[union-attr]
    except ValueError:
        program = None
    if program is None or math.prod(program.lead) != 1 or program.hidden != k:
        problems.append(f"prologue: its body must compute one row of {k} elements")
    for index, member in enumerate(members):
        complete = member.complete_plan()
        if complete is None:
            continue
        desc = complete[1]
        if vector_step(desc) != 1:
            problems.append(f"prologue: {_member_name(index, member)} reads B with a step")
        block_k = gemv_config(desc.m, desc.k)[1]
        if block_k < k:
            problems.append(
                f"prologue: {_member_name(index, member)} sums its row in blocks of "
                f"{block_k} columns; a prologue needs the whole row ({k}) in one"
            )
    if epilogue is None:
        epilogue = group.epilogue()
    steps = [prologue] if epilogue is None else [prologue, epilogue]
    written = [] if epilogue is None else epilogue.outputs
    outside = outside_reader(group, output, steps, written)
    if outside is not None:
        problems.append(
            f"prologue: {outside.name} outside the group reads its output, which the "
            f"group's kernel does not write"
        )
    for index, member in enumerate(members):
        for role, value in member.read_operands():
            if role != "B" and overlap(value, output):
                problems.append(
                    f"prologue: {_member_name(index, member)} reads its output as {role}; "
                    f"the group's kernel holds it in registers only, as the members' B"
                )
    if epilogue is not None and any(overlap(value, output) for value in epilogue.inputs):
        problems.append(
            "prologue: the epilogue reads its output, which the group's kernel does not write"
        )
    written = [member.d for member in members]
    if epilogue is not None:
        written += list(epilogue.outputs)
    for index, value in enumerate(prologue.inputs):
        if any(overlap(value, other) for other in written):
            problems.append(
                f"prologue: input {index} shares bytes with what the group writes; the "
                f"programs that read it run beside the ones that write"
            )
    return problems


# --- other kernels ----------------------------------------------------------------------


def hl_op_class(kernel: str) -> type[IRDLOperation] | None:
    """The `hl` op class a launch of `kernel` runs, or None if `kernel` names none."""
    from lumir.dialects.hl import HL

    for op_class in HL.operations:
        if op_class.name == kernel and issubclass(op_class, IRDLOperation):
            return op_class
    return None


IN_PLACE_KERNELS = (
    "hl.index_copy",
    "hl.add",
    "hl.sub",
    "hl.mul",
    "hl.div",
    "hl.maximum",
    "hl.neg",
    "hl.cast",
)
"""Kernels that may write their first input in place (`outs` is `ins[0]`): each output
element depends only on the same element of the first input (or, for index_copy, the
slices it replaces), so reading and writing one buffer gives what two buffers give.
The torch backend uses this to update a model's KV cache where it lives."""


STRIDED_KERNELS = ("hl.sdpa",)
"""Kernels that read inputs and write their result through strided views of buffers
(`input_windows`, `input_permutations`, `output_permutation`): torch's SDPA and lumir's
attention kernels take query, key and value of any strides whose last dimension is
contiguous, so a slice or transpose of an operand or of the result need not be a copy
kernel of its own."""


Permutation = tuple[int, ...]


@dataclass(frozen=True)
class Window:
    """A launch input read as `hl.reshape(hl.slice(buffer, -1, start, end), shape)`:
    elements [start, end) of the buffer's last dimension, that dimension then split
    into `shape`'s trailing dimensions (a strided view: rows keep the buffer's stride)."""

    start: int
    end: int
    shape: tuple[int, ...]

    def values(self) -> list[int]:
        """The `array<i64: start, end, shape...>` it is written as."""
        return [self.start, self.end, *self.shape]

    @staticmethod
    def from_values(values: Sequence[int]) -> Window | None:
        """The window of an `input_windows` entry (None for an empty one)."""
        if not values:
            return None
        start, end, *shape = values
        return Window(start, end, tuple(shape))

    def problem(self, buffer_shape: Sequence[int]) -> str | None:
        """Why this window is not a view of a buffer of `buffer_shape` (None when it is)."""
        if not buffer_shape:
            return "a rank-0 buffer has no last dimension to slice"
        *lead, last = buffer_shape
        if not 0 <= self.start < self.end <= last:
            return f"[{self.start}, {self.end}) is not a non-empty range of the last {last}"
        if list(self.shape[: len(lead)]) != list(lead) or len(self.shape) < len(buffer_shape):
            return (
                f"shape {list(self.shape)} does not keep the leading dimensions {lead} and "
                f"split only the last"
            )
        if math.prod(self.shape[len(lead) :]) != self.end - self.start:
            return f"shape {list(self.shape)} does not split {self.end - self.start} elements"
        return None


def inverse_permutation(permutation: Permutation) -> Permutation:
    """The permutation that undoes `permutation` (transpose by one, then the other)."""
    inverse = [0] * len(permutation)
    for position, dim in enumerate(permutation):
        inverse[dim] = position
    return tuple(inverse)


def permuted_shape(shape: tuple[int, ...], permutation: Permutation) -> tuple[int, ...]:
    """The shape of `hl.transpose` of a `shape` value by `permutation`."""
    return tuple(shape[dim] for dim in permutation)


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """A non-GEMM kernel: the `hl` op named by `kernel`, run from buffers into a buffer.

    `params` holds the properties of that `hl` op (absent when it has none). The launch
    reads `inputs` and writes `output`, which it may not also read, except that a kernel
    of `IN_PLACE_KERNELS` may write its first input in place (`outs` is `ins[0]`, of the
    same type).

    A kernel of `STRIDED_KERNELS` may read and write through strided views instead of
    the dense buffers themselves, so that a slice or transpose next to it is no copy:
    `input_windows` (one `array<i64>` per input, empty or `[start, end, shape...]`, a
    `Window`) makes input i's value `hl.reshape(hl.slice(input i, -1, start, end),
    shape)`, as q, k and v are column blocks of one fused projection's result;
    `input_permutations` (one `array<i64>` per input) makes the op's operand i
    `hl.transpose(value i, permutation i)`, a strided view of input i's bytes, and
    `output_permutation` q makes the output buffer hold `hl.transpose(result, q)`,
    i.e. the kernel writes its result into the output buffer viewed permuted by q's
    inverse. Every permutation keeps the last dimension last (its stride stays 1).
    """

    name = "cublaslt_rt.launch"

    inputs = var_operand_def(MemRefType)
    output = operand_def(MemRefType)
    kernel = prop_def(StringAttr)
    params = opt_prop_def(DictionaryAttr)
    input_windows = opt_prop_def(ArrayAttr[DenseArrayBase])
    input_permutations = opt_prop_def(ArrayAttr[DenseArrayBase])
    output_permutation = opt_prop_def(DenseArrayBase)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$kernel ($params^)? `ins` `(` ($inputs^ `:` type($inputs))? `)`"
        " `outs` `(` $output `:` type($output) `)` attr-dict"
    )

    def __init__(
        self,
        kernel: str,
        inputs: list[SSAValue],
        output: SSAValue,
        params: Mapping[str, Attribute] | None = None,
        input_permutations: Sequence[Permutation] | None = None,
        output_permutation: Permutation | None = None,
        input_windows: Sequence[Window | None] | None = None,
    ):
        properties: dict[str, Attribute] = {"kernel": StringAttr(kernel)}
        if params:
            properties["params"] = DictionaryAttr(dict(params))
        if input_windows is not None:
            properties["input_windows"] = ArrayAttr(
                [
                    DenseArrayBase.from_list(i64, window.values() if window else [])
                    for window in input_windows
                ]
            )
        if input_permutations is not None:
            properties["input_permutations"] = ArrayAttr(
                [DenseArrayBase.from_list(i64, list(p)) for p in input_permutations]
            )
        if output_permutation is not None:
            properties["output_permutation"] = DenseArrayBase.from_list(
                i64, list(output_permutation)
            )
        super().__init__(operands=[inputs, output], properties=properties)

    def kernel_params(self) -> dict[str, Attribute]:
        """The `hl` op's properties (an empty dict when it has none)."""
        return dict(self.params.data) if self.params is not None else {}

    def read_windows(self) -> list[Window | None]:
        """The window each input is read through (None where it is read whole)."""
        if self.input_windows is None:
            return [None for _ in self.inputs]
        return [
            Window.from_values([int(v) for v in w.get_values()]) for w in self.input_windows.data
        ]

    def read_permutations(self) -> list[Permutation]:
        """The permutation each input is read through (the identity when there is none)."""
        if self.input_permutations is None:
            return [_identity(value) for value in self.inputs]
        return [tuple(int(v) for v in p.get_values()) for p in self.input_permutations.data]

    def write_permutation(self) -> Permutation:
        """How the output buffer holds the result: `hl.transpose(result, this)`."""
        if self.output_permutation is None:
            return _identity(self.output)
        return tuple(int(v) for v in self.output_permutation.get_values())

    def verify_(self) -> None:
        kernel = self.kernel.data
        op_class = hl_op_class(kernel)
        if op_class is None or kernel in ("hl.constant", "hl.fused", "hl.yield"):
            raise VerifyException(
                f"'{self.name}' kernel \"{kernel}\" is not an hl op that runs as a kernel "
                f"(constants are cublaslt_rt.constant)"
            )
        input_types = [_require_buffer(self, "input", value) for value in self.inputs]
        output_type = _require_buffer(self, "output", self.output)
        in_place = (
            kernel in IN_PLACE_KERNELS
            and bool(self.inputs)
            and self.inputs[0] is self.output
            and input_types[0] == output_type
        )
        if any(value is self.output for value in self.inputs[1 if in_place else 0 :]):
            raise VerifyException(
                f"'{self.name}' {kernel} reads the buffer it writes (only "
                f"{', '.join(IN_PLACE_KERNELS)} may write their first input in place)"
            )
        operand_types, result_type = self._viewed_types(input_types, output_type)
        problem = _hl_problem(op_class, self.kernel_params(), operand_types, result_type)
        if problem is not None:
            raise VerifyException(f"'{self.name}' {kernel} on these buffers: {problem}")

    def _viewed_types(
        self, input_types: list[MemRefType[Attribute]], output_type: MemRefType[Attribute]
    ) -> tuple[list[TensorType[Attribute]], TensorType[Attribute]]:
        """The tensor types the kernel sees through its permuted views (checked here)."""
        kernel = self.kernel.data
        operands = [tensor_of(t) for t in input_types]
        result = tensor_of(output_type)
        strided = (self.input_windows, self.input_permutations, self.output_permutation)
        if all(attribute is None for attribute in strided):
            return operands, result
        if kernel not in STRIDED_KERNELS:
            raise VerifyException(
                f"'{self.name}' {kernel} reads and writes dense buffers; only "
                f"{', '.join(STRIDED_KERNELS)} takes input_windows, input_permutations or "
                f"output_permutation"
            )
        if self.input_windows is not None and len(self.input_windows.data) != len(input_types):
            raise VerifyException(
                f"'{self.name}' input_windows has {len(self.input_windows.data)} entries for "
                f"{len(input_types)} inputs; give one window (or an empty array) per input"
            )
        shapes = [tuple(t.get_shape()) for t in input_types]
        for index, window in enumerate(self.read_windows()):
            if window is None:
                continue
            problem = window.problem(shapes[index])
            if problem is not None:
                raise VerifyException(
                    f"'{self.name}' input {index} window on {input_types[index]}: {problem}"
                )
            shapes[index] = window.shape
        if self.input_permutations is not None:
            count = len(self.input_permutations.data)
            if count != len(input_types):
                raise VerifyException(
                    f"'{self.name}' input_permutations has {count} entries for "
                    f"{len(input_types)} inputs; give one permutation per input"
                )
        for index, (permutation, buffer) in enumerate(
            zip(self.read_permutations(), input_types, strict=True)
        ):
            shape = _checked_shape(self, f"input {index}", permutation, shapes[index], buffer)
            operands[index] = TensorType(buffer.element_type, permuted_shape(shape, permutation))
        permutation = self.write_permutation()
        output_shape = tuple(output_type.get_shape())
        shape = _checked_shape(self, "output", permutation, output_shape, output_type)
        inverse = inverse_permutation(permutation)
        result = TensorType(output_type.element_type, permuted_shape(shape, inverse))
        return operands, result


def _identity(value: SSAValue) -> Permutation:
    assert isinstance(value.type, MemRefType)
    return tuple(range(value.type.get_num_dims()))


def _checked_shape(
    op: Operation,
    role: str,
    permutation: Permutation,
    shape: tuple[int, ...],
    buffer: MemRefType[Attribute],
) -> tuple[int, ...]:
    """`shape` (of `buffer`, or of its window), once `permutation` is known to be a view
    the kernel can read."""
    rank = len(shape)
    if sorted(permutation) != list(range(rank)):
        raise VerifyException(
            f"'{op.name}' {role} permutation {list(permutation)} is not a permutation of "
            f"the {rank} dimensions of {buffer}"
            + ("" if shape == tuple(buffer.get_shape()) else f" viewed as {list(shape)}")
        )
    if rank and permutation[-1] != rank - 1:
        raise VerifyException(
            f"'{op.name}' {role} permutation {list(permutation)} moves the last dimension; "
            f"the kernel needs it last and contiguous (stride 1)"
        )
    return shape


def _hl_problem(
    op_class: type[IRDLOperation],
    params: dict[str, Attribute],
    input_types: list[TensorType[Attribute]],
    output_type: TensorType[Attribute],
) -> str | None:
    """What the `hl` op's own verifier says about running on values of these types.

    The op is built on detached block arguments of the buffers' tensor types, verified
    and dropped: the launch then accepts exactly what the `hl` op accepts.
    """
    block = Block(arg_types=input_types)
    try:
        probe = op_class.create(
            operands=list(block.args),
            result_types=[output_type],
            properties=params,
        )
    except (ValueError, TypeError) as error:
        return str(error)
    try:
        probe.verify()
    except VerifyException as error:
        return str(error)
    finally:
        probe.drop_all_references()
    return None


@irdl_op_definition
class FusedLaunchOp(IRDLOperation):
    """A fused kernel (`hl.fused`, bufferized): its body run from buffers into buffers.

    The body is the `hl.fused` body unchanged, on the tensor types of `inputs` (its
    block arguments) and yielding values of the tensor types of `outputs`. It reads
    `inputs` and writes every one of `outputs`, none of which it may also read, with
    one exception (`may_overwrite`): an output may occupy exactly the bytes of an input
    of its own type when the body is elementwise, so that every element is read before
    the same element is written. On CPU the executor runs the body op by op; on CUDA it
    is one generated Triton kernel.
    """

    name = "cublaslt_rt.fused_launch"

    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)
    body = region_def("single_block")

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "`ins` `(` ($inputs^ `:` type($inputs))? `)`"
        " `outs` `(` $outputs `:` type($outputs) `)` attr-dict-with-keyword $body"
    )

    def __init__(self, inputs: list[SSAValue], outputs: list[SSAValue], body: Region):
        super().__init__(operands=[inputs, outputs], regions=[body])

    def may_overwrite(self, output: SSAValue, input: SSAValue) -> bool:
        """Whether `output` may be written over exactly the bytes of `input`.

        True when both have one type and every op of the body is elementwise (no
        reduction, slice, cat or transpose): each output element then depends on the
        input only at its own index, which the kernel reads before it writes there, in
        any order of rows and columns (on CPU the whole body runs before any output is
        written). The buffer plan uses it to compute SiLU(gate) * up over gate's bytes.
        """
        from lumir.dialects.hl.row_program import is_elementwise

        if output not in self.outputs or input not in self.inputs or output.type != input.type:
            return False
        return is_elementwise(self.body.block.ops)

    def verify_(self) -> None:
        from lumir.dialects.hl.fused import body_problem

        input_types = [_require_buffer(self, "input", value) for value in self.inputs]
        output_types = [_require_buffer(self, "output", value) for value in self.outputs]
        if not output_types:
            raise VerifyException(f"'{self.name}' must write at least one buffer")
        for output in self.outputs:
            if any(
                value is output and not self.may_overwrite(output, value) for value in self.inputs
            ):
                raise VerifyException(
                    f"'{self.name}' reads a buffer it writes, which only an elementwise body may do"
                )
        problem = body_problem(
            self.body.block,
            [tensor_of(t) for t in input_types],
            [tensor_of(t) for t in output_types],
        )
        if problem is not None:
            raise VerifyException(f"'{self.name}' {problem}")


# --- grouped launches -------------------------------------------------------------------

GROUPED_KERNELS = ("hl.index_copy", "hl.add")
"""Kernels whose independent launches `cublaslt_rt.launch_group` runs as one (on CUDA, one
small Triton kernel, `lumir.runtime.launch_group`): the KV-cache writes of a decode
layer, and the integer adds of its per-layer cache counters. Each is a copy or an
integer sum, so the one launch writes exactly the bytes of the separate ones."""

LAUNCH_GROUP_MAX = 16
"""Members of one grouped launch at most (the kernel's unrolled member slots): a 16-layer
model's cache counters are one launch."""


@irdl_op_definition
class LaunchGroupOp(IRDLOperation):
    """Launches of one kernel that depend on none of each other, run as one launch.

    The body is the member `cublaslt_rt.launch` ops themselves, in program order, each
    with its own buffers and location. On the CPU the members run one after the other,
    exactly as they would ungrouped; on CUDA they are one launch of a small Triton
    kernel (`lumir.runtime.launch_group`), which copies (`hl.index_copy`) or adds
    integers (`hl.add`), so every member's output holds the bytes its own launch would
    write. The verifier refuses a group that launch could not run that way
    (`launch_group_problems`). Made by `group-launches`.
    """

    name = "cublaslt_rt.launch_group"

    body = region_def("single_block")

    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = "attr-dict-with-keyword $body"

    def __init__(self, members: Sequence[LaunchOp]):
        block = Block()
        for member in members:
            member.detach()
            block.add_op(member)
        super().__init__(regions=[Region(block)])

    def members(self) -> list[LaunchOp]:
        """The member launches, in order (only launches, once the group verifies)."""
        return [op for op in self.body.block.ops if isinstance(op, LaunchOp)]

    def kernel(self) -> str:
        """The kernel every member runs (its first member's, once the group verifies)."""
        return self.members()[0].kernel.data

    def verify_(self) -> None:
        strangers = [op.name for op in self.body.block.ops if not isinstance(op, LaunchOp)]
        if strangers or self.body.block.args:
            raise VerifyException(
                f"'{self.name}' holds only cublaslt_rt.launch ops and no block arguments, "
                f"found {', '.join(strangers) or 'block arguments'}"
            )
        if _members_lack_buffers(self.body.block.ops):
            return
        problems = launch_group_problems(self.members())
        if problems:
            raise FindingsVerifyException([f"'{self.name}' {p}" for p in problems])


def launch_member_problem(launch: LaunchOp) -> str | None:
    """Why `launch` cannot be a member of a grouped launch at all (None when it can).

    It runs a kernel of `GROUPED_KERNELS` on dense buffers (no permuted views), and

    - `hl.index_copy`: updates its cache in place (`outs` is `ins[0]`): the grouped
      kernel writes the indexed slices only, it never copies a whole cache;
    - `hl.add`: adds integers of one type (8 bits or wider; an i1 add is a logical or
      in torch), each input read whole (as many elements as the output) or as one
      element, so the kernel's sums are torch's wrap-around sums, element for element.
    """
    kernel = launch.kernel.data
    if kernel not in GROUPED_KERNELS:
        return f'runs "{kernel}"; a group runs {" or ".join(GROUPED_KERNELS)}'
    if launch.input_permutations is not None or launch.output_permutation is not None:
        return "reads or writes through a permuted view; a group runs dense buffers"
    if kernel == "hl.index_copy":
        if not launch.inputs or launch.inputs[0] is not launch.output:
            return (
                "writes a new buffer (outs is not ins[0]); a group updates caches in "
                "place, writing the indexed slices only"
            )
        return None
    output = launch.output.type
    assert isinstance(output, MemRefType)
    element = output.element_type
    types = [value.type for value in launch.inputs]
    if (
        not isinstance(element, IntegerType)
        or element.width.data < 8
        or any(not isinstance(t, MemRefType) or t.element_type != element for t in types)
    ):
        return (
            f"adds {', '.join(str(t) for t in types)} into {output}; a group adds "
            f"integers of one type (8 bits or wider) only"
        )
    count = _elements(output)
    for index, value_type in enumerate(types):
        assert isinstance(value_type, MemRefType)
        if _elements(value_type) not in (count, 1):
            return (
                f"broadcasts input {index} ({value_type}) to {output}; a group reads each "
                f"input whole or as one element"
            )
    return None


def _elements(buffer_type: MemRefType[Attribute]) -> int:
    count = 1
    for dim in buffer_type.get_shape():
        count *= dim
    return count


def _index(launch: LaunchOp) -> SSAValue | None:
    """The index buffer an `hl.index_copy` launch reads (None when it has no such input)."""
    return launch.inputs[1] if len(launch.inputs) > 1 else None


def launch_group_problems(
    members: Sequence[LaunchOp], overlaps: Callable[[SSAValue, SSAValue], bool] | None = None
) -> list[str]:
    """Why `members` cannot run as one grouped launch (empty when they can).

    Two to `LAUNCH_GROUP_MAX` members, each one a grouped launch can run
    (`launch_member_problem`), all running member 0's kernel with its params, an
    `hl.index_copy` member reading member 0's index buffer (the kernel reads one
    index), and no member writing bytes another member reads or writes (views
    resolved): the members run at once, so none may depend on another. `overlaps`
    replaces `overlap` (a pass that remembers byte ranges asks often).
    """
    overlaps = overlaps or overlap
    if not 2 <= len(members) <= LAUNCH_GROUP_MAX:
        return [f"holds {len(members)} launch(es); a grouped launch runs 2 to {LAUNCH_GROUP_MAX}"]
    problems: list[str] = []
    first = members[0]
    for index, member in enumerate(members):
        name = f"member {index} ({member.kernel.data})"
        problem = launch_member_problem(member)
        if problem is not None:
            problems.append(f"{name} {problem}")
        if index == 0:
            continue
        if member.kernel != first.kernel or member.params != first.params:
            problems.append(
                f"{name} runs another kernel or params than member 0; a group runs one kernel"
            )
        elif member.kernel.data == "hl.index_copy" and _index(member) is not _index(first):
            problems.append(f"{name} reads another index than member 0; a group reads one index")
    for index, member in enumerate(members):
        for other_index, other in enumerate(members):
            if other is member:
                continue
            touched = list(other.inputs) + ([other.output] if other_index > index else [])
            if any(overlaps(member.output, value) for value in touched):
                problems.append(
                    f"member {index} writes bytes member {other_index} reads or writes; the "
                    f"members of a group run at once and may not depend on each other"
                )
    return problems


FUSED_GROUP_MAX = 4
"""Members of one grouped fused launch at most: each is a branch of the one kernel, so
the kernel's text (and its compile time) grows with them; a layer's independent
launches (the q and k rotaries) are two."""


@irdl_op_definition
class FusedGroupOp(IRDLOperation):
    """Fused launches that depend on none of each other, run as one launch.

    The body is the member `cublaslt_rt.fused_launch` ops themselves, in program order,
    each with its own buffers, body and location. On the CPU the members run one after
    the other, exactly as they would ungrouped; on CUDA they are one launch of one
    generated Triton kernel (`lumir.runtime.fused_kernels.group_launch`) whose programs
    are the members' programs one after the other, each running its member's body text
    unchanged, so every member's outputs hold the bytes its own launch would write. The
    verifier refuses members that read or write what another member writes
    (`fused_group_problems`). Made by `group-fused`.
    """

    name = "cublaslt_rt.fused_group"

    body = region_def("single_block")

    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = "attr-dict-with-keyword $body"

    def __init__(self, members: Sequence[FusedLaunchOp]):
        block = Block()
        for member in members:
            member.detach()
            block.add_op(member)
        super().__init__(regions=[Region(block)])

    def members(self) -> list[FusedLaunchOp]:
        """The member launches, in order (only fused launches, once the group verifies)."""
        return [op for op in self.body.block.ops if isinstance(op, FusedLaunchOp)]

    def verify_(self) -> None:
        strangers = [op.name for op in self.body.block.ops if not isinstance(op, FusedLaunchOp)]
        if strangers or self.body.block.args:
            raise VerifyException(
                f"'{self.name}' holds only cublaslt_rt.fused_launch ops and no block "
                f"arguments, found {', '.join(strangers) or 'block arguments'}"
            )
        if _members_lack_buffers(self.body.block.ops):
            return
        problems = fused_group_problems(self.members())
        if problems:
            raise FindingsVerifyException([f"'{self.name}' {p}" for p in problems])


def fused_group_problems(
    members: Sequence[FusedLaunchOp], overlaps: Callable[[SSAValue, SSAValue], bool] | None = None
) -> list[str]:
    """Why `members` cannot run as one grouped fused launch (empty when they can).

    Two to `FUSED_GROUP_MAX` members, none writing bytes another member reads or writes
    (views resolved): the members' programs run at once, in no order, so none may
    depend on another. A member's own outputs may overwrite its own inputs as its
    launch allows (`FusedLaunchOp.may_overwrite`). `overlaps` replaces `overlap` (a
    pass that remembers byte ranges asks often).
    """
    overlaps = overlaps or overlap
    if not 2 <= len(members) <= FUSED_GROUP_MAX:
        return [
            f"holds {len(members)} fused launch(es); a grouped fused launch runs 2 to "
            f"{FUSED_GROUP_MAX}"
        ]
    problems: list[str] = []
    for index, member in enumerate(members):
        for other_index, other in enumerate(members):
            if other_index == index:
                continue
            touched = [*other.inputs, *(other.outputs if other_index > index else ())]
            if any(overlaps(out, value) for out in member.outputs for value in touched):
                problems.append(
                    f"member {index} writes bytes member {other_index} reads or writes; the "
                    f"members of a group run at once and may not depend on each other"
                )
    return problems


# --- views ----------------------------------------------------------------------------


def element_byte_width(element_type: Attribute) -> int:
    """Bytes one element of a buffer takes (i1 is a byte, as in torch.bool)."""
    width = dtype_byte_width(element_type)
    assert width is not None, f"no byte width for {element_type}"
    return width


def buffer_bytes(buffer_type: MemRefType[Attribute]) -> int:
    """Bytes a dense buffer of `buffer_type` holds."""
    count = 1
    for dim in buffer_type.get_shape():
        count *= dim
    return count * element_byte_width(buffer_type.element_type)


@irdl_op_definition
class ViewOp(IRDLOperation):
    """A buffer that is bytes [byte_offset, byte_offset + its size) of another buffer.

    No allocation and no copy: the result aliases `source`. The lowering uses it for
    shape ops that keep a dense buffer's bytes in place (a reshape, a slice of leading
    rows, a transpose or expand that only moves unit dimensions) and to place the
    intermediates of a function in one shared arena (`memref<Nxi8>`) by its buffer
    plan. The result may have any element type; its offset is a multiple of that
    type's byte width, so the view is a typed tensor over the same storage.
    """

    name = "cublaslt_rt.view"

    source = operand_def(MemRefType)
    byte_offset = prop_def(IntegerAttr)
    result = result_def(MemRefType)

    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, byte_offset: int, result_type: MemRefType[Attribute]):
        super().__init__(
            operands=[source],
            properties={"byte_offset": IntegerAttr(byte_offset, i64)},
            result_types=[result_type],
        )

    def offset(self) -> int:
        return _int(self.byte_offset)

    def verify_(self) -> None:
        source = _require_buffer(self, "source", self.source)
        result = _require_buffer(self, "result", self.result)
        offset, width = self.offset(), element_byte_width(result.element_type)
        if offset < 0 or offset % width:
            raise VerifyException(
                f"'{self.name}' byte_offset = {offset}, but it must be a non-negative "
                f"multiple of {width} (the byte width of {result.element_type})"
            )
        end, size = offset + buffer_bytes(result), buffer_bytes(source)
        if end > size:
            raise VerifyException(
                f"'{self.name}' a {result} at byte {offset} ends at byte {end}, past the "
                f"{size} bytes of its source {source}"
            )


def byte_range(value: SSAValue) -> tuple[SSAValue, int, int]:
    """(root buffer, first byte, end byte) of a buffer value, following views to their root.

    Two buffers overlap exactly when they share a root and their ranges intersect.
    """
    assert isinstance(value.type, MemRefType)
    start, end = 0, buffer_bytes(value.type)
    while isinstance(value.owner, ViewOp):
        view = value.owner
        start, end = start + view.offset(), end + view.offset()
        value = view.source
    return value, start, end


def overlap(first: SSAValue, second: SSAValue) -> bool:
    """Whether two buffer values share any byte (views resolved to their roots)."""
    root_a, start_a, end_a = byte_range(first)
    root_b, start_b, end_b = byte_range(second)
    return root_a is root_b and start_a < end_b and start_b < end_a


CublasltRt = Dialect(
    "cublaslt_rt",
    [
        PlanOp,
        AllocOp,
        ConstantOp,
        MatmulOp,
        MatmulGroupOp,
        LaunchOp,
        LaunchGroupOp,
        FusedLaunchOp,
        FusedGroupOp,
        ViewOp,
    ],
    [],
)

__all__ = [
    "ALGORITHMS",
    "FUSED_GROUP_MAX",
    "GROUPED_KERNELS",
    "LAUNCH_GROUP_MAX",
    "STRIDED_KERNELS",
    "AllocOp",
    "ConstantOp",
    "CublasltRt",
    "FusedGroupOp",
    "FusedLaunchOp",
    "LaunchGroupOp",
    "LaunchOp",
    "MatmulGroupOp",
    "MatmulOp",
    "PlanOp",
    "ViewOp",
    "Window",
    "buffer_bytes",
    "buffer_of",
    "byte_range",
    "dense_memref_problem",
    "descriptor_from_properties",
    "element_byte_width",
    "epilogue_problem",
    "fused_group_problems",
    "hl_op_class",
    "inverse_permutation",
    "launch_group_problems",
    "launch_member_problem",
    "matmul_group_problems",
    "overlap",
    "permuted_shape",
    "tensor_of",
]
