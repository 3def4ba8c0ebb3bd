"""Which launch of a program computes differently on CUDA than on the CPU executor.

    PYTHONPATH=$PWD python3 bench/cuda_launch_diff.py --layer 6
    PYTHONPATH=$PWD python3 bench/cuda_launch_diff.py --mlir dump/graph0.p0.lowered.mlir

`--layer S` compiles the tiny Llama layer (`bench.workloads.llama_layer_hl`) at sequence S
with fused kernels; `--mlir` takes lowered IR (e.g. from the backend's `dump_ir`). Inputs
are seeded (`lumir.testing.programs.seeded_inputs`; integer inputs are drawn from
[0, --int-high)). Prints one line per launch, flagging those outside the tolerance
(`lumir.testing.launch_diff`). Needs CUDA.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from bench.workloads import LLAMA_SHAPES, llama_layer_hl
from lumir.testing.launch_diff import launch_differences
from lumir.testing.programs import compile_text, seeded_inputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--layer", type=int, help="the tiny Llama layer at this sequence")
    group.add_argument("--mlir", type=Path, help="a lowered module")
    parser.add_argument("--int-high", type=int, default=2, help="integer inputs in [0, N)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--propagate", action="store_true", help="let differences compound")
    args = parser.parse_args(argv)
    if args.layer is not None:
        text = compile_text(llama_layer_hl(args.layer, LLAMA_SHAPES["tiny"]), True)
    else:
        text = args.mlir.read_text()
    generator = torch.Generator().manual_seed(args.seed)
    inputs = [
        torch.randint(0, args.int_high, t.shape, generator=generator, dtype=t.dtype)
        if not t.is_floating_point() and t.dtype != torch.bool
        else t
        for t in seeded_inputs(text, args.seed)
    ]
    failing = 0
    for row in launch_differences(text, inputs, isolate=not args.propagate):
        flag = "BAD " if row.mismatched else "    "
        failing += bool(row.mismatched)
        print(
            f"{flag}#{row.index:3d} {row.op:40s} max_abs={row.max_abs:.3e} "
            f"mismatched={row.mismatched}/{row.elements}"
        )
    print(f"{failing} launch(es) differ")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
