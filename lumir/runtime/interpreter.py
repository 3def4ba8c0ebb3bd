"""The reference: a value-semantics function run op by op as plain, unfused torch calls.

`interpret` runs an `hl`-level function (level 1) or a `cublaslt`-level one (level 2) on
torch tensors. Each `hl` op is the torch call it came from (`lumir.runtime.hl_torch`; an
`hl.fused` is its body, op by op);
each `cublaslt.matmul` is written out as the torch ops it stands for, on the operand
tensors themselves (`unfused_matmul`). Nothing here reads bytes through a descriptor: a
call that declares C as f32 over a bf16 tensor still sees the bf16 tensor's values, so
the reference is what the IR's author meant, and the compiled program (which reads
bytes, as cuBLASLt does) is compared against it by `lumir-run` and the tests.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue

from lumir.cublaslt_enums import DataType, Order, Transpose
from lumir.diagnostics import Diagnostic, LumirDiagnosticError, op_diagnostic
from lumir.dialects import cublaslt, hl
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.runtime.buffers import constant_tensor, data_type_dtype, shaped_type_parts
from lumir.runtime.fused_reference import bind_fused_body
from lumir.runtime.hl_torch import UnknownKernelError, bind_kernel, gelu_tanh


def find_function(module: ModuleOp, name: str | None = None) -> FuncOp:
    """The function to run: `name`, or the module's only function with a body."""
    functions = [op for op in module.ops if isinstance(op, FuncOp) and op.body.blocks]
    if name is not None:
        for function in functions:
            if function.sym_name.data == name:
                return function
        known = ", ".join(f"@{f.sym_name.data}" for f in functions) or "none"
        raise LumirDiagnosticError(
            [Diagnostic(f"the module has no function @{name} (functions: {known})")]
        )
    if not functions:  # "found none; name one" asked for a name there is nothing to give
        raise LumirDiagnosticError(
            [Diagnostic("nothing to run: the module has no func.func with a body")]
        )
    if len(functions) != 1:
        known = ", ".join(f"@{f.sym_name.data}" for f in functions) or "none"
        raise LumirDiagnosticError(
            [Diagnostic(f"expected exactly one function to run, found {known}; name one")]
        )
    return functions[0]


Signature = tuple[tuple[tuple[int, ...], torch.dtype], ...]
"""Shape and dtype of each argument of a function, in order."""


def signature(function: FuncOp) -> Signature:
    """The shapes and dtypes a function's arguments (tensors or buffers) hold."""
    return tuple(shaped_type_parts(arg.type) for arg in function.body.block.args)


def check_inputs(what: str, expected: Signature, inputs: Sequence[torch.Tensor]) -> None:
    """Raise ValueError unless `inputs` have exactly the `expected` shapes and dtypes."""
    if len(inputs) != len(expected):
        raise ValueError(f"{what} takes {len(expected)} inputs, got {len(inputs)}")
    for index, ((shape, dtype), tensor) in enumerate(zip(expected, inputs, strict=True)):
        if tuple(tensor.shape) != shape or tensor.dtype != dtype:
            raise ValueError(
                f"{what} input {index} must be {dtype} of shape {list(shape)}, got "
                f"{tensor.dtype} of shape {list(tensor.shape)}"
            )


def interpret(
    module: ModuleOp, inputs: Sequence[torch.Tensor], function: str | None = None
) -> tuple[torch.Tensor, ...]:
    """Run a level-1 or level-2 function on `inputs` as unfused torch ops; return its results.

    Inputs are taken in the function's argument order and must have its argument types
    exactly (no implicit casts). Ops run on the inputs' device.
    """
    func = find_function(module, function)
    check_inputs(f"function @{func.sym_name.data}", signature(func), inputs)
    values: dict[SSAValue, torch.Tensor] = dict(zip(func.body.block.args, inputs, strict=True))
    for op in func.body.block.ops:
        if isinstance(op, ReturnOp):
            return tuple(values[operand] for operand in op.arguments)
        if isinstance(op, hl.FusedOp):
            fused = bind_fused_body(op.body.block)(*(values[v] for v in op.operands))
            values.update(zip(op.results, fused, strict=True))
            continue
        result = run_op(op, [values[operand] for operand in op.operands])
        values[op.results[0]] = result
    raise LumirDiagnosticError([op_diagnostic(func, "the function has no func.return")])


def run_op(op: Operation, operands: list[torch.Tensor]) -> torch.Tensor:
    """One op's result on torch tensors, as `interpret` computes it (also what
    hl-canonicalize evaluates a value computed from constants alone with)."""
    if len(op.results) != 1 or not isinstance(op.results[0].type, TensorType):
        raise LumirDiagnosticError(
            [op_diagnostic(op, f"the reference interpreter cannot run '{op.name}'")]
        )
    shape, dtype = shaped_type_parts(op.results[0].type)
    if isinstance(op, hl.ConstantOp):
        return constant_tensor(op.value).to(_device(operands))
    if isinstance(op, cublaslt.MatmulOp):
        a, b, *rest = operands
        c = operands[2] if op.c is not None else None
        bias = rest[-1] if op.bias is not None else None
        return unfused_matmul(op.descriptor(), a, b, c, bias).broadcast_to(shape).contiguous()
    if op.dialect_name() != "hl":
        raise LumirDiagnosticError(
            [op_diagnostic(op, f"the reference interpreter cannot run '{op.name}'")]
        )
    try:
        kernel = bind_kernel(op.name, op.properties, shape, dtype)
    except UnknownKernelError:
        raise LumirDiagnosticError(
            [op_diagnostic(op, f"the runtime has no torch kernel for '{op.name}'")]
        ) from None
    try:
        return kernel(*operands)
    except (RuntimeError, IndexError) as error:  # IndexError: an embedding index out of range
        raise LumirDiagnosticError(
            [op_diagnostic(op, f"torch cannot run '{op.name}': {error}")]
        ) from error


def _device(operands: list[torch.Tensor]) -> torch.device:
    return operands[0].device if operands else torch.device("cpu")


def _as_matrix(tensor: torch.Tensor, order: Order) -> torch.Tensor:
    """The matrix a dense row-major tensor is read as (docs/conventions.md)."""
    return tensor.transpose(-1, -2) if order is Order.COL else tensor


def _working_dtype(desc: MatmulDescriptor) -> torch.dtype:
    if DataType.F64 in (desc.a_dtype, desc.d_dtype) or desc.a_dtype is DataType.I8:
        return torch.float64
    return torch.float32


def unfused_matmul(
    desc: MatmulDescriptor,
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
) -> torch.Tensor:
    """A `cublaslt.matmul` as separate torch ops on its operand tensors.

    activation(alpha * op(A) @ op(B) + beta * C + bias) in float32 (float64 for f64 or
    integer inputs), with each operand read as the matrix its order makes of it and the
    result rounded to D's data type and laid out in D's order. C is read when
    beta != 0, the bias is added along the rows of D, GELU is the tanh form.
    """
    work = _working_dtype(desc)
    lhs = _as_matrix(a, desc.order_a).to(work)
    rhs = _as_matrix(b, desc.order_b).to(work)
    if desc.transa is Transpose.T:
        lhs = lhs.transpose(-1, -2)
    if desc.transb is Transpose.T:
        rhs = rhs.transpose(-1, -2)
    x = desc.alpha * torch.matmul(lhs, rhs)
    if desc.beta != 0.0 and c is not None:
        x = x + desc.beta * _as_matrix(c, desc.order_c).to(work)
    if bias is not None:
        x = x + bias.to(work)[:, None]
    activation = desc.epilogue.activation
    if activation == "relu":
        x = torch.relu(x)
    elif activation == "gelu":
        x = gelu_tanh(x)
    target = data_type_dtype(desc.d_dtype)
    if not target.is_floating_point:
        x = torch.round(x)
    return _as_matrix(x, desc.order_d).to(target)
