"""The dtype table (lumir.dtypes) agrees with torch, numpy and the cuBLASLt enum.

Every other dtype map of lumir is derived from that table, so these checks are what
stands between a wrong row and a wrong byte count, torch dtype or CUDA id everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

from lumir.cublaslt_enums import DataType
from lumir.dtypes import BY_NAME, ELEMENT_DTYPES, element_byte_width, element_dtype
from lumir.runtime.buffers import data_type_dtype, torch_dtype


@pytest.mark.parametrize("row", ELEMENT_DTYPES, ids=lambda row: row.name)
def test_row_agrees_with_torch_numpy_and_the_printer(row) -> None:
    assert str(row.element_type) == row.name
    assert element_dtype(row.element_type) is row
    assert row.torch_dtype().itemsize == row.byte_width == element_byte_width(row.element_type)
    assert torch_dtype(row.element_type) == row.torch_dtype()
    if row.numpy_name is not None:
        assert np.dtype(getattr(np, row.numpy_name)).itemsize == row.byte_width


def test_cublaslt_data_types_are_exactly_the_rows_with_a_cuda_id() -> None:
    with_cuda = [row.name for row in ELEMENT_DTYPES if row.cuda_data_type is not None]
    assert sorted(with_cuda) == sorted(d.value for d in DataType)
    for data_type in DataType:
        row = BY_NAME[data_type.value]
        assert DataType.from_element_type(data_type.element_type()) is data_type
        assert data_type.cuda_value == row.cuda_data_type
        assert data_type_dtype(data_type) == row.torch_dtype()
    # cudaDataType_t values from CUDA's library_types.h.
    assert [DataType.F32.cuda_value, DataType.BF16.cuda_value, DataType.F8E4M3.cuda_value] == [
        0,
        14,
        28,
    ]


def test_names_are_unique() -> None:
    assert len(BY_NAME) == len(ELEMENT_DTYPES)
    assert len({row.torch_name for row in ELEMENT_DTYPES}) == len(ELEMENT_DTYPES)
