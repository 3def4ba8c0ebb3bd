"""torch dtypes <-> builtin element types for the importer.

The importer accepts exactly the dtypes of `IMPORTED_DTYPES`, the rows of `lumir.dtypes`
marked imported; every other dtype makes the node unsupported, so the partitioner
leaves it to eager.
"""

from __future__ import annotations

import torch
from xdsl.ir import Attribute

from lumir.dtypes import ELEMENT_DTYPES

IMPORTED_DTYPES: dict[torch.dtype, Attribute] = {
    row.torch_dtype(): row.element_type for row in ELEMENT_DTYPES if row.imported
}
"""The dtypes lumir imports and the element type each becomes (bool is i1)."""

HALF_DTYPES = (torch.float16, torch.bfloat16)
"""Dtypes whose elementwise arithmetic ATen carries out in f32 ("opmath") and rounds."""


def opmath_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype ATen computes `dtype`'s arithmetic in: f32 for the half dtypes, the
    dtype itself otherwise. A decomposition that accumulates (a sum over a window, a
    normalisation) computes in it and rounds once at the end, as ATen's kernels do."""
    return torch.float32 if dtype in HALF_DTYPES else dtype


def is_imported(dtype: torch.dtype) -> bool:
    """True for a dtype the importer can represent."""
    return dtype in IMPORTED_DTYPES


def element_type(dtype: torch.dtype) -> Attribute:
    """The builtin element type of an imported torch dtype."""
    try:
        return IMPORTED_DTYPES[dtype]
    except KeyError:
        known = ", ".join(str(d).removeprefix("torch.") for d in IMPORTED_DTYPES)
        raise TypeError(f"lumir does not import {dtype} (imported dtypes: {known})") from None


def scalar_exactly_representable(value: float, dtype: torch.dtype) -> bool:
    """True when `value` survives rounding to `dtype` unchanged."""
    return float(torch.tensor(value, dtype=torch.float64).to(dtype).item()) == float(value)
