"""How a `cublaslt_rt.plan` may run, and which calls lumir's GEMV can run, declared once.

A plan with `algorithm = "gemv"` (lumir.dialects.cublaslt_rt) is run on CUDA by
`lumir.runtime.gemv`, a Triton kernel for one output column, rather than by the
algorithm cuBLASLt's heuristic picks. It computes the same call (alpha, beta * C, the
bias epilogue, an f32 output) with f32 products and sums, as `compute_32f` does; it
covers what decode steps need and nothing more. The plan verifier, the cost model
that chooses the algorithm and the runtime all read `gemv_problems`, so they agree on
what the kernel can do.

Several GEMV calls that read one activation can run as one launch of the grouped kernel
(`cublaslt_rt.matmul_group`, made by the `group-gemv` pass). Each member must then be
computed exactly as it would be alone: `gemv_config` fixes the block shape (and so the
order of every sum) from the call's shape, and `gemv_group_problems` says why two calls
could not share a launch. The dialect's verifier, the pass and the runtime read them.

A leaf: it imports only the enums, the descriptor and the operand-layout rule.
"""

from __future__ import annotations

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Operand
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import op_element_steps

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
    k_step = op_element_steps(desc, Operand.A)[1]
    if k_step != 1:
        problems.append(
            f"op(A) steps {k_step} elements along k, but the GEMV reads each row of op(A) "
            f"contiguously (a weight stored [out, in], as nn.Linear's; an [in, out] weight, "
            f"as GPT-2's Conv1D, is read coalesced by cuBLASLt's kernels instead)"
        )
    return problems


GemvConfig = tuple[int, int, int]
"""(BLOCK_M, BLOCK_K, num_warps) of one GEMV launch."""


def gemv_config(m: int, k: int) -> GemvConfig:
    """(BLOCK_M, BLOCK_K, num_warps) for an m x k GEMV: a pure function of the shape, so
    every process runs the same kernel and sums in the same order.

    From `bench/gemv_sweep.py --wide` on the H200 (128 block shapes, warps and pipeline
    depths per shape, µs inside a CUDA graph). One shape, (2, 2048, 2), is within 0.15 µs
    of each Llama-1B projection's best: 2048 x 2048 4.26 (best 4.14), 512 x 2048 2.77
    (2.63), 8192 x 2048 10.08 (10.05), 2048 x 8192 10.15 (10.09). Being one shape for
    every row count, it lets q, k and v share one grouped launch with each member's sums
    its own (`gemv_group_problems`): a decode layer's GEMVs took 37.7 µs against 40.4 µs
    with the per-shape best shapes of the earlier rule, which kept q apart. A row shorter
    than 2048 is one block; fewer than 256 rows run one row per program, so even a small
    call spreads over enough programs.
    """
    block_k = 2048 if k >= 2048 else max(16, 1 << (k - 1).bit_length())
    return (1 if m < 256 else 2), block_k, 2


GEMV_GROUP_MAX = 4
"""The most calls one grouped GEMV launch runs: the grouped kernel's member slots (a
decode layer's largest group, q, k and v, has three)."""


def vector_step(desc: MatmulDescriptor) -> int:
    """Elements between consecutive entries of op(B)'s one column: how the GEMV reads
    its activation vector from B's buffer."""
    return op_element_steps(desc, Operand.B)[0]


def gemv_group_problems(first: MatmulDescriptor, other: MatmulDescriptor) -> list[str]:
    """Why the GEMV call `other` cannot run in one grouped launch with `first` (empty
    when it can). Both must be calls the GEMV runs (`gemv_problems`); B is one buffer.

    The grouped kernel loads one activation vector for all members and runs every
    program with one block shape, so the members read B alike (type, length, step) and
    have the same `gemv_config`: each member's rows are then summed exactly as its
    own launch would sum them, and its D is bit for bit what it would be alone.
    """
    problems = []
    if other.k != first.k:
        problems.append(f"k = {other.k}, but the group's activation has k = {first.k}")
    if other.b_dtype != first.b_dtype:
        problems.append(f"b_dtype = {other.b_dtype}, but the group reads B as {first.b_dtype}")
    if vector_step(other) != vector_step(first):
        problems.append(
            f"reads B with a step of {vector_step(other)} elements, but the group reads it "
            f"with a step of {vector_step(first)}"
        )
    alone, shared = gemv_config(other.m, other.k), gemv_config(first.m, first.k)
    if alone != shared:
        problems.append(
            f"runs alone with (BLOCK_M, BLOCK_K, num_warps) = {alone}, but the group runs "
            f"{shared}: its sums would not be the ones it computes alone"
        )
    return problems


__all__ = [
    "ALGORITHMS",
    "GEMV_EPILOGUES",
    "GEMV_GROUP_MAX",
    "GEMV_INPUT_TYPES",
    "GemvConfig",
    "gemv_config",
    "gemv_group_problems",
    "gemv_problems",
    "vector_step",
]
