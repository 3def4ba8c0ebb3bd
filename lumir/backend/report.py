"""The `lumir report:` line: what one compiled graph became, as key=value fields."""

from __future__ import annotations

from collections import Counter

from xdsl.dialects.builtin import ModuleOp

from lumir.backend.stats import GraphStats
from lumir.dialects import cublaslt, cublaslt_rt, hl

REPORT_FIELDS = (
    "matmuls",
    "cublaslt_calls",
    "fused_bias",
    "fused_beta",
    "fused_act",
    "fused_alpha",
    "fused_cast",
    "gemv_calls",
    "gemv_groups",
    "gemv_epilogues",
    "gemv_prologues",
    "fused_groups",
)


def count_matmuls(imported: ModuleOp) -> int:
    """The products of an imported module (`hl.matmul` ops)."""
    return sum(isinstance(op, hl.MatmulOp) for op in imported.walk())


def count_fusions(matmuls: int, fused: ModuleOp) -> Counter[str]:
    """Products imported (`matmuls`, from `count_matmuls`, taken before the imported
    module is compiled in place), and the calls fusion produced with what each absorbed."""
    counts: Counter[str] = Counter({name: 0 for name in REPORT_FIELDS})
    counts["matmuls"] = matmuls
    for op in fused.walk():
        if not isinstance(op, cublaslt.MatmulOp):
            continue
        desc = op.descriptor()
        counts["cublaslt_calls"] += 1
        counts["fused_bias"] += "bias" in desc.epilogue.value
        counts["fused_beta"] += desc.beta != 0.0
        counts["fused_act"] += desc.epilogue.activation is not None
        counts["fused_alpha"] += desc.alpha != 1.0
        counts["fused_cast"] += desc.d_dtype != desc.a_dtype
    return counts


def count_gemv_plans(lowered: ModuleOp) -> int:
    """The calls of a lowered module that run as lumir's GEMV (`algorithm = "gemv"`);
    the others run on cuBLASLt."""
    return sum(
        isinstance(op, cublaslt_rt.PlanOp) and op.algorithm.data == "gemv" for op in lowered.ops
    )


def count_gemv_groups(lowered: ModuleOp) -> int:
    """The grouped GEMV launches of a lowered module (`cublaslt_rt.matmul_group`, made by
    group-gemv): each runs two or more of the `gemv_calls` at once."""
    return sum(isinstance(op, cublaslt_rt.MatmulGroupOp) for op in lowered.walk())


def count_gemv_epilogues(lowered: ModuleOp) -> int:
    """The GEMV groups of a lowered module that run a fused launch as their epilogue
    (made by gemv-epilogue): on CUDA each is one kernel where there were two launches."""
    return sum(
        isinstance(op, cublaslt_rt.MatmulGroupOp) and op.epilogue() is not None
        for op in lowered.walk()
    )


def count_gemv_prologues(lowered: ModuleOp) -> int:
    """The GEMV groups of a lowered module that compute their activation in a prologue
    (made by gemv-prologue): on CUDA each is one kernel where there were two launches."""
    return sum(
        isinstance(op, cublaslt_rt.MatmulGroupOp) and op.prologue() is not None
        for op in lowered.walk()
    )


def count_fused_groups(lowered: ModuleOp) -> int:
    """The grouped fused launches of a lowered module (`cublaslt_rt.fused_group`, made by
    group-fused): on CUDA each is one kernel where its members were launches of their own."""
    return sum(isinstance(op, cublaslt_rt.FusedGroupOp) for op in lowered.walk())


def report_line(graph: GraphStats, device: str, precision: str) -> str:
    """`lumir report: graph=... matmuls=... fallback_ops=... compile_ms=...` (one line)."""
    totals: Counter[str] = Counter({name: 0 for name in REPORT_FIELDS})
    for partition in graph.partitions:
        totals.update(partition.fused)
    fields = [f"graph={graph.label}", f"partitions={len(graph.partitions)}"]
    fields += [f"{name}={totals[name]}" for name in REPORT_FIELDS]
    fields.append(f"fallback_ops={len(graph.fallback_ops)}")
    if graph.fallback_ops:
        fields.append(f"fallback={','.join(sorted(set(graph.fallback_ops)))}")
    fields.append(f"failed_partitions={len(graph.failures)}")
    if graph.cache_lengths:  # their ops run in eager between partitions (cache_lengths.py)
        fields.append(f"cache_lengths={','.join(graph.cache_lengths)}")
    fields.append(f"fuse_runs={sum(p.fuse_runs for p in graph.partitions)}")
    fields.append(f"device={device}")
    fields.append(f"precision={precision}")
    fields.append(f"compile_ms={graph.compile_ms:.0f}")
    return "lumir report: " + " ".join(fields)


__all__ = [
    "REPORT_FIELDS",
    "count_fused_groups",
    "count_fusions",
    "count_gemv_epilogues",
    "count_gemv_groups",
    "count_gemv_plans",
    "count_gemv_prologues",
    "count_matmuls",
    "report_line",
]
