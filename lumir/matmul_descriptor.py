"""The cuBLASLt matmul descriptor as plain Python data: the leaf both IR and checks read.

The `cublaslt` and `cublaslt_rt` dialects carry it as properties, the verifier checks
it, the executors and the cost model consume it. It lives in a module that imports
nothing of lumir but the enums, so the dialects can import the verifier (their
`verify_` runs it) while the verifier never imports a dialect: no import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose


@dataclass(frozen=True)
class MatmulDescriptor:
    """A cuBLASLt matmul descriptor and its four matrix layouts as plain Python data.

    This is what executors, the cost model and the verifier consume: it has no xDSL
    objects in it, so it is cheap to build, hash and compare.
    """

    transa: Transpose
    transb: Transpose
    order_a: Order
    order_b: Order
    order_c: Order
    order_d: Order
    m: int
    n: int
    k: int
    lda: int
    ldb: int
    ldc: int
    ldd: int
    batch_count: int
    stride_a: int
    stride_b: int
    stride_c: int
    stride_d: int
    a_dtype: DataType
    b_dtype: DataType
    c_dtype: DataType
    d_dtype: DataType
    compute_type: ComputeType
    scale_type: DataType
    alpha: float
    beta: float
    epilogue: Epilogue


__all__ = ["MatmulDescriptor"]
