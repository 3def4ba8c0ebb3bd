"""Many seeded fuzz programs, in parallel, and which fusions they exercised.

Program `i` of a run with seed `S` and its inputs depend only on `(S, i)`, and every
worker runs torch on one thread (a float64 matmul's summation order may depend on the
thread count), so a run's records are identical whatever the number of workers.
`bench/fuzz.py` is the command line around `run_many`.
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lumir.cublaslt_enums import DataType, Epilogue, Transpose
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.testing.fuzz_check import Outcome, check
from lumir.testing.fuzz_programs import random_program

_HALF = (DataType.F16, DataType.BF16)

FUSION_FAMILIES: dict[str, Callable[[MatmulDescriptor], bool]] = {
    "alpha (scale into alpha)": lambda d: d.alpha != 1.0,
    "residual (beta = 1, C read)": lambda d: d.beta != 0.0,
    "bias epilogue": lambda d: d.epilogue.reads_bias,
    "relu epilogue": lambda d: d.epilogue in (Epilogue.RELU, Epilogue.RELU_BIAS),
    "gelu epilogue": lambda d: d.epilogue in (Epilogue.GELU, Epilogue.GELU_BIAS),
    "cast-f32 output (f16/bf16 in, f32 D)": lambda d: (
        d.a_dtype in _HALF and d.d_dtype == DataType.F32
    ),
    "cast-f32 with residual (C in f32)": lambda d: (
        d.a_dtype in _HALF and d.beta != 0.0 and d.c_dtype == DataType.F32
    ),
    "batched (batch_count > 1)": lambda d: d.batch_count > 1,
    "transposed operand (transa/transb = t)": lambda d: Transpose.T in (d.transa, d.transb),
    "f32 GEMM": lambda d: d.a_dtype == DataType.F32,
    "f16 GEMM": lambda d: d.a_dtype == DataType.F16,
    "bf16 GEMM": lambda d: d.a_dtype == DataType.BF16,
}
"""Each fusion family and how to see it in a compiled `cublaslt_rt.plan` descriptor."""
SEVERAL_GEMMS = "several GEMMs in one program"
NO_FUSION = "no fusion at all (every GEMM plain)"


@dataclass(frozen=True)
class FuzzRecord:
    """What happened to one program of a seeded run."""

    index: int
    input_seed: int
    outcome: Outcome
    detail: str
    reproducer: str
    """The program's hl text: `lumir-opt FILE -p lumir-pipeline` reproduces a refusal."""
    families: tuple[str, ...]
    """The coverage entries its compiled plans exercised (empty if it did not compile)."""


def families_of(plans: Sequence[MatmulDescriptor]) -> tuple[str, ...]:
    """The coverage entries that the compiled plans of one program exercise."""
    names = [name for name, seen in FUSION_FAMILIES.items() if any(seen(d) for d in plans)]
    if len(plans) > 1:
        names.append(SEVERAL_GEMMS)
    if plans and not any(_fused(d) for d in plans):
        names.append(NO_FUSION)
    return tuple(names)


def _fused(d: MatmulDescriptor) -> bool:
    return (
        d.alpha != 1.0 or d.beta != 0.0 or d.epilogue != Epilogue.DEFAULT or d.d_dtype != d.a_dtype
    )


def input_seed(seed: int, index: int) -> int:
    """The torch seed of program `index`'s inputs (a 63-bit number derived from both)."""
    return random.Random(f"lumir-fuzz-inputs/{seed}/{index}").getrandbits(63)


def run_seeded(seed: int, index: int, device: str = "cpu") -> FuzzRecord:
    """Generate, compile, run and judge program `index` of the run with `seed`."""
    program = random_program(seed, index)
    inputs = input_seed(seed, index)
    result = check(program, inputs, device=device)
    return FuzzRecord(
        index,
        inputs,
        result.outcome,
        result.detail,
        program.text(),
        families_of(result.plans),
    )


def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)


def _run_task(task: tuple[int, int, str]) -> FuzzRecord:
    return run_seeded(*task)


def run_many(seed: int, count: int, jobs: int = 1, device: str = "cpu") -> list[FuzzRecord]:
    """Programs 0..count-1 of the run with `seed`, in index order, on `jobs` processes."""
    tasks = [(seed, index, device) for index in range(count)]
    if jobs <= 1:
        _one_thread()
        return [_run_task(task) for task in tasks]
    # spawn, not fork: each worker imports torch and egglog afresh instead of inheriting
    # the parent's threads and locks (and CUDA context).
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=_one_thread) as pool:
        return list(pool.imap(_run_task, tasks, chunksize=4))
