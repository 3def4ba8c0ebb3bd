"""cuBLASLt matrix layouts on the CPU: the element offsets one operand's layout reaches.

The CPU reference executor and the CUDA executor must read every operand the same way
(the reference is only worth something if it reads bytes exactly as cuBLASLt does), so
both take their layouts from `lumir.operand_layout`, the one declaration of the rule;
this module adds what needs torch.
"""

from __future__ import annotations

import torch

from lumir.cublaslt_enums import Order
from lumir.operand_layout import MatrixLayout, matrix_layout


def element_offsets(layout: MatrixLayout) -> torch.Tensor:
    """Element offsets of every (batch, row, col), as an int64 tensor of that shape."""
    batch = torch.arange(layout.batch_count, dtype=torch.int64) * layout.stride
    rows = torch.arange(layout.rows, dtype=torch.int64)
    cols = torch.arange(layout.cols, dtype=torch.int64)
    if layout.order is Order.COL:
        row_step, col_step = rows, cols * layout.ld
    else:
        row_step, col_step = rows * layout.ld, cols
    return batch[:, None, None] + row_step[None, :, None] + col_step[None, None, :]


__all__ = ["MatrixLayout", "element_offsets", "matrix_layout"]
