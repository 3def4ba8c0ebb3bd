"""Build `cublaslt.matmul` descriptors and ops for row-major products.

Every pass that creates a cuBLASLt call (hl-to-cublaslt, and the e-graph bridge when it
rebuilds a fused call) describes it the same way: a row-major product

    D[..., M, N] = op(lhs)[..., M, K] @ op(rhs)[..., K, N]

where `op` swaps the last two dimensions of an operand read transposed. This module turns
that into cuBLASLt's column-major view exactly as docs/conventions.md lays it out (the
per-operand rule, dense leading dimensions and strides, is `lumir.operand_layout`'s):

- A = rhs, B = lhs, m = N, n = M, k = K, every order COL;
- a tensor `[B x] R x C` has leading dimension C; a 3-D operand is a strided batch with
  stride R*C, a 2-D operand in a batched call is shared with stride 0, and a call with
  `batch_count = 1` has every stride 0;
- without a C operand the C layout is D's.

The functions take builtin tensor types and plain enums, never xDSL ops, so the e-graph
extractor can call them on candidates it has not materialised.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose
from lumir.dialects.cublaslt import MatmulDescriptor, MatmulOp
from lumir.operand_layout import dense_layout, tensor_op_dims


class UnsupportedMatmulError(ValueError):
    """A row-major product that cannot be expressed as one cuBLASLt call as asked.

    The message says what was found and what was expected; passes turn it into a
    located diagnostic, the e-graph bridge into a refused rewrite.
    """


DEFAULT_COMPUTE: dict[DataType, tuple[ComputeType, DataType]] = {
    DataType.F16: (ComputeType.COMPUTE_32F, DataType.F32),
    DataType.BF16: (ComputeType.COMPUTE_32F, DataType.F32),
    DataType.F32: (ComputeType.COMPUTE_32F, DataType.F32),
    DataType.F64: (ComputeType.COMPUTE_64F, DataType.F64),
}
"""Input dtype -> (compute type, scale type) lumir uses when the caller names none.

f16 accumulates in f32 as torch does (not `compute_16f`); f32 is true fp32 (no TF32),
so a lowered product matches torch's default numerics.
"""


def default_compute(dtype: DataType) -> tuple[ComputeType, DataType]:
    """The (compute type, scale type) for inputs of `dtype`; raises if lumir has none."""
    try:
        return DEFAULT_COMPUTE[dtype]
    except KeyError:
        supported = ", ".join(str(d) for d in DEFAULT_COMPUTE)
        raise UnsupportedMatmulError(
            f"no default compute type for {dtype} inputs; expected one of {supported}"
        ) from None


def data_type(element_type: Attribute) -> DataType:
    """The cuBLASLt data type of a builtin element type; raises if cuBLASLt has none."""
    dtype = DataType.from_element_type(element_type)
    if dtype is None:
        raise UnsupportedMatmulError(f"cuBLASLt has no data type for element type {element_type}")
    return dtype


def swaps_last_two(permutation: Sequence[int]) -> bool:
    """True for the permutation [0, .., r-3, r-1, r-2]: a transpose cuBLASLt can fold.

    Only such a transpose is `op(X) = X^T` of each matrix of a batch; any other one
    moves batch dimensions and must stay a real transpose.
    """
    rank = len(permutation)
    return rank >= 2 and list(permutation) == [*range(rank - 2), rank - 1, rank - 2]


def _shape(tensor_type: TensorType[Attribute], role: str) -> tuple[int, ...]:
    shape = tuple(tensor_type.get_shape())
    if len(shape) not in (2, 3):
        raise UnsupportedMatmulError(
            f"{role} {tensor_type} is {len(shape)}-D; expected a 2-D matrix or a 3-D batch"
        )
    if any(dim <= 0 for dim in shape):
        raise UnsupportedMatmulError(
            f"{role} {tensor_type} has a dynamic or zero dimension; expected static sizes >= 1"
        )
    return shape


def op_dims(shape: Sequence[int], transpose: bool) -> tuple[int, int]:
    """(rows, cols) of op(X) for a row-major `[..] R x C`: (R, C), or (C, R) when transposed."""
    return tensor_op_dims(shape, Order.ROW, Transpose.T if transpose else Transpose.N)


def _batch_count(lhs: tuple[int, ...], rhs: tuple[int, ...]) -> int:
    counts = sorted({shape[0] for shape in (lhs, rhs) if len(shape) == 3})
    if len(counts) > 1:
        raise UnsupportedMatmulError(
            f"batched operands hold {counts[1]} and {counts[0]} matrices; expected one batch "
            f"count (a 2-D operand is shared by every batch)"
        )
    return counts[0] if counts else 1


def row_major_result_shape(
    lhs_type: TensorType[Attribute],
    rhs_type: TensorType[Attribute],
    transpose_lhs: bool = False,
    transpose_rhs: bool = False,
) -> tuple[int, ...]:
    """The shape of D: `[M, N]`, or `[B, M, N]` when either operand is 3-D."""
    lhs, rhs = _shape(lhs_type, "lhs"), _shape(rhs_type, "rhs")
    m_rows, lhs_k = op_dims(lhs, transpose_lhs)
    rhs_k, n_cols = op_dims(rhs, transpose_rhs)
    if lhs_k != rhs_k:
        raise UnsupportedMatmulError(
            f"op(lhs) is {m_rows} x {lhs_k} but op(rhs) is {rhs_k} x {n_cols}; "
            f"expected [M, K] @ [K, N]"
        )
    batch = _batch_count(lhs, rhs)
    batched = len(lhs) == 3 or len(rhs) == 3
    return (batch, m_rows, n_cols) if batched else (m_rows, n_cols)


def row_major_matmul(
    lhs_type: TensorType[Attribute],
    rhs_type: TensorType[Attribute],
    transpose_lhs: bool = False,
    transpose_rhs: bool = False,
    out_dtype: DataType | None = None,
    *,
    compute_type: ComputeType | None = None,
    scale_type: DataType | None = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    epilogue: Epilogue = Epilogue.DEFAULT,
) -> MatmulDescriptor:
    """The descriptor of `D = op(lhs) @ op(rhs)` in cuBLASLt's column-major view.

    `lhs_type` and `rhs_type` are the tensors as stored (2-D, or 3-D for a strided
    batch); `transpose_*` says the operand is read with its last two dimensions swapped.
    `out_dtype` is D's (and C's) dtype, the inputs' by default. Compute and scale types
    default to `DEFAULT_COMPUTE` of the input dtype. alpha, beta and the epilogue are
    copied as given: a caller passing beta != 0 must add a C operand of D's type, and a
    BIAS epilogue needs a bias of length m = N (`MatmulOp.verify_` checks both).

    Raises `UnsupportedMatmulError` for shapes that do not multiply, ranks other than 2
    or 3, dynamic or zero dimensions, or element types cuBLASLt has no data type for.
    """
    lhs, rhs = _shape(lhs_type, "lhs"), _shape(rhs_type, "rhs")
    d_shape = row_major_result_shape(lhs_type, rhs_type, transpose_lhs, transpose_rhs)
    batch_count = _batch_count(lhs, rhs)
    m_rows, k = op_dims(lhs, transpose_lhs)
    n_cols = d_shape[-1]
    a_dtype = data_type(rhs_type.element_type)
    b_dtype = data_type(lhs_type.element_type)
    if compute_type is None or scale_type is None:
        if a_dtype != b_dtype:
            raise UnsupportedMatmulError(
                f"lhs is {b_dtype} but rhs is {a_dtype}; expected one dtype, or an explicit "
                f"compute and scale type"
            )
        default_compute_type, default_scale_type = default_compute(a_dtype)
        compute_type = default_compute_type if compute_type is None else compute_type
        scale_type = default_scale_type if scale_type is None else scale_type
    d_dtype = a_dtype if out_dtype is None else out_dtype
    lda, stride_a = dense_layout(rhs, batch_count)
    ldb, stride_b = dense_layout(lhs, batch_count)
    ldd, stride_d = dense_layout(d_shape, batch_count)
    return MatmulDescriptor(
        transa=Transpose.T if transpose_rhs else Transpose.N,
        transb=Transpose.T if transpose_lhs else Transpose.N,
        order_a=Order.COL,
        order_b=Order.COL,
        order_c=Order.COL,
        order_d=Order.COL,
        m=n_cols,
        n=m_rows,
        k=k,
        lda=lda,
        ldb=ldb,
        ldc=ldd,
        ldd=ldd,
        batch_count=batch_count,
        stride_a=stride_a,
        stride_b=stride_b,
        stride_c=stride_d,
        stride_d=stride_d,
        a_dtype=a_dtype,
        b_dtype=b_dtype,
        c_dtype=d_dtype,
        d_dtype=d_dtype,
        compute_type=compute_type,
        scale_type=scale_type,
        alpha=float(alpha),
        beta=float(beta),
        epilogue=epilogue,
    )


def row_major_matmul_op(
    lhs: SSAValue,
    rhs: SSAValue,
    transpose_lhs: bool = False,
    transpose_rhs: bool = False,
    out_dtype: DataType | None = None,
    *,
    c: SSAValue | None = None,
    bias: SSAValue | None = None,
    compute_type: ComputeType | None = None,
    scale_type: DataType | None = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    epilogue: Epilogue = Epilogue.DEFAULT,
) -> MatmulOp:
    """A `cublaslt.matmul` computing `op(lhs) @ op(rhs)` (A = rhs, B = lhs), not inserted.

    The descriptor is `row_major_matmul(...)` of the operands' types; the result is a
    tensor of D's shape and `out_dtype`. `c` and `bias` become the op's optional operands
    as given: pass C only with beta != 0 and a bias only with a BIAS epilogue.
    """
    lhs_type, rhs_type = _tensor_type(lhs, "lhs"), _tensor_type(rhs, "rhs")
    descriptor = row_major_matmul(
        lhs_type,
        rhs_type,
        transpose_lhs,
        transpose_rhs,
        out_dtype,
        compute_type=compute_type,
        scale_type=scale_type,
        alpha=alpha,
        beta=beta,
        epilogue=epilogue,
    )
    d_shape = row_major_result_shape(lhs_type, rhs_type, transpose_lhs, transpose_rhs)
    result_type = TensorType(descriptor.d_dtype.element_type(), list(d_shape))
    return MatmulOp(descriptor, rhs, lhs, result_type, c=c, bias=bias)


def _tensor_type(value: SSAValue, role: str) -> TensorType[Attribute]:
    if not isinstance(value.type, TensorType):
        raise UnsupportedMatmulError(f"{role} is {value.type}; expected a tensor")
    return value.type


__all__ = [
    "DEFAULT_COMPUTE",
    "UnsupportedMatmulError",
    "data_type",
    "default_compute",
    "dense_layout",
    "op_dims",
    "row_major_matmul",
    "row_major_matmul_op",
    "row_major_result_shape",
    "swaps_last_two",
]
