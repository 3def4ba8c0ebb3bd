"""Each distinct generated fused kernel of a Llama-1B decoder layer, timed alone.

    PYTHONPATH=$PWD python3 -m bench.fused_kernels_bench              # seq 1, 128, 1024
    PYTHONPATH=$PWD python3 -m bench.fused_kernels_bench --compare    # and the one-row launch
    PYTHONPATH=$PWD python3 -m bench.fused_kernels_bench --seqs 1024 --repeat 50

The fused kernels of a forward (RMSNorm, rotary, SiLU·mul: `lumir_fused` in a profile)
are memory-bound, so each should move its bytes at the copy rate. For each seq this
compiles one decoder layer (`bench.workloads.llama_layer_hl`, the 1B shape) through
lumir-pipeline, takes its `cublaslt_rt.fused_launch` bodies and times each distinct
kernel (same text and launch: a layer's two RMSNorms are one) alone, on CUDA:
`--repeat` launches captured in one CUDA graph over enough copies of the kernel's
buffers that the graph streams them from HBM, not from the 60 MB L2 (in a forward the
input was often just written by a GEMM and may still be in L2: these times are the
pessimistic side), the median of `--replays` replays divided by the launches. Its
roofline is the bytes it must move (each input read once, each output written once) at
4.3 TB/s, the H200's measured copy rate.

`--compare` also times every kernel launched one row per program, as all of them were
before `lumir.runtime.fused_tiling` (`generate(body, tile=False)`), on the same buffers,
and says whether the two launches wrote the same bytes (they must: the tiling changes no
arithmetic). Without a GPU it prints the kernels, launches and rooflines, with no times.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import torch
from xdsl.ir import Block

from bench.timing import graph_time_us, rotating
from bench.workloads import LLAMA_SHAPES, llama_layer_hl
from lumir.dialects import hl
from lumir.runtime.buffers import shaped_type_parts
from lumir.runtime.fused_tiling import LaunchShape
from lumir.runtime.triton_codegen import generate
from lumir.testing.fused_check import fused_bodies
from lumir.testing.programs import compile_text

COPY_RATE = 4.3e12
"""Bytes per second the H200 copies at (docs/perf-notes.md): the roofline's rate."""

STREAMED_BYTES = 256 << 20
"""Bytes of distinct buffers a timing graph cycles through: 4x the H200's 60 MB L2."""

MAX_COPIES = 64
"""The most buffer copies (and so the fewest launches) a graph holds: tiny kernels are
latency-bound, whether their bytes sit in L2 or not."""


@dataclass(frozen=True)
class Kernel:
    """One distinct fused kernel of the layer and what it must move."""

    body: Block
    per_layer: int
    launch: LaunchShape
    read: int
    """Bytes of its inputs (each read once)."""
    written: int
    """Bytes of its outputs."""

    @property
    def description(self) -> str:
        """The body's op names in order (constants left out)."""
        names = [
            op.name.removeprefix("hl.")
            for op in self.body.ops
            if not isinstance(op, hl.ConstantOp | hl.YieldOp)
        ]
        return "·".join(names)

    @property
    def roofline_us(self) -> float:
        return (self.read + self.written) / COPY_RATE * 1e6


def _bytes(types: list[object]) -> int:
    total = 0
    for typ in types:
        shape, dtype = shaped_type_parts(typ)
        total += torch.Size(shape).numel() * dtype.itemsize
    return total


def layer_kernels(seq: int, shape: str) -> list[Kernel]:
    """The distinct fused kernels of one Llama layer of `shape` at `seq`, in program order."""
    text = compile_text(llama_layer_hl(seq, LLAMA_SHAPES[shape]), True)
    kernels: dict[tuple[str, LaunchShape], Kernel] = {}
    for body in fused_bodies(text):
        source = generate(body)
        key = (source.text, source.launch)
        if key in kernels:
            seen = kernels[key]
            kernels[key] = Kernel(body, seen.per_layer + 1, seen.launch, seen.read, seen.written)
            continue
        outputs = [value.type for value in body.last_op.values]  # type: ignore[union-attr]
        read, written = _bytes([arg.type for arg in body.args]), _bytes(outputs)
        kernels[key] = Kernel(body, 1, source.launch, read, written)
    return list(kernels.values())


def describe_launch(launch: LaunchShape) -> str:
    """`ROWSxBLOCK tile` or `one row of BLOCK`, the grid and the warps."""
    grid = "x".join(str(size) for size in launch.grid)
    if launch.tiled:
        program = f"{launch.rows_per_program}x{launch.block} tile"
    else:
        program = f"one row of {launch.block}"
    warps = f"{launch.num_warps} warp" + ("s" if launch.num_warps > 1 else "")
    return f"{program}, grid {grid}, {warps}"


@dataclass(frozen=True)
class Buffers:
    """Copies of one kernel's inputs (random) and outputs on the device."""

    copies: list[tuple[list[torch.Tensor], list[torch.Tensor]]]

    @staticmethod
    def make(kernel: Kernel, device: torch.device) -> Buffers:
        moved = kernel.read + kernel.written
        count = max(1, min(MAX_COPIES, -(-STREAMED_BYTES // max(moved, 1))))
        inputs_types = [shaped_type_parts(arg.type) for arg in kernel.body.args]
        output_types = [
            shaped_type_parts(value.type)
            for value in kernel.body.last_op.values  # type: ignore[union-attr]
        ]
        copies = []
        for _ in range(count):
            inputs = [torch.randn(s, device=device).to(d) for s, d in inputs_types]
            outputs = [torch.empty(s, device=device, dtype=d) for s, d in output_types]
            copies.append((inputs, outputs))
        return Buffers(copies)


def time_kernel(kernel: Kernel, buffers: Buffers, tile: bool, repeat: int, replays: int) -> float:
    """µs per launch of `kernel` (tiled, or one row per program) over its buffer copies."""
    from lumir.runtime.fused_kernels import source_launch

    source = generate(kernel.body, tile=tile)
    launches = [source_launch(source, inputs, outputs) for inputs, outputs in buffers.copies]
    graph_launches = max(repeat, len(launches))
    return graph_time_us(rotating(launches, lambda launch: launch()), graph_launches, replays)


def same_bytes(kernel: Kernel, buffers: Buffers) -> bool:
    """Whether the tiled and the one-row launch write the same bytes on the same inputs."""
    from lumir.runtime.fused_kernels import run_source

    inputs, outputs = buffers.copies[0]
    written = []
    for tile in (True, False):
        fresh = [torch.full_like(output, float("nan")) for output in outputs]
        run_source(generate(kernel.body, tile=tile), inputs, fresh)
        written.append([output.contiguous().view(torch.uint8) for output in fresh])
    torch.cuda.synchronize()
    return all(torch.equal(a, b) for a, b in zip(*written, strict=True))


def _row(kernel: Kernel, us: float | None) -> list[str]:
    moved = kernel.read + kernel.written
    if us is None:
        timed = ["—", "—", "—"]
    else:
        timed = [f"{us:.2f}", f"{moved / us / 1e3:.0f}", f"{100 * kernel.roofline_us / us:.0f}%"]
    return [
        kernel.description,
        str(kernel.per_layer),
        f"{kernel.launch.rows} x {kernel.launch.hidden}",
        f"{moved / 1e6:.2f}",
        f"{kernel.roofline_us:.2f}",
        describe_launch(kernel.launch),
        *timed,
    ]


def report(seq: int, shape: str, device: torch.device, args: argparse.Namespace) -> None:
    """One markdown table: the layer's distinct fused kernels at `seq`."""
    kernels = layer_kernels(seq, shape)
    header = [
        "kernel", "per layer", "rows x width", "MB moved", "roofline µs", "launch", "µs",
        "GB/s", "% of roofline",
    ]  # fmt: skip
    if args.compare:
        header += ["one-row µs", "one-row % of roofline", "speed-up", "same bytes"]
    launches = sum(kernel.per_layer for kernel in kernels)
    print(f"\n### seq {seq}: {launches} fused launches per layer, {len(kernels)} distinct\n")
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    totals = [0.0, 0.0, 0.0]  # roofline, tiled, one-row µs per layer
    for kernel in kernels:
        us = old = None
        if device.type == "cuda":
            buffers = Buffers.make(kernel, device)
            us = time_kernel(kernel, buffers, True, args.repeat, args.replays)
        row = _row(kernel, us)
        if args.compare:
            if us is not None:
                old = time_kernel(kernel, buffers, False, args.repeat, args.replays)
                same = "yes" if same_bytes(kernel, buffers) else "**NO**"
                row += [f"{old:.2f}", f"{100 * kernel.roofline_us / old:.0f}%"]
                row += [f"{old / us:.2f}x", same]
            else:
                row += ["—"] * 4
        print("| " + " | ".join(row) + " |", flush=True)
        totals[0] += kernel.roofline_us * kernel.per_layer
        totals[1] += (us or 0.0) * kernel.per_layer
        totals[2] += (old or 0.0) * kernel.per_layer
    if device.type == "cuda":
        line = f"\nper layer: {totals[1]:.1f} µs against a roofline of {totals[0]:.1f} µs"
        if args.compare:
            line += f" (one row per program: {totals[2]:.1f} µs)"
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.fused_kernels_bench")
    parser.add_argument("--seqs", default="1,128,1024", help="comma-separated sequence lengths")
    parser.add_argument("--shape", default="1b", choices=sorted(LLAMA_SHAPES))
    parser.add_argument("--repeat", type=int, default=20, help="launches per CUDA graph")
    parser.add_argument("--replays", type=int, default=15, help="timed replays (median)")
    parser.add_argument("--compare", action="store_true", help="also one row per program")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    torch.manual_seed(0)
    print(f"fused kernels of one Llama-{args.shape} layer, device {device}")
    if device.type != "cuda":
        print("(no GPU: launches and rooflines only)")
    for seq in (int(s) for s in args.seqs.split(",")):
        report(seq, args.shape, device, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
