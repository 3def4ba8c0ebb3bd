"""How many cuBLASLt workspace bytes the algorithms a compiled model runs actually need.

    PYTHONPATH=$PWD python3 -m bench.workspace_needs [--seqs 1,128,1024,decode]

Every cuBLASLt plan asks the heuristic for its best algorithm with a workspace budget
(`workspace_size`, 32 MiB by default) and records what the chosen algorithm needs
(`CublasLtMatmulPlan.algorithm_workspace_bytes`). This compiles the Llama-3.2-1B-shaped
bf16 model with lumir at each seq, makes one call, and prints, per seq, how many plans
were built and the largest needs with their problem shapes: the numbers that say how
large the process's shared workspace has to be. CUDA only.
"""

from __future__ import annotations

import argparse
from collections import Counter

import torch

from bench import candidates
from bench.workloads import LLAMA_SHAPES, llama_workloads

MIB = 2**20


def _record_plans() -> list[tuple[str, int]]:
    """Patch the plan class so each plan built appends (problem, needed bytes)."""
    from lumir.runtime import cuda_cublaslt

    built: list[tuple[str, int]] = []
    plan_init = cuda_cublaslt.CublasLtMatmulPlan.__init__

    def recording_init(self, descriptor, *args, **kwargs) -> None:
        plan_init(self, descriptor, *args, **kwargs)
        d = descriptor
        problem = f"m={d.m} n={d.n} k={d.k} batch={d.batch_count} beta={d.beta}"
        built.append((problem, self.algorithm_workspace_bytes))

    cuda_cublaslt.CublasLtMatmulPlan.__init__ = recording_init  # type: ignore[method-assign]
    return built


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.workspace_needs")
    parser.add_argument("--seqs", default="1,128,1024,decode")
    parser.add_argument("--top", type=int, default=6)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("bench.workspace_needs: needs a CUDA device")
    device = torch.device("cuda")
    torch.set_grad_enabled(False)
    built = _record_plans()
    for workload in llama_workloads(args.seqs.split(","), LLAMA_SHAPES["1b"], device):
        start = len(built)
        prepared = candidates.prepare("lumir", workload, device)
        prepared.call()
        torch.cuda.synchronize()
        plans = built[start:]
        needs = Counter(need for _, need in plans)
        largest = max((need for _, need in plans), default=0)
        print(
            f"seq {workload.seq}: {len(plans)} cuBLASLt plans, largest need "
            f"{largest} bytes ({largest / MIB:.3f} MiB); needs (bytes: plans) "
            + ", ".join(f"{need}: {count}" for need, count in sorted(needs.items()))
        )
        by_problem = sorted(set(plans), key=lambda row: (-row[1], row[0]))
        for problem, need in by_problem[: args.top]:
            print(f"  {need / MIB:8.3f} MiB  {problem}")
        torch._dynamo.reset()


if __name__ == "__main__":
    main()
