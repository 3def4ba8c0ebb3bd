"""The cuBLASLt dtype-guard verifier: invariants V1-V10 of docs/design.md.

Three ways in, one set of checks:

- `check_matmul(desc, a, b, c, bias, d)`: pure Python over a `MatmulDescriptor` and
  builtin tensor types, for callers that have no op yet (the e-graph extractor asks
  it about every candidate before it may select one);
- `matmul_diagnostics(op)`: the same for a `cublaslt.matmul` op, which its `verify_`
  raises on, so every pass boundary verifies;
- the `cublaslt-verify` pass (`lumir.passes.cublaslt_verify`), which reports every
  violation in a module at once.

Each violation is a `MatmulDiagnostic` whose `str()` is `"V4: ..."`: the invariant id
and the concrete values that break it.
"""

from __future__ import annotations

from typing import Protocol

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from lumir.matmul_descriptor import MatmulDescriptor
from lumir.verifier.invariants import (
    INVARIANT_CHECKS,
    FindingsVerifyException,
    Invariant,
    MatmulCall,
    MatmulDiagnostic,
    check_matmul,
    format_tensor_type,
)
from lumir.verifier.type_table import SUPPORTED_ROWS, TypeRow, find_row


class MatmulOpLike(Protocol):
    """What the verifier reads of a `cublaslt.matmul`, named here so that the verifier
    never imports the dialect (which imports the verifier for its `verify_`)."""

    a: SSAValue
    b: SSAValue
    c: SSAValue | None
    bias: SSAValue | None
    d: SSAValue

    def descriptor(self) -> MatmulDescriptor: ...


def matmul_diagnostics(op: MatmulOpLike) -> list[MatmulDiagnostic]:
    """Every invariant `op` violates, in invariant order; empty when it is legal.

    Expects an op that passed its IRDL checks (all properties present, tensor
    operands), which is what `verify_` and the `cublaslt-verify` pass guarantee.
    """
    return check_matmul(
        op.descriptor(),
        _tensor_type(op.a),
        _tensor_type(op.b),
        _tensor_type(op.c) if op.c is not None else None,
        _tensor_type(op.bias) if op.bias is not None else None,
        _tensor_type(op.d),
    )


def _tensor_type(value: SSAValue) -> TensorType[Attribute]:
    value_type = value.type
    assert isinstance(value_type, TensorType), "IRDL guarantees tensor operands"
    return value_type


__all__ = [
    "INVARIANT_CHECKS",
    "SUPPORTED_ROWS",
    "FindingsVerifyException",
    "Invariant",
    "MatmulCall",
    "MatmulDiagnostic",
    "MatmulOpLike",
    "TypeRow",
    "check_matmul",
    "find_row",
    "format_tensor_type",
    "matmul_diagnostics",
]
