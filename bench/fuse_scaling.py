"""How cublaslt-fuse scales with program size: a chain of residual blocks at hidden 2048.

Each block is what a bf16 transformer MLP layer hands the fusion pass after
`hl-to-cublaslt`: an RMSNorm-style prologue (cast to f32, square, mean, rsqrt, scale,
cast back: opaque to the rules except the casts and products), then
`h + down(gelu_tanh(up(x) + b_up)) + b_down` on a [1, S, 2048] activation, whose two
Linear layers run as [S, K] GEMMs between reshape views. The chain is one function
(one block), so the e-graph holds all of it at once.

The script times the four phases of `fuse_block` (encode, saturate, extract, decode)
for 1, 4, 16 and 64 blocks and prints them with the e-graph's size. Growth should be
about linear in blocks: every rule only adds nodes next to a call.

    python bench/fuse_scaling.py [--blocks 1 4 16 64] [--tokens 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from lumir.context import lumir_context
from lumir.dialects.cublaslt import MatmulOp
from lumir.egraph_bridge.block_fusion import FuseConfig, fuse_block
from lumir.egraph_bridge.rulesets import FAMILIES
from lumir.egraph_bridge.saturate import Limits
from lumir.parsing import LocatedParser
from lumir.passes.hl_to_cublaslt import HLToCublasltPass

HIDDEN = 2048
INTERMEDIATE = 4 * HIDDEN
PHASES = ("encode", "saturate", "extract", "decode")


def _block(i: int, tokens: int) -> tuple[list[str], list[str]]:
    """(arguments, body lines) of residual block `i`, reading %h{i} and defining %h{i+1}."""
    act = f"tensor<1x{tokens}x{HIDDEN}xbf16>"
    act32 = f"tensor<1x{tokens}x{HIDDEN}xf32>"
    stat = f"tensor<1x{tokens}x1xf32>"
    mid = f"tensor<1x{tokens}x{INTERMEDIATE}xbf16>"
    w_up, w_down = f"tensor<{INTERMEDIATE}x{HIDDEN}xbf16>", f"tensor<{HIDDEN}x{INTERMEDIATE}xbf16>"
    w_up_t, w_down_t = w_down, w_up
    args = [
        f"%w_up{i}: {w_up}",
        f"%b_up{i}: tensor<{INTERMEDIATE}xbf16>",
        f"%w_down{i}: {w_down}",
        f"%b_down{i}: tensor<{HIDDEN}xbf16>",
    ]
    body = [
        f"%hf{i} = hl.cast %h{i} : {act} -> {act32}",
        f"%sq{i} = hl.mul %hf{i}, %hf{i} : ({act32}, {act32}) -> {act32}",
        f"%ms{i} = hl.mean %sq{i} {{dims = array<i64: -1>, keepdim}} : {act32} -> {stat}",
        f"%rs{i} = hl.rsqrt %ms{i} : {stat} -> {stat}",
        f"%nf{i} = hl.mul %hf{i}, %rs{i} : ({act32}, {stat}) -> {act32}",
        f"%n{i} = hl.cast %nf{i} : {act32} -> {act}",
        f"%wut{i} = hl.transpose %w_up{i} {{permutation = array<i64: 1, 0>}} : {w_up} -> {w_up_t}",
        f"%u{i} = hl.matmul %n{i}, %wut{i} : ({act}, {w_up_t}) -> {mid}",
        f"%ub{i} = hl.add %u{i}, %b_up{i} : ({mid}, tensor<{INTERMEDIATE}xbf16>) -> {mid}",
        f'%g{i} = hl.gelu %ub{i} {{approximate = "tanh"}} : {mid} -> {mid}',
        f"%wdt{i} = hl.transpose %w_down{i} {{permutation = array<i64: 1, 0>}} : "
        f"{w_down} -> {w_down_t}",
        f"%d{i} = hl.matmul %g{i}, %wdt{i} : ({mid}, {w_down_t}) -> {act}",
        f"%db{i} = hl.add %d{i}, %b_down{i} : ({act}, tensor<{HIDDEN}xbf16>) -> {act}",
        f"%h{i + 1} = hl.add %h{i}, %db{i} : ({act}, {act}) -> {act}",
    ]
    return args, body


def chain_program(blocks: int, tokens: int) -> str:
    """A function running `blocks` residual blocks on %h0 and returning the f32 output."""
    act = f"tensor<1x{tokens}x{HIDDEN}xbf16>"
    args, body = [f"%h0: {act}"], []
    for i in range(blocks):
        block_args, block_body = _block(i, tokens)
        args += block_args
        body += block_body
    out = f"tensor<1x{tokens}x{HIDDEN}xf32>"
    body += [f"%out = hl.cast %h{blocks} : {act} -> {out}", f"func.return %out : {out}"]
    lines = [f"func.func @chain({', '.join(args)}) -> {out} {{", *(f"  {b}" for b in body), "}"]
    return "\n".join(lines) + "\n"


def lowered_chain(blocks: int, tokens: int) -> ModuleOp:
    """The chain after hl-to-cublaslt: the input the fusion pass sees."""
    ctx = lumir_context()
    module = LocatedParser(ctx, chain_program(blocks, tokens), "chain.mlir").parse_module()
    HLToCublasltPass().apply(ctx, module)
    return module


def measure(blocks: int, tokens: int, repeat: int) -> dict[str, float]:
    """Median phase times (ms) over `repeat` fresh runs, with the e-graph's size."""
    config = FuseConfig(FAMILIES, Limits(node_limit=10_000_000, iteration_limit=64))
    samples: dict[str, list[float]] = {phase: [] for phase in PHASES}
    row: dict[str, float] = {}
    for _ in range(repeat):
        module = lowered_chain(blocks, tokens)
        func = next(op for op in module.walk() if isinstance(op, FuncOp))
        block = func.body.blocks[0]
        calls_before = sum(isinstance(op, MatmulOp) for op in block.ops)
        ops_before = len(list(block.ops))
        outcome = fuse_block(block, config)
        for phase in PHASES:
            samples[phase].append(outcome.seconds[phase] * 1e3)
        row = {
            "nodes": outcome.nodes,
            "classes": outcome.classes,
            "iterations": outcome.iterations,
            "calls": calls_before,
            "ops_before": ops_before,
            "ops_after": len(list(block.ops)),
        }
    for phase in PHASES:
        row[phase] = statistics.median(samples[phase])
    row["total"] = sum(row[phase] for phase in PHASES)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--tokens", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    header = (
        f"{'blocks':>6} {'calls':>5} {'ops':>9} {'e-nodes':>8} {'classes':>8} {'iters':>5} "
        + " ".join(f"{phase + ' ms':>12}" for phase in PHASES)
        + f" {'total ms':>10} {'ms/block':>9}"
    )
    print(header)
    print("-" * len(header))
    for blocks in args.blocks:
        row = measure(blocks, args.tokens, args.repeat)
        ops = f"{row['ops_before']:.0f}->{row['ops_after']:.0f}"
        print(
            f"{blocks:>6} {row['calls']:>5.0f} {ops:>9} {row['nodes']:>8.0f} "
            f"{row['classes']:>8.0f} {row['iterations']:>5.0f} "
            + " ".join(f"{row[phase]:>12.1f}" for phase in PHASES)
            + f" {row['total']:>10.1f} {row['total'] / blocks:>9.2f}"
        )


if __name__ == "__main__":
    main()
