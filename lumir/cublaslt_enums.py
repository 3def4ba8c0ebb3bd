"""cuBLASLt's enumerations as Python enums, one place for the whole compiler.

The IR attributes in `lumir.dialects.cublaslt`, the verifier's supported-type table,
the CPU reference executor and the CUDA executor all speak these enums. Each member's
`cuda_value` is the integer cuBLASLt (or CUDA's `cudaDataType_t` /
`cublasComputeType_t`) uses for it, so the CUDA executor never keeps a second table.
A `DataType`'s facts (CUDA id, byte width, element type) are its row of `lumir.dtypes`.
"""

from __future__ import annotations

from enum import Enum

from xdsl.ir import Attribute
from xdsl.utils.str_enum import StrEnum

from lumir.dtypes import BY_NAME, ElementDType, element_dtype


class DataType(StrEnum):
    """A `cudaDataType_t` that lumir can place in a matrix layout or a scale type."""

    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"
    F64 = "f64"
    F8E4M3 = "f8E4M3FN"
    F8E5M2 = "f8E5M2"
    I8 = "i8"
    I32 = "i32"

    @property
    def row(self) -> ElementDType:
        """This type's row of the dtype table (`lumir.dtypes`)."""
        return BY_NAME[self.value]

    @property
    def cuda_value(self) -> int:
        value = self.row.cuda_data_type
        assert value is not None, f"the dtype table gives {self} no cudaDataType_t"
        return value

    @property
    def byte_width(self) -> int:
        return self.row.byte_width

    @property
    def is_fp8(self) -> bool:
        return self in (DataType.F8E4M3, DataType.F8E5M2)

    def element_type(self) -> Attribute:
        """The builtin MLIR element type that carries this data type in IR."""
        return self.row.element_type

    @staticmethod
    def from_element_type(element_type: Attribute) -> DataType | None:
        """The data type of a builtin element type, or None if cuBLASLt has none."""
        row = element_dtype(element_type)
        if row is None or row.cuda_data_type is None:
            return None
        return DataType(row.name)


class ComputeType(StrEnum):
    """A `cublasComputeType_t`: the precision cuBLASLt accumulates in."""

    COMPUTE_16F = "compute_16f"
    COMPUTE_16F_PEDANTIC = "compute_16f_pedantic"
    COMPUTE_32F = "compute_32f"
    COMPUTE_32F_PEDANTIC = "compute_32f_pedantic"
    COMPUTE_32F_FAST_16F = "compute_32f_fast_16f"
    COMPUTE_32F_FAST_16BF = "compute_32f_fast_16bf"
    COMPUTE_32F_FAST_TF32 = "compute_32f_fast_tf32"
    COMPUTE_64F = "compute_64f"
    COMPUTE_64F_PEDANTIC = "compute_64f_pedantic"
    COMPUTE_32I = "compute_32i"
    COMPUTE_32I_PEDANTIC = "compute_32i_pedantic"

    @property
    def cuda_value(self) -> int:
        return _CUDA_COMPUTE_TYPE[self]


_CUDA_COMPUTE_TYPE = {
    ComputeType.COMPUTE_16F: 64,
    ComputeType.COMPUTE_16F_PEDANTIC: 65,
    ComputeType.COMPUTE_32F: 68,
    ComputeType.COMPUTE_32F_PEDANTIC: 69,
    ComputeType.COMPUTE_64F: 70,
    ComputeType.COMPUTE_64F_PEDANTIC: 71,
    ComputeType.COMPUTE_32I: 72,
    ComputeType.COMPUTE_32I_PEDANTIC: 73,
    ComputeType.COMPUTE_32F_FAST_16F: 74,
    ComputeType.COMPUTE_32F_FAST_16BF: 75,
    ComputeType.COMPUTE_32F_FAST_TF32: 77,
}


class Epilogue(StrEnum):
    """A `cublasLtEpilogue_t`: what cuBLASLt applies to alpha*op(A)op(B) + beta*C.

    Every cuBLASLt epilogue is here, including the AUX (forward outputs kept for the
    backward pass) and gradient ones that no lumir pass produces yet, so IR written by
    hand or by a later pass can name them.
    """

    DEFAULT = "default"
    RELU = "relu"
    RELU_AUX = "relu_aux"
    BIAS = "bias"
    RELU_BIAS = "relu_bias"
    RELU_AUX_BIAS = "relu_aux_bias"
    DRELU = "drelu"
    DRELU_BGRAD = "drelu_bgrad"
    GELU = "gelu"
    GELU_AUX = "gelu_aux"
    GELU_BIAS = "gelu_bias"
    GELU_AUX_BIAS = "gelu_aux_bias"
    DGELU = "dgelu"
    DGELU_BGRAD = "dgelu_bgrad"
    BGRADA = "bgrada"
    BGRADB = "bgradb"

    @property
    def cuda_value(self) -> int:
        return _CUDA_EPILOGUE[self]

    @property
    def reads_bias(self) -> bool:
        """True when the epilogue adds a bias vector (the forward BIAS family)."""
        return self in (
            Epilogue.BIAS,
            Epilogue.RELU_BIAS,
            Epilogue.RELU_AUX_BIAS,
            Epilogue.GELU_BIAS,
            Epilogue.GELU_AUX_BIAS,
        )

    @property
    def activation(self) -> str | None:
        """'relu', 'gelu' or None: the forward activation applied after the bias."""
        if self in (Epilogue.RELU, Epilogue.RELU_AUX, Epilogue.RELU_BIAS, Epilogue.RELU_AUX_BIAS):
            return "relu"
        if self in (Epilogue.GELU, Epilogue.GELU_AUX, Epilogue.GELU_BIAS, Epilogue.GELU_AUX_BIAS):
            return "gelu"
        return None


FORWARD_EPILOGUES = frozenset(
    {
        Epilogue.DEFAULT,
        Epilogue.RELU,
        Epilogue.BIAS,
        Epilogue.RELU_BIAS,
        Epilogue.GELU,
        Epilogue.GELU_BIAS,
    }
)
"""The epilogues lumir's executors run: those that need nothing beyond an optional bias.

The AUX and gradient epilogues read or write auxiliary buffers that `cublaslt_rt` does
not carry, so a plan with one could never run: `cublaslt.matmul` may name them (IR
written by hand, a later pass), but lower-to-cublaslt-rt and `cublaslt_rt.plan` refuse
them, so that a program lumir-opt lowers is one lumir-run can load.
"""


_CUDA_EPILOGUE = {
    Epilogue.DEFAULT: 1,
    Epilogue.RELU: 2,
    Epilogue.RELU_AUX: 2 | 128,
    Epilogue.BIAS: 4,
    Epilogue.RELU_BIAS: 2 | 4,
    Epilogue.RELU_AUX_BIAS: 2 | 4 | 128,
    Epilogue.DRELU: 8 | 128,
    Epilogue.DRELU_BGRAD: 8 | 16 | 128,
    Epilogue.GELU: 32,
    Epilogue.GELU_AUX: 32 | 128,
    Epilogue.GELU_BIAS: 32 | 4,
    Epilogue.GELU_AUX_BIAS: 32 | 4 | 128,
    Epilogue.DGELU: 64 | 128,
    Epilogue.DGELU_BGRAD: 64 | 16 | 128,
    Epilogue.BGRADA: 256,
    Epilogue.BGRADB: 512,
}


class Order(StrEnum):
    """A `cublasLtOrder_t` for a matrix layout (lumir emits only COL and ROW)."""

    COL = "col"
    ROW = "row"

    @property
    def cuda_value(self) -> int:
        return {Order.COL: 0, Order.ROW: 1}[self]


class Transpose(StrEnum):
    """A `cublasOperation_t`: whether cuBLASLt reads an operand as is or transposed."""

    N = "n"
    T = "t"

    @property
    def cuda_value(self) -> int:
        return {Transpose.N: 0, Transpose.T: 1}[self]


class Operand(Enum):
    """Positions of cublaslt.matmul's matrices, for diagnostics and layouts."""

    A = "A"
    B = "B"
    C = "C"
    D = "D"
