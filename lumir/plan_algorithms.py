"""How a `cublaslt_rt.plan` may run, and which calls lumir's GEMV can run, declared once.

A plan with `algorithm = "gemv"` (lumir.dialects.cublaslt_rt) is run on CUDA by
`lumir.runtime.gemv`, a Triton kernel for one output column, rather than by the
algorithm cuBLASLt's heuristic picks. It computes the same call (alpha, beta * C, the
bias epilogue, an f32 output) with f32 products and sums, as `compute_32f` does; it
covers what decode steps need and nothing more. The plan verifier, the cost model
that chooses the algorithm and the runtime all read `gemv_problems`, so they agree on
what the kernel can do.

A leaf: it imports only the enums and the descriptor.
"""

from __future__ import annotations

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue
from lumir.matmul_descriptor import MatmulDescriptor

ALGORITHMS = ("heuristic", "gemv")
"""How a plan runs, in order of preference on a cost tie. "heuristic": cuBLASLt, with
the first result of `cublasLtMatmulAlgoGetHeuristic` for the real buffers, asked once
at load time. "gemv": lumir's Triton GEMV for a one-column call, where
`gemv_problems` finds nothing; lower-to-cublaslt-rt picks it where the cost model
expects it to be faster (decode steps). On the CPU both run the reference GEMM."""

GEMV_INPUT_TYPES = (DataType.BF16, DataType.F16)
"""A and B: half-precision inputs, the memory-bound case the kernel was measured on."""

GEMV_EPILOGUES = (Epilogue.DEFAULT, Epilogue.BIAS)
"""No activation epilogue: decode's projections have none (SiLU is a fused kernel)."""


def gemv_problems(desc: MatmulDescriptor) -> list[str]:
    """Why lumir's GEMV cannot run `desc` (empty when it can)."""
    problems = []
    if desc.n != 1:
        problems.append(f"n = {desc.n}, but the GEMV computes one column (n = 1)")
    if desc.batch_count != 1:
        problems.append(f"batch_count = {desc.batch_count}, but the GEMV runs one matrix")
    if desc.a_dtype not in GEMV_INPUT_TYPES or desc.b_dtype != desc.a_dtype:
        problems.append(
            f"a_dtype = {desc.a_dtype}, b_dtype = {desc.b_dtype}, but the GEMV reads A and B "
            f"of one type among {', '.join(t.value for t in GEMV_INPUT_TYPES)}"
        )
    if desc.d_dtype not in (desc.a_dtype, DataType.F32):
        problems.append(f"d_dtype = {desc.d_dtype}, but the GEMV writes A's type or f32")
    if desc.compute_type is not ComputeType.COMPUTE_32F or desc.scale_type is not DataType.F32:
        problems.append(
            f"compute_type = {desc.compute_type}, scale_type = {desc.scale_type}, but the "
            f"GEMV computes compute_32f with f32 scales"
        )
    if desc.epilogue not in GEMV_EPILOGUES:
        problems.append(
            f"epilogue = {desc.epilogue}, but the GEMV applies only "
            f"{', '.join(e.value for e in GEMV_EPILOGUES)}"
        )
    return problems


__all__ = ["ALGORITHMS", "GEMV_EPILOGUES", "GEMV_INPUT_TYPES", "gemv_problems"]
