"""Runtime buffers: flat `torch.uint8` tensors of raw bytes, and typed views of them.

docs/conventions.md fixes the representation: a buffer is the bytes of a dense
row-major `memref`, nothing more. A GEMM reads it through its plan's dtypes and layouts
(`lumir.runtime.reference_gemm`); every other kernel views it as
`buffer.view(torch_dtype).view(shape)`. The torch dtype of each element type is its row
of `lumir.dtypes`, which the executors and the reference interpreter share.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType, TensorType
from xdsl.ir import Attribute

from lumir.cublaslt_enums import DataType
from lumir.dialects.hl.constants import splat_element
from lumir.dtypes import element_dtype


class UnsupportedTypeError(TypeError):
    """An element type the runtime has no torch dtype for."""


def torch_dtype(element_type: Attribute) -> torch.dtype:
    """The torch dtype of a builtin element type (i1 is torch.bool), from `lumir.dtypes`."""
    row = element_dtype(element_type)
    if row is None:
        raise UnsupportedTypeError(
            f"lumir's runtime has no torch dtype for element type {element_type}"
        )
    return row.torch_dtype()


def data_type_dtype(data_type: DataType) -> torch.dtype:
    """The torch dtype that holds one element of a cuBLASLt data type."""
    return data_type.row.torch_dtype()


def shaped_type_parts(value_type: Attribute) -> tuple[tuple[int, ...], torch.dtype]:
    """Shape and torch dtype of a static tensor or memref type."""
    assert isinstance(value_type, TensorType | MemRefType), value_type
    return tuple(value_type.get_shape()), torch_dtype(value_type.element_type)


def byte_size(shape: Sequence[int], dtype: torch.dtype) -> int:
    """Bytes a dense tensor of `shape` and `dtype` takes."""
    count = 1
    for dim in shape:
        count *= dim
    return count * dtype.itemsize


def new_buffer(nbytes: int, device: torch.device | str) -> torch.Tensor:
    """A zero-filled buffer of `nbytes` raw bytes on `device`.

    Zeros rather than `torch.empty`, so that a program which reads a buffer before
    writing it reads the same bytes in every process (and no NaN from old memory).
    """
    return torch.zeros(nbytes, dtype=torch.uint8, device=device)


def typed_view(buffer: torch.Tensor, shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
    """The buffer's bytes as a dense row-major tensor of `shape` and `dtype` (no copy)."""
    return buffer.view(dtype).view(tuple(shape))


def constant_tensor(value: DenseIntOrFPElementsAttr) -> torch.Tensor:
    """A CPU tensor holding the elements of a dense literal, in its element type."""
    value_type = value.get_type()
    shape, dtype = shaped_type_parts(value_type)
    if 0 in shape:  # `dense<1.0> : tensor<0x8xf32>` stores its one element for none
        return torch.empty(shape, dtype=dtype)
    first = splat_element(value)
    if first is not None:
        return torch.full(shape, first, dtype=dtype)
    return torch.tensor(list(value.get_values()), dtype=dtype).reshape(shape)
