"""cuBLASLt's supported-type table for `cublasLtMatmul`, encoded once, as data.

The rows come from the "datatypes supported" tables of `cublasLtMatmul` in NVIDIA's
cuBLAS documentation (CUDA 12): one table for regular matrices, where C and D share
one type (the doc's single `Ctype` column), and one for FP8 inputs, where C and D have
separate columns. A call whose (compute type, scale type, A, B, C, D) is not a row
here is one cuBLASLt refuses with CUBLAS_STATUS_NOT_SUPPORTED, or, worse, one it
accepts for a type lumir never meant (the docs/design.md bug). The verifier (V1, V2, V3,
V6) reads this table and nothing else, so adding a row is the whole change needed to
let lumir emit a new type combination.

Deliberately left out: complex types, the IMMA rows with an i8 D or f32-scaled i8
inputs, and FP8 rows with the `_pedantic` compute type (the FP8 table lists only
`compute_32f`). Leaving a real row out costs a missed fusion, never wrong numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from lumir.cublaslt_enums import ComputeType, DataType

_BF16 = DataType.BF16
_F16 = DataType.F16
_F32 = DataType.F32
_F64 = DataType.F64
_E4M3 = DataType.F8E4M3
_E5M2 = DataType.F8E5M2
_I8 = DataType.I8
_I32 = DataType.I32


@dataclass(frozen=True)
class TypeRow:
    """One supported combination of compute type, scale type and matrix types.

    `bias_dtypes` are the bias vector types the BIAS epilogues accept for this row;
    an empty tuple is the doc's "non-default epilogue not supported".
    """

    compute_type: ComputeType
    scale_type: DataType
    a_dtype: DataType
    b_dtype: DataType
    c_dtype: DataType
    d_dtype: DataType
    bias_dtypes: tuple[DataType, ...]

    @property
    def key(self) -> tuple[ComputeType, DataType, DataType, DataType, DataType, DataType]:
        """The (compute, scale, A, B, C, D) tuple that identifies the row."""
        return (
            self.compute_type,
            self.scale_type,
            self.a_dtype,
            self.b_dtype,
            self.c_dtype,
            self.d_dtype,
        )

    @property
    def is_fp8(self) -> bool:
        """True for rows of the FP8 table (the only rows where C may differ from D)."""
        return self.a_dtype.is_fp8 or self.b_dtype.is_fp8

    @property
    def supports_epilogues(self) -> bool:
        """False for rows where cuBLASLt only runs the DEFAULT epilogue."""
        return bool(self.bias_dtypes)


_COMPUTE_16F = (ComputeType.COMPUTE_16F, ComputeType.COMPUTE_16F_PEDANTIC)
_COMPUTE_32F = (ComputeType.COMPUTE_32F, ComputeType.COMPUTE_32F_PEDANTIC)
_COMPUTE_32F_FAST = (
    ComputeType.COMPUTE_32F_FAST_16F,
    ComputeType.COMPUTE_32F_FAST_16BF,
    ComputeType.COMPUTE_32F_FAST_TF32,
)
_COMPUTE_64F = (ComputeType.COMPUTE_64F, ComputeType.COMPUTE_64F_PEDANTIC)
_COMPUTE_32I = (ComputeType.COMPUTE_32I, ComputeType.COMPUTE_32I_PEDANTIC)

# The regular table. A and B share `ab`; C and D share `cd` (the doc's Ctype column).
#  compute types       scale  A/B    C/D    bias dtypes
_REGULAR_TABLE: tuple[
    tuple[tuple[ComputeType, ...], DataType, DataType, DataType, tuple[DataType, ...]], ...
] = (
    (_COMPUTE_16F, _F16, _F16, _F16, (_F16,)),
    (_COMPUTE_32F, _F32, _BF16, _BF16, (_BF16,)),
    (_COMPUTE_32F, _F32, _F16, _F16, (_F16,)),
    (_COMPUTE_32F, _F32, _BF16, _F32, (_F32,)),
    (_COMPUTE_32F, _F32, _F16, _F32, (_F32,)),
    (_COMPUTE_32F, _F32, _F32, _F32, (_F32,)),
    (_COMPUTE_32F_FAST, _F32, _F32, _F32, (_F32,)),
    (_COMPUTE_64F, _F64, _F64, _F64, (_F64,)),
    (_COMPUTE_32I, _I32, _I8, _I32, ()),
)

# The FP8 table: compute_32f with an f32 scale. C is the type cuBLASLt reads C (and
# the bias, for 16-bit C) in; an FP8 D is written from that precision. e5m2 x e5m2
# is not a row, and an e5m2 D needs one e5m2 input.
#  A      B      C      D      bias dtypes
_FP8_TABLE: tuple[tuple[DataType, DataType, DataType, DataType, tuple[DataType, ...]], ...] = (
    (_E4M3, _E4M3, _BF16, _BF16, (_BF16,)),
    (_E4M3, _E4M3, _BF16, _E4M3, (_BF16,)),
    (_E4M3, _E4M3, _F16, _E4M3, (_F16,)),
    (_E4M3, _E4M3, _F16, _F16, (_F16,)),
    (_E4M3, _E4M3, _F32, _F32, (_BF16,)),
    (_E4M3, _E5M2, _BF16, _BF16, (_BF16,)),
    (_E4M3, _E5M2, _BF16, _E4M3, (_BF16,)),
    (_E4M3, _E5M2, _BF16, _E5M2, (_BF16,)),
    (_E4M3, _E5M2, _F16, _E4M3, (_F16,)),
    (_E4M3, _E5M2, _F16, _E5M2, (_F16,)),
    (_E4M3, _E5M2, _F16, _F16, (_F16,)),
    (_E4M3, _E5M2, _F32, _F32, (_BF16,)),
    (_E5M2, _E4M3, _BF16, _BF16, (_BF16,)),
    (_E5M2, _E4M3, _BF16, _E4M3, (_BF16,)),
    (_E5M2, _E4M3, _BF16, _E5M2, (_BF16,)),
    (_E5M2, _E4M3, _F16, _E4M3, (_F16,)),
    (_E5M2, _E4M3, _F16, _E5M2, (_F16,)),
    (_E5M2, _E4M3, _F16, _F16, (_F16,)),
    (_E5M2, _E4M3, _F32, _F32, (_BF16,)),
)


def _expand() -> tuple[TypeRow, ...]:
    rows: list[TypeRow] = []
    for computes, scale, ab, cd, bias in _REGULAR_TABLE:
        for compute in computes:
            rows.append(TypeRow(compute, scale, ab, ab, cd, cd, bias))
    for a, b, c, d, bias in _FP8_TABLE:
        rows.append(TypeRow(ComputeType.COMPUTE_32F, _F32, a, b, c, d, bias))
    return tuple(rows)


SUPPORTED_ROWS: tuple[TypeRow, ...] = _expand()
"""Every supported row, in the documentation's order (diagnostics list them so)."""

_ROW_BY_KEY = {row.key: row for row in SUPPORTED_ROWS}
_AB_PAIRS = frozenset((row.a_dtype, row.b_dtype) for row in SUPPORTED_ROWS)
_FP8_AB_PAIRS = frozenset((row.a_dtype, row.b_dtype) for row in SUPPORTED_ROWS if row.is_fp8)


def find_row(
    compute_type: ComputeType,
    scale_type: DataType,
    a_dtype: DataType,
    b_dtype: DataType,
    c_dtype: DataType,
    d_dtype: DataType,
) -> TypeRow | None:
    """The table row for these types, or None when cuBLASLt does not support them."""
    return _ROW_BY_KEY.get((compute_type, scale_type, a_dtype, b_dtype, c_dtype, d_dtype))


def is_supported_ab_pair(a_dtype: DataType, b_dtype: DataType) -> bool:
    """True when some row reads A and B with these types (V1's exception list)."""
    return (a_dtype, b_dtype) in _AB_PAIRS


def is_fp8_ab_pair(a_dtype: DataType, b_dtype: DataType) -> bool:
    """True when (A, B) selects the FP8 table, where C may differ from D (V3)."""
    return (a_dtype, b_dtype) in _FP8_AB_PAIRS


def rows_for_inputs(a_dtype: DataType, b_dtype: DataType) -> tuple[TypeRow, ...]:
    """The rows that read A and B with these types, in table order (for hints)."""
    return tuple(row for row in SUPPORTED_ROWS if row.a_dtype == a_dtype and row.b_dtype == b_dtype)


__all__ = [
    "SUPPORTED_ROWS",
    "TypeRow",
    "find_row",
    "is_fp8_ab_pair",
    "is_supported_ab_pair",
    "rows_for_inputs",
]
