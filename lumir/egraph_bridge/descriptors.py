"""Rebuild a full `MatmulDescriptor` from a Call term and its operand types.

A term keeps only what rules change (transposes, orders, dtypes, scales, epilogue).
Everything else follows from the operand shapes exactly as docs/conventions.md lays it
out, and as the verifier's V8 checks it: op(A) is m x k and op(B) is k x n in the
orders given; every operand is dense (ld = last dimension); a 3-D D makes a strided
batch where 3-D operands have stride R*C and 2-D ones stride 0; without C, C's layout
is D's. Inconsistent shapes are not an error here: they give a descriptor the verifier
rejects, which makes the candidate unselectable.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from lumir.egraph_bridge.terms import CallFields
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import dense_layout, tensor_op_dims


class UndecodableCallError(ValueError):
    """A Call whose operands cannot be read as cuBLASLt matrices (rank or dynamic size)."""


def _matrix_shape(tensor: TensorType[Attribute], role: str) -> tuple[int, ...]:
    shape = tuple(tensor.get_shape())
    if len(shape) not in (2, 3) or any(dim < 1 for dim in shape):
        raise UndecodableCallError(
            f"operand {role} {tensor} is not a static 2-D matrix or 3-D batch"
        )
    return shape


def call_descriptor(
    call: CallFields,
    a: TensorType[Attribute],
    b: TensorType[Attribute],
    c: TensorType[Attribute] | None,
    d: TensorType[Attribute],
) -> MatmulDescriptor:
    """The descriptor of `call` over operands of these types (C optional)."""
    a_shape = _matrix_shape(a, "A")
    b_shape = _matrix_shape(b, "B")
    d_shape = _matrix_shape(d, "D")
    c_shape = _matrix_shape(c, "C") if c is not None else d_shape
    fields = call.descriptor_arguments()
    transa, transb = fields["transa"], fields["transb"]
    order_a, order_b = fields["order_a"], fields["order_b"]
    m, k = tensor_op_dims(a_shape, order_a, transa)
    n = tensor_op_dims(b_shape, order_b, transb)[1]
    batch_count = d_shape[0] if len(d_shape) == 3 else 1
    lda, stride_a = dense_layout(a_shape, batch_count)
    ldb, stride_b = dense_layout(b_shape, batch_count)
    ldc, stride_c = dense_layout(c_shape, batch_count)
    ldd, stride_d = dense_layout(d_shape, batch_count)
    return MatmulDescriptor(
        **fields,
        order_c=fields["order_d"],
        m=m,
        n=n,
        k=k,
        lda=lda,
        ldb=ldb,
        ldc=ldc,
        ldd=ldd,
        batch_count=batch_count,
        stride_a=stride_a,
        stride_b=stride_b,
        stride_c=stride_c,
        stride_d=stride_d,
    )
