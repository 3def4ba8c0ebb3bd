"""An operand's layout read as a strided view (lumir.runtime.layouts).

The reference GEMM reads every operand as `strided_matrix`, a view, and writes D
through one; `element_offsets` is the same rule written out as indices. For any layout
(either order, any leading dimension, batches with any stride, 0 included) the view
must hold exactly the elements the offsets name, `offset_range` must bound them as
they do, and `overlaps` must say whether two positions share an element as the offsets
say, including the layouts its shortcut cannot decide.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lumir.cublaslt_enums import DataType, Order
from lumir.runtime.layouts import (
    MatrixLayout,
    element_offsets,
    offset_range,
    overlaps,
    strided_matrix,
)

layouts = st.builds(
    MatrixLayout,
    dtype=st.just(DataType.F32),
    rows=st.integers(0, 5),
    cols=st.integers(0, 5),
    ld=st.integers(1, 7),
    order=st.sampled_from([Order.COL, Order.ROW]),
    batch_count=st.integers(1, 3),
    stride=st.integers(0, 40),
)


@settings(max_examples=300, deadline=None)
@given(layouts)
def test_the_strided_view_reads_exactly_the_offsets_elements(layout: MatrixLayout) -> None:
    offsets = element_offsets(layout)
    reached = offset_range(layout)
    if offsets.numel() == 0:
        assert reached is None
        elements = torch.zeros(0)
    else:
        assert reached == (int(offsets.min()), int(offsets.max()))
        elements = torch.arange(reached[1] + 1, dtype=torch.float32)
    view = strided_matrix(elements, layout)
    assert view.shape == offsets.shape
    assert torch.equal(view, elements[offsets])


@settings(max_examples=300, deadline=None)
@given(layouts)
def test_overlaps_agrees_with_the_offsets(layout: MatrixLayout) -> None:
    flat = element_offsets(layout).reshape(-1)
    assert overlaps(layout) == (flat.numel() != torch.unique(flat).numel())


def test_interleaved_batches_are_told_apart_from_overlapping_ones() -> None:
    """Batches 2 elements apart over columns 3 apart reach 0, 3 and 2, 5: no element
    twice, though the column step is under the batch step's span (the shortcut cannot
    decide it). Batches 3 apart reach 0, 3 and 3, 6: element 3 twice. A dense layout is
    decided by the shortcut."""
    assert not overlaps(MatrixLayout(DataType.F32, 1, 2, 3, Order.COL, 2, 2))
    assert overlaps(MatrixLayout(DataType.F32, 1, 2, 3, Order.COL, 2, 3))
    assert not overlaps(MatrixLayout(DataType.F32, 2, 3, 3, Order.ROW, 2, 6))
    assert overlaps(MatrixLayout(DataType.F32, 2, 3, 3, Order.ROW, 2, 0))  # stride 0
