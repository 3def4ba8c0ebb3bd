"""cuBLASLt matrix layouts: how one operand of a matmul sits in its buffer.

The CPU reference executor and the CUDA executor must read every operand the same way
(the reference is only worth something if it reads bytes exactly as cuBLASLt does), so
both take their layouts from here.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lumir.cublaslt_enums import DataType, Operand, Order, Transpose
from lumir.matmul_descriptor import MatmulDescriptor


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

    def element_offsets(self) -> torch.Tensor:
        """Element offsets of every (batch, row, col), as an int64 tensor of that shape."""
        batch = torch.arange(self.batch_count, dtype=torch.int64) * self.stride
        rows = torch.arange(self.rows, dtype=torch.int64)
        cols = torch.arange(self.cols, dtype=torch.int64)
        if self.order is Order.COL:
            row_step, col_step = rows, cols * self.ld
        else:
            row_step, col_step = rows * self.ld, cols
        return batch[:, None, None] + row_step[None, :, None] + col_step[None, None, :]

    def describe(self) -> str:
        """`f32 64 x 32 col-order matrix with ld 64 (2 batches, stride 2048)`."""
        text = f"{self.dtype} {self.rows} x {self.cols} {self.order}-order matrix with ld {self.ld}"
        if self.batch_count > 1:
            text += f" ({self.batch_count} batches, stride {self.stride})"
        return text


def matrix_layout(descriptor: MatmulDescriptor, operand: Operand) -> MatrixLayout:
    """The layout cuBLASLt reads `operand` (A, B, C or D) of `descriptor` through."""
    d = descriptor
    if operand is Operand.A:
        rows, cols = (d.m, d.k) if d.transa is Transpose.N else (d.k, d.m)
        return MatrixLayout(d.a_dtype, rows, cols, d.lda, d.order_a, d.batch_count, d.stride_a)
    if operand is Operand.B:
        rows, cols = (d.k, d.n) if d.transb is Transpose.N else (d.n, d.k)
        return MatrixLayout(d.b_dtype, rows, cols, d.ldb, d.order_b, d.batch_count, d.stride_b)
    if operand is Operand.C:
        return MatrixLayout(d.c_dtype, d.m, d.n, d.ldc, d.order_c, d.batch_count, d.stride_c)
    return MatrixLayout(d.d_dtype, d.m, d.n, d.ldd, d.order_d, d.batch_count, d.stride_d)
