"""GPT-2's lm_head (50257 outputs a row) through cuBLASLt: as it is or as a padded
problem (`lumir.runtime.padded_output`), beside torch's `F.linear`.

    PYTHONPATH=$PWD python3 -m bench.padded_gemm [--rows 1024]

Prints µs per call (CUDA graph of 10 calls, median of 15 replays) and the kernels each
variant launches (torch's profiler), so the effect of padding m on cuBLASLt's kernel
choice is visible.
"""

from __future__ import annotations

import argparse
import functools

import torch
import torch.nn.functional as F

from bench.timing import graph_time_us
from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Operand, Order, Transpose
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.runtime import padded_output
from lumir.runtime.cuda_cublaslt import CublasLtMatmulPlan, operand_bytes


def _descriptor(rows: int, k: int, vocab: int) -> MatmulDescriptor:
    return MatmulDescriptor(
        transa=Transpose.T, transb=Transpose.N,
        order_a=Order.COL, order_b=Order.COL, order_c=Order.COL, order_d=Order.COL,
        m=vocab, n=rows, k=k, lda=k, ldb=k, ldc=vocab, ldd=vocab,
        batch_count=1, stride_a=0, stride_b=0, stride_c=0, stride_d=0,
        a_dtype=DataType.BF16, b_dtype=DataType.BF16, c_dtype=DataType.BF16,
        d_dtype=DataType.BF16, compute_type=ComputeType.COMPUTE_32F,
        scale_type=DataType.F32, alpha=1.0, beta=0.0, epilogue=Epilogue.DEFAULT,
    )  # fmt: skip


def _kernels(call) -> str:
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return "; ".join(name[:70] for name in names)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.padded_gemm")
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--vocab", type=int, default=50257)
    args = parser.parse_args()
    x = torch.randn(args.rows, args.k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(args.vocab, args.k, device="cuda", dtype=torch.bfloat16) * args.k**-0.5
    desc = _descriptor(args.rows, args.k, args.vocab)
    want = F.linear(x, w)
    variants = {"torch F.linear": functools.partial(F.linear, x, w)}
    plans = []
    for name, minimum in (("lumir, as it is", 1 << 62), ("lumir, padded problem", None)):
        if minimum is not None:
            padded_output.MIN_ELEMENTS, saved = minimum, padded_output.MIN_ELEMENTS
        d = torch.empty(operand_bytes(desc, Operand.D), dtype=torch.uint8, device="cuda")
        a = w.view(-1).view(torch.uint8)
        b = x.view(-1).view(torch.uint8)
        plan = CublasLtMatmulPlan(desc, a, b, d)
        if minimum is not None:
            padded_output.MIN_ELEMENTS = saved
        plans.append(plan)
        plan.run()
        got = d.view(torch.bfloat16).view(args.rows, args.vocab)
        error = (got.float() - want.float()).abs().max().item()
        print(f"{name}: padded {plan.padded is not None}, max |x - torch| {error:.4f}")
        variants[name] = plan.run
    for name, call in variants.items():
        us = graph_time_us(call, 10)
        print(f"| {name} | {us:.1f} µs | {_kernels(call)} |")


if __name__ == "__main__":
    main()
