"""Runtime buffers: flat `torch.uint8` tensors of raw bytes, and typed views of them.

docs/conventions.md fixes the representation: a buffer is the bytes of a dense
row-major `memref`, nothing more. A GEMM reads it through its plan's dtypes and layouts
(`lumir.runtime.reference_gemm`); every other kernel views it as
`buffer.view(torch_dtype).view(shape)`. This module holds the one table from builtin
element types to torch dtypes that the executors and the reference interpreter share.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute

from lumir.cublaslt_enums import DataType

_FLOAT_DTYPES: tuple[tuple[type[Attribute], torch.dtype], ...] = (
    (Float16Type, torch.float16),
    (BFloat16Type, torch.bfloat16),
    (Float32Type, torch.float32),
    (Float64Type, torch.float64),
    (Float8E4M3FNType, torch.float8_e4m3fn),
    (Float8E5M2Type, torch.float8_e5m2),
)
_SIGNED_INTEGER_DTYPES = {
    8: torch.int8,
    16: torch.int16,
    32: torch.int32,
    64: torch.int64,
}
_DATA_TYPE_DTYPES = {
    DataType.F16: torch.float16,
    DataType.BF16: torch.bfloat16,
    DataType.F32: torch.float32,
    DataType.F64: torch.float64,
    DataType.F8E4M3: torch.float8_e4m3fn,
    DataType.F8E5M2: torch.float8_e5m2,
    DataType.I8: torch.int8,
    DataType.I32: torch.int32,
}


class UnsupportedTypeError(TypeError):
    """An element type the runtime has no torch dtype for."""


def torch_dtype(element_type: Attribute) -> torch.dtype:
    """The torch dtype of a builtin element type (i1 is torch.bool)."""
    for kind, dtype in _FLOAT_DTYPES:
        if isinstance(element_type, kind):
            return dtype
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 1:
            return torch.bool
        if width == 8 and element_type.signedness.data == Signedness.UNSIGNED:
            return torch.uint8
        if width in _SIGNED_INTEGER_DTYPES and element_type.signedness.data != Signedness.UNSIGNED:
            return _SIGNED_INTEGER_DTYPES[width]
    raise UnsupportedTypeError(
        f"lumir's runtime has no torch dtype for element type {element_type}"
    )


def data_type_dtype(data_type: DataType) -> torch.dtype:
    """The torch dtype that holds one element of a cuBLASLt data type."""
    return _DATA_TYPE_DTYPES[data_type]


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
    if value.is_splat():
        first = next(iter(value.iter_values()))
        return torch.full(shape, first, dtype=dtype)
    return torch.tensor(list(value.get_values()), dtype=dtype).reshape(shape)
