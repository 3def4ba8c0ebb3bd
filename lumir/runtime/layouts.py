"""cuBLASLt matrix layouts on the CPU: which elements of a buffer one operand's layout reaches.

The CPU reference executor and the CUDA executor must read every operand the same way
(the reference is only worth something if it reads bytes exactly as cuBLASLt does), so
both take their layouts from `lumir.operand_layout`, the one declaration of the rule;
this module adds what needs torch.

Element (row, col) of batch `i` is at element offset `i * stride + row * row_step + col *
col_step`, with (row_step, col_step) = (1, ld) in COL order and (ld, 1) in ROW order.
That is a strided view: `strided_matrix` hands the reference GEMM the operand as a
(batch, rows, cols) `as_strided` view of the buffer's typed elements, so reading one
allocates nothing beyond its values. `element_offsets` spells the same offsets out as
an index tensor, for checks that need them one by one.
"""

from __future__ import annotations

import torch

from lumir.cublaslt_enums import Order
from lumir.operand_layout import MatrixLayout, matrix_layout


def layout_steps(layout: MatrixLayout) -> tuple[int, int, int]:
    """Element steps between neighbouring batches, rows and columns."""
    if layout.order is Order.COL:
        return layout.stride, 1, layout.ld
    return layout.stride, layout.ld, 1


def offset_range(layout: MatrixLayout) -> tuple[int, int] | None:
    """The lowest and highest element offset the layout reaches; None when it reaches
    none (a dimension of size 0)."""
    sizes = (layout.batch_count, layout.rows, layout.cols)
    if min(sizes) <= 0:
        return None
    lowest = highest = 0
    for size, step in zip(sizes, layout_steps(layout), strict=True):
        reach = (size - 1) * step
        lowest += min(0, reach)
        highest += max(0, reach)
    return lowest, highest


def strided_matrix(elements: torch.Tensor, layout: MatrixLayout) -> torch.Tensor:
    """The (batch, rows, cols) view of `elements` (a flat typed view of the buffer) that
    `layout` reads. The caller has checked `offset_range` against the buffer; a step
    along a dimension of size 1 is never taken, so it is written as 0."""
    sizes = (layout.batch_count, layout.rows, layout.cols)
    steps = tuple(
        step if size > 1 else 0 for size, step in zip(sizes, layout_steps(layout), strict=True)
    )
    return elements.as_strided(sizes, steps)


def overlaps(layout: MatrixLayout) -> bool:
    """Whether two (batch, row, col) positions of `layout` share an element.

    Dimensions ordered by step, each step at least the span of the ones below it is
    enough for no overlap (the usual case, decided without offsets); otherwise every
    offset is computed and compared.
    """
    sizes = (layout.batch_count, layout.rows, layout.cols)
    dims = sorted(
        (step, size) for size, step in zip(sizes, layout_steps(layout), strict=True) if size > 1
    )
    span = 1
    for step, size in dims:
        if step < span:
            offsets = element_offsets(layout).reshape(-1)
            return offsets.numel() != torch.unique(offsets).numel()
        span = step * size
    return False


def element_offsets(layout: MatrixLayout) -> torch.Tensor:
    """Element offsets of every (batch, row, col), as an int64 tensor of that shape."""
    batch_step, row_step, col_step = layout_steps(layout)
    batch = torch.arange(layout.batch_count, dtype=torch.int64) * batch_step
    rows = torch.arange(layout.rows, dtype=torch.int64) * row_step
    cols = torch.arange(layout.cols, dtype=torch.int64) * col_step
    return batch[:, None, None] + rows[None, :, None] + cols[None, None, :]


__all__ = [
    "MatrixLayout",
    "element_offsets",
    "layout_steps",
    "matrix_layout",
    "offset_range",
    "overlaps",
    "strided_matrix",
]
