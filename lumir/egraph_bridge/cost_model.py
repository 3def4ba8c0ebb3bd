"""The roofline cost of one e-node on an H200, in seconds: the extractor minimises it.

A kernel is bound by the slower of its memory traffic (bytes moved / HBM bandwidth) and
its math (flops / the matrix rate of its compute type), plus a fixed cost per launch.
Fusing an epilogue, a residual or a cast into a cuBLASLt call therefore wins by one
launch and one round trip of the intermediate through memory; re-running a GEMM to fuse
into a second consumer loses by the GEMM's whole cost, which is how the extractor decides
whether recomputation is cheaper than keeping a shared intermediate.

The constants are the only place lumir records hardware numbers; they are estimates for
ranking alternatives, not predictions of wall time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from lumir.cublaslt_enums import ComputeType, DataType
from lumir.dtypes import element_byte_width
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.plan_algorithms import ALGORITHMS, gemv_problems

HBM_BYTES_PER_SECOND = 4.3e12
"""H200 HBM3e: 4.8 TB/s peak, about 4.3 TB/s reached by streaming kernels."""

LAUNCH_SECONDS = 3.0e-6
"""Fixed cost of one kernel inside a replayed CUDA graph. docs/design.md ("Runtime") has a replayed
6x2048x2048 bf16 GEMM at about 5 us, of which about 2 us is moving its 8 MiB weight."""

VIEW_SECONDS = 1.0e-9
"""An hl.reshape of a dense tensor is a view: no kernel. The token cost makes extraction
prefer fewer ops and keeps every cycle of views strictly more expensive than its exit."""

DENSE_TENSOR_CORE_FLOPS = 790e12
"""bf16/f16 inputs accumulating in f32 (or f16) on tensor cores (989 TFLOP/s peak)."""

MATRIX_FLOPS_PER_SECOND: dict[ComputeType, float] = {
    ComputeType.COMPUTE_16F: DENSE_TENSOR_CORE_FLOPS,
    ComputeType.COMPUTE_16F_PEDANTIC: 60e12,
    ComputeType.COMPUTE_32F: DENSE_TENSOR_CORE_FLOPS,
    ComputeType.COMPUTE_32F_PEDANTIC: 60e12,
    ComputeType.COMPUTE_32F_FAST_16F: DENSE_TENSOR_CORE_FLOPS,
    ComputeType.COMPUTE_32F_FAST_16BF: DENSE_TENSOR_CORE_FLOPS,
    ComputeType.COMPUTE_32F_FAST_TF32: 395e12,
    ComputeType.COMPUTE_64F: 60e12,
    ComputeType.COMPUTE_64F_PEDANTIC: 60e12,
    ComputeType.COMPUTE_32I: 1580e12,
    ComputeType.COMPUTE_32I_PEDANTIC: 1580e12,
}
"""Matrix rate by compute type, for half-precision (or FP8/i8) inputs."""

F32_INPUT_FLOPS = 60e12
"""compute_32f over f32 inputs runs true fp32 on the CUDA cores, not the tensor cores."""

FP8_FLOPS = 1580e12
"""FP8 inputs (compute_32f) on tensor cores: twice the bf16 rate."""

GEMV_BYTES_PER_SECOND = 4.0e12
"""lumir's Triton GEMV (`algorithm = "gemv"`) streaming a one-column call's operands."""

GEMV_LAUNCH_SECONDS = 2.0e-6
"""Its fixed cost inside a replayed graph. With the rate above this fits what
`bench/gemv_sweep.py` measured on the H200 for one-row bf16 GEMMs of 2-42 MB
(2.9-12.0 us), where cuBLASLt took 5.7-13.8 us; for the 525 MB lm_head cuBLASLt's
118.6 us (4.4 TB/s) stays ahead, which this model also says."""


def matrix_rate(compute_type: ComputeType, a_dtype: DataType) -> float:
    """Flops per second of a GEMM with this compute type and A dtype."""
    if a_dtype.is_fp8:
        return FP8_FLOPS
    if a_dtype in (DataType.F32, DataType.F64) and compute_type in (
        ComputeType.COMPUTE_32F,
        ComputeType.COMPUTE_32F_PEDANTIC,
    ):
        return F32_INPUT_FLOPS
    return MATRIX_FLOPS_PER_SECOND[compute_type]


def tensor_bytes(tensor: TensorType[Attribute]) -> int:
    """Bytes of a dense tensor (a dynamic dimension counts as 1)."""
    width = element_byte_width(tensor.element_type)
    return (width or 4) * math.prod(max(dim, 1) for dim in tensor.get_shape())


def matmul_seconds(
    desc: MatmulDescriptor,
    a: TensorType[Attribute],
    b: TensorType[Attribute],
    c: TensorType[Attribute] | None,
    bias: TensorType[Attribute] | None,
    d: TensorType[Attribute],
) -> float:
    """One call, on the cheaper of the algorithms that can run it (`algorithm_seconds`):
    the extractor sees what the lowering will pick (`preferred_algorithm`)."""
    return min(algorithm_seconds(desc, a, b, c, bias, d).values())


def algorithm_seconds(
    desc: MatmulDescriptor,
    a: TensorType[Attribute],
    b: TensorType[Attribute],
    c: TensorType[Attribute] | None,
    bias: TensorType[Attribute] | None,
    d: TensorType[Attribute],
) -> dict[str, float]:
    """{algorithm: seconds} for every algorithm that can run the call, in `ALGORITHMS`
    order. cuBLASLt: A, B, C (when read) and bias in, D out, 2*m*n*k flops a batch, at
    the roofline. The GEMV (when `gemv_problems` allows it): the same bytes at its
    streaming rate, its math on the CUDA cores never the bound."""
    moved = sum(tensor_bytes(t) for t in (a, b, c, bias, d) if t is not None)
    flops = 2.0 * desc.m * desc.n * desc.k * desc.batch_count
    compute = flops / matrix_rate(desc.compute_type, desc.a_dtype)
    seconds = {"heuristic": max(moved / HBM_BYTES_PER_SECOND, compute) + LAUNCH_SECONDS}
    if not gemv_problems(desc):
        seconds["gemv"] = moved / GEMV_BYTES_PER_SECOND + GEMV_LAUNCH_SECONDS
    return seconds


def preferred_algorithm(
    desc: MatmulDescriptor,
    a: TensorType[Attribute],
    b: TensorType[Attribute],
    c: TensorType[Attribute] | None,
    bias: TensorType[Attribute] | None,
    d: TensorType[Attribute],
) -> str:
    """The cheapest algorithm for the call (the first in `ALGORITHMS` on a tie): a pure
    function of the IR, so every process lowers the call the same way."""
    seconds = algorithm_seconds(desc, a, b, c, bias, d)
    return min(seconds, key=lambda name: (seconds[name], ALGORITHMS.index(name)))


def kernel_seconds(inputs: Sequence[TensorType[Attribute]], output: TensorType[Attribute]) -> float:
    """A memory-bound kernel (elementwise, cast, transpose): every input read, output written."""
    moved = sum(tensor_bytes(t) for t in inputs) + tensor_bytes(output)
    return moved / HBM_BYTES_PER_SECOND + LAUNCH_SECONDS
