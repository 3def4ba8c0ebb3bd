"""Bytes a lowered program allocates, without and with the buffer plan.

    PYTHONPATH=$PWD python3 -m bench.buffer_bytes [--seq 6]

For examples/mlp_block.mlir and the residual-chain block (hidden 2048) it prints the
bytes of arguments + buffers + constants that `lumir.runtime.load` allocates, after
lumir-pipeline with `share_buffers` off and on (the default). No GPU needed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from xdsl.dialects.func import FuncOp
from xdsl.passes import PassPipeline

from bench.workloads import chain_hl
from lumir.context import lumir_context
from lumir.dialects.cublaslt_rt import buffer_bytes
from lumir.parsing import LocatedParser
from lumir.passes import available_passes
from lumir.passes.buffer_plan import allocated_bytes
from lumir.passes.lower_to_cublaslt_rt import LowerToCublasltRtPass
from lumir.passes.pipeline import PIPELINE

REPO = Path(__file__).resolve().parents[1]


def lowered_bytes(text: str, share: bool) -> tuple[int, int]:
    """(all bytes, intermediate bytes) the program of `text` allocates after the pipeline."""
    module = LocatedParser(lumir_context(), text, "<bench>").parse_module()
    passes = available_passes()
    steps = [passes[name]()() for name in PIPELINE[: PIPELINE.index("lower-to-cublaslt-rt")]]
    steps.append(LowerToCublasltRtPass(share_buffers=share))
    PassPipeline(tuple(steps)).apply(lumir_context(), module)
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    total = allocated_bytes(func)
    arguments = sum(buffer_bytes(arg.type) for arg in func.body.block.args)  # type: ignore[arg-type]
    return total, total - arguments


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.buffer_bytes")
    parser.add_argument("--seq", type=int, default=6)
    args = parser.parse_args()
    programs = {
        "examples/mlp_block.mlir": (REPO / "examples" / "mlp_block.mlir").read_text(),
        f"residual chain, hidden 2048, seq {args.seq}": chain_hl(args.seq, 2048),
    }
    print("| program | one buffer per value | buffer plan | beyond the arguments |")
    print("| --- | --- | --- | --- |")
    for name, text in programs.items():
        before, scratch_before = lowered_bytes(text, share=False)
        after, scratch_after = lowered_bytes(text, share=True)
        print(
            f"| {name} | {before:,} B | {after:,} B | {scratch_before:,} B -> {scratch_after:,} B |"
        )


if __name__ == "__main__":
    main()
