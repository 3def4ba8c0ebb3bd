"""Would an RMSNorm computed inside the GEMV that reads it pay? A micro-benchmark.

At one token a Llama layer runs its two RMSNorms as one-program kernels, each between
two GEMV launches: the norm moves 8 KiB, so its cost is latency on the serial chain
(wait for the previous kernel, load, reduce over the row, store, and the next kernel's
wait), not bytes. Folding the norm into the GEMV that reads it (a prologue: every GEMV
program recomputes the norm of the whole row from x and the norm's weight, in
registers, then sums its rows against it) removes that step, at the price of every
program reading x and the weight (L2 hits) and reducing over the row. Whether that
price is under the step it saves is a measurement (docs/perf-notes.md), so this times,
inside CUDA graphs with programmatic dependent launch on (as lumir replays), for a
decode layer's two norm + GEMV pairs (q+k+v: 3072 x 2048; gate+up: 16384 x 2048):

- `separate`: the norm kernel (one program, 4 warps, as lumir's fused kernels) and
  then lumir's GEMV kernel (`gemv_launch`, its own block shape);
- `prologue`: one kernel per pair, each program computing the norm and then its rows;
- `prologue, weight first`: the same, reading its block of the weight before the PDL
  wait (legal: no kernel writes a weight).

Each pair's output is also compared with the separate kernels' (the prologue's norm is
reduced with the GEMV's warps, so its last bits may differ; the largest difference is
printed). Weights rotate over copies larger than L2 so they stream from HBM.

    PYTHONPATH=$PWD python3 bench/norm_prologue_sweep.py [--repeat 50]
"""

from __future__ import annotations

import argparse

import torch
import triton
import triton.language as tl

from bench.timing import graph_time_us, rotating
from lumir.runtime.gemv import gemv_launch
from lumir.runtime.pdl import PdlMode
from lumir.runtime.pdl_kernel import wait_for_previous_launch

EPS = 1e-5
PAIRS = {"q+k+v": 3072, "gate+up": 16384}
"""The rows of each norm's reader in a Llama-1B decode layer (hidden 2048)."""


@triton.jit
def _norm_of_row(x_ptr, g_ptr, cols, k, eps):
    """bf16(g * bf16(x * rsqrt(mean(x^2) + eps))), as Llama's RMSNorm rounds it."""
    x = tl.load(x_ptr + cols, mask=cols < k, other=0.0).to(tl.float32)
    mean = tl.sum(x * x, axis=0) / k
    normed = (x * tl.rsqrt(mean + eps)).to(tl.bfloat16)
    g = tl.load(g_ptr + cols, mask=cols < k, other=0.0)
    return (g.to(tl.float32) * normed.to(tl.float32)).to(tl.bfloat16)


@triton.jit
def norm_kernel(x_ptr, g_ptr, h_ptr, k, eps, BLOCK: tl.constexpr, PDL: tl.constexpr):
    wait_for_previous_launch(PDL)
    cols = tl.arange(0, BLOCK)
    tl.store(h_ptr + cols, _norm_of_row(x_ptr, g_ptr, cols, k, eps), mask=cols < k)


@triton.jit
def norm_gemv_kernel(
    a_ptr,
    x_ptr,
    g_ptr,
    d_ptr,
    m,
    k,
    eps,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
    PDL: tl.constexpr,
    WEIGHT_FIRST: tl.constexpr,
):
    """d = A norm(x) for a K that is one block (the 1B shape's 2048)."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_K)
    row_ok = rows < m
    mask = row_ok[:, None] & (cols < k)[None, :]
    if WEIGHT_FIRST:
        a = tl.load(a_ptr + rows[:, None] * k + cols[None, :], mask=mask, other=0.0)
        wait_for_previous_launch(PDL)
    else:
        wait_for_previous_launch(PDL)
        a = tl.load(a_ptr + rows[:, None] * k + cols[None, :], mask=mask, other=0.0)
    h = _norm_of_row(x_ptr, g_ptr, cols, k, eps)
    lanes = tl.fma(
        a.to(tl.float32), h.to(tl.float32)[None, :], tl.zeros((BLOCK_M, BLOCK_K), tl.float32)
    )
    tl.store(d_ptr + rows, tl.sum(lanes, axis=1).to(d_ptr.dtype.element_ty), mask=row_ok)


PDL_ON = {"PDL": True, "launch_pdl": True}


def _pair_rows(m: int, repeat: int) -> list[str]:
    k = 2048
    copies = max(2, (256 << 20) // (m * k * 2))
    weights = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) / 45 for _ in range(copies)]
    x = torch.randn(k, device="cuda", dtype=torch.bfloat16)
    g = torch.rand(k, device="cuda", dtype=torch.bfloat16) + 0.5
    h = torch.empty(k, device="cuda", dtype=torch.bfloat16)
    d_separate = torch.empty(m, device="cuda", dtype=torch.bfloat16)
    d_fused = torch.empty(m, device="cuda", dtype=torch.bfloat16)
    pdl = PdlMode(dependent=True)
    gemvs = [gemv_launch(w, h, d_separate, pdl=pdl) for w in weights]

    def separate(i: int) -> None:
        norm_kernel[(1,)](x, g, h, k, EPS, BLOCK=k, num_warps=4, **PDL_ON)
        gemvs[i]()

    def prologue(i: int, block_m: int, warps: int, weight_first: bool) -> None:
        norm_gemv_kernel[(triton.cdiv(m, block_m),)](
            weights[i], x, g, d_fused, m, k, EPS, BLOCK_M=block_m, BLOCK_K=k,
            WEIGHT_FIRST=weight_first, num_warps=warps, **PDL_ON,
        )  # fmt: skip

    indices = list(range(copies))
    rows = [
        f"| {m} x {k} | separate | {graph_time_us(rotating(indices, separate), repeat):.2f} | |"
    ]
    separate(0)
    for block_m, warps in ((2, 2), (2, 4), (4, 4), (8, 4)):
        for weight_first in (False, True):
            step = rotating(indices, lambda i, c=(block_m, warps, weight_first): prologue(i, *c))
            us = graph_time_us(step, repeat)
            prologue(0, block_m, warps, weight_first)
            torch.cuda.synchronize()
            differs = (d_fused.float() - d_separate.float()).abs().max().item()
            name = f"prologue {block_m} rows, {warps} warps" + (
                ", weight first" if weight_first else ""
            )
            rows.append(f"| {m} x {k} | {name} | {us:.2f} | {differs:.3g} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    torch.manual_seed(0)
    print("| reader | launches | µs per pair | largest difference from separate |")
    print("| --- | --- | --- | --- |")
    for m in PAIRS.values():
        for row in _pair_rows(m, args.repeat):
            print(row, flush=True)


if __name__ == "__main__":
    main()
