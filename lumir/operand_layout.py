"""The operand-layout rule of a cuBLASLt matmul, declared once.

Which descriptor fields describe which operand (its trans flag, order, leading
dimension, batch stride and data type), which of m, n, k are the sides of op(X), how
the matrix is stored before op() and how a dense row-major tensor is read as such a
matrix (docs/conventions.md). The verifier, the dialects' plan checks, the descriptor
builders, the e-graph bridge, the retyping backend and both executors all read
operands through these functions, so a second copy of the rule cannot drift.

A leaf: it imports only the enums and the descriptor (no xDSL ops, no torch), so any
layer may use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lumir.cublaslt_enums import DataType, Operand, Order, Transpose
from lumir.matmul_descriptor import MatmulDescriptor


@dataclass(frozen=True)
class OperandFields:
    """The descriptor fields of one operand, by name (diagnostics quote these names).

    `op_dims` names the sizes of op(X): A is m x k, B is k x n, C and D are m x n.
    `trans` is None for C and D, which cuBLASLt never transposes.
    """

    operand: Operand
    op_dims: tuple[str, str]
    trans: str | None
    order: str
    ld: str
    stride: str
    dtype: str

    def transpose(self, desc: MatmulDescriptor) -> Transpose:
        """The operand's trans flag in `desc` (N for C and D)."""
        return Transpose.N if self.trans is None else getattr(desc, self.trans)

    def op_sizes(self, desc: MatmulDescriptor) -> tuple[int, int]:
        """(rows, cols) of op(X) in `desc`."""
        return getattr(desc, self.op_dims[0]), getattr(desc, self.op_dims[1])

    def stored_dims(self, desc: MatmulDescriptor) -> tuple[int, int]:
        """(rows, cols) of the matrix as stored, before op(): op(X)'s, swapped when T."""
        rows, cols = self.op_sizes(desc)
        return (cols, rows) if self.transpose(desc) is Transpose.T else (rows, cols)


def _fields(operand: Operand, op_dims: tuple[str, str], transposable: bool) -> OperandFields:
    """The fields of `operand`: MatmulDescriptor names them all after its letter."""
    x = operand.value.lower()
    trans = f"trans{x}" if transposable else None
    return OperandFields(
        operand, op_dims, trans, f"order_{x}", f"ld{x}", f"stride_{x}", f"{x}_dtype"
    )


OPERAND_FIELDS: dict[Operand, OperandFields] = {
    Operand.A: _fields(Operand.A, ("m", "k"), transposable=True),
    Operand.B: _fields(Operand.B, ("k", "n"), transposable=True),
    Operand.C: _fields(Operand.C, ("m", "n"), transposable=False),
    Operand.D: _fields(Operand.D, ("m", "n"), transposable=False),
}
"""Every operand's fields, in cuBLASLt's argument order."""


@dataclass(frozen=True)
class MatrixLayout:
    """One `cublasLtMatrixLayout_t`: dtype, stored shape, leading dimension, order, batches.

    `rows` x `cols` is the matrix as stored, before `op()`: for A that is m x k when
    `transa` is N and k x m when it is T (docs/conventions.md).
    """

    dtype: DataType
    rows: int
    cols: int
    ld: int
    order: Order
    batch_count: int
    stride: int

    @property
    def contiguous(self) -> int:
        """The extent along the contiguous dimension: ld must be at least this."""
        return self.rows if self.order is Order.COL else self.cols

    def element_extent(self) -> int:
        """Elements from the first to one past the last element the layout reaches."""
        if self.rows == 0 or self.cols == 0:
            return 0
        if self.order is Order.COL:
            span = self.ld * (self.cols - 1) + self.rows
        else:
            span = self.ld * (self.rows - 1) + self.cols
        return (self.batch_count - 1) * self.stride + span

    def byte_extent(self) -> int:
        """Bytes a buffer read or written through this layout must hold."""
        return self.element_extent() * self.dtype.byte_width

    def stored_shape(self) -> list[int]:
        """The dense row-major tensor shape that holds one matrix of this layout."""
        return dense_shape(self.rows, self.cols, self.order)

    def describe(self) -> str:
        """`f32 64 x 32 col-order matrix with ld 64 (2 batches, stride 2048)`."""
        text = f"{self.dtype} {self.rows} x {self.cols} {self.order}-order matrix with ld {self.ld}"
        if self.batch_count > 1:
            text += f" ({self.batch_count} batches, stride {self.stride})"
        return text


def matrix_layout(descriptor: MatmulDescriptor, operand: Operand) -> MatrixLayout:
    """The layout cuBLASLt reads `operand` (A, B, C or D) of `descriptor` through."""
    fields = OPERAND_FIELDS[operand]
    rows, cols = fields.stored_dims(descriptor)
    return MatrixLayout(
        getattr(descriptor, fields.dtype),
        rows,
        cols,
        getattr(descriptor, fields.ld),
        getattr(descriptor, fields.order),
        descriptor.batch_count,
        getattr(descriptor, fields.stride),
    )


def op_element_steps(descriptor: MatmulDescriptor, operand: Operand) -> tuple[int, int]:
    """Elements between neighbouring rows and between neighbouring columns of op(X), one
    matrix of `operand`'s layout (a transposed operand swaps its stored steps)."""
    layout = matrix_layout(descriptor, operand)
    steps = (1, layout.ld) if layout.order is Order.COL else (layout.ld, 1)
    transposed = OPERAND_FIELDS[operand].transpose(descriptor) is Transpose.T
    return (steps[1], steps[0]) if transposed else steps


# --- dense row-major tensors ------------------------------------------------------------


def tensor_matrix_dims(shape: Sequence[int], order: Order) -> tuple[int, int]:
    """(rows, cols) of the matrix cuBLASLt reads from a dense row-major `[..] R x C`.

    In COL order it is the C x R column-major matrix, in ROW order the R x C one.
    """
    rows, cols = shape[-2], shape[-1]
    return (cols, rows) if order == Order.COL else (rows, cols)


def tensor_op_dims(shape: Sequence[int], order: Order, trans: Transpose) -> tuple[int, int]:
    """(rows, cols) of op(X) for a dense row-major tensor `[..] R x C` read in `order`."""
    rows, cols = tensor_matrix_dims(shape, order)
    return (cols, rows) if trans == Transpose.T else (rows, cols)


def dense_shape(rows: int, cols: int, order: Order) -> list[int]:
    """The dense row-major tensor `[R, C]` read as a rows x cols matrix in `order`.

    The inverse of `tensor_matrix_dims`: `[cols, rows]` in COL order, `[rows, cols]` in ROW.
    """
    return [cols, rows] if order == Order.COL else [rows, cols]


def dense_layout(shape: Sequence[int], batch_count: int) -> tuple[int, int]:
    """(leading dimension, batch stride) of a dense row-major tensor in a call.

    The leading dimension is the last dimension in either order; the stride is R*C for a
    3-D operand of a batched call and 0 otherwise (shared 2-D operand, or batch_count 1).
    """
    stride = shape[-2] * shape[-1] if batch_count > 1 and len(shape) == 3 else 0
    return shape[-1], stride


__all__ = [
    "OPERAND_FIELDS",
    "MatrixLayout",
    "OperandFields",
    "dense_layout",
    "dense_shape",
    "matrix_layout",
    "op_element_steps",
    "tensor_matrix_dims",
    "tensor_op_dims",
]
