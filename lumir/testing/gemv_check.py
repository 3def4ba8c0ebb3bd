"""Check lumir's GEMV kernel against the reference GEMM, on CPU, under TRITON_INTERPRET=1.

A plan with `algorithm = "gemv"` runs on CUDA as `lumir.runtime.gemv.GemvPlan` and on
the CPU as the reference GEMM, so without this check CI would never run the kernel.
Triton's interpreter runs it on CPU tensors; the variable must be set before triton is
first imported, so the check runs in a child process:
`python -m lumir.testing.gemv_check FILE.mlir` lowers the file's hl function with
lumir-pipeline, and for each plan the lowering gave `algorithm = "gemv"` fills its
operand buffers with seeded random values, runs `GemvPlan` and `ReferenceGemmPlan`
over the same bytes, and prints one JSON line per plan (its name and the largest
absolute difference of D). The exit status is 0 when the file has at least one GEMV
plan and every D agrees within `--atol` + `--rtol` times the reference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from lumir.cublaslt_enums import DataType, Operand
from lumir.dialects.cublaslt_rt import PlanOp
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import matrix_layout
from lumir.parsing import parse_module_text
from lumir.runtime.buffers import data_type_dtype
from lumir.runtime.layouts import element_offsets
from lumir.runtime.reference_gemm import ReferenceGemmPlan
from lumir.testing.programs import compile_text


def gemv_plans(text: str) -> list[PlanOp]:
    """The plans of `text` (hl, through lumir-pipeline) that run as the GEMV."""
    module = parse_module_text(compile_text(text, fuse_kernels=False), "<gemv_check>")
    return [op for op in module.ops if isinstance(op, PlanOp) and op.algorithm.data == "gemv"]


def _reach(desc: MatmulDescriptor, operand: Operand) -> int:
    """Elements of the operand's type its layout reaches."""
    return int(element_offsets(matrix_layout(desc, operand)).max()) + 1


def _buffer(desc: MatmulDescriptor, operand: Operand, generator: torch.Generator) -> torch.Tensor:
    """A flat byte buffer exactly as long as the operand's layout reaches, random inside."""
    dtype = data_type_dtype(matrix_layout(desc, operand).dtype)
    values = (0.5 * torch.randn(_reach(desc, operand), generator=generator)).to(dtype)
    return values.view(torch.uint8).clone()


def check_plan(plan: PlanOp, seed: int) -> tuple[float, bool]:
    """Largest |D_gemv - D_reference| over one seeded set of operand buffers, and
    whether every element is within `tolerance` of the reference."""
    from lumir.runtime.gemv import GemvPlan

    desc = plan.descriptor()
    generator = torch.Generator().manual_seed(seed)
    a, b = (_buffer(desc, x, generator) for x in (Operand.A, Operand.B))
    c = _buffer(desc, Operand.C, generator) if desc.beta != 0.0 else None
    bias = None
    bias_dtype = plan.bias_data_type()
    if desc.epilogue.reads_bias:
        dtype = data_type_dtype(bias_dtype or desc.d_dtype)
        bias = (0.5 * torch.randn(desc.m, generator=generator)).to(dtype).view(torch.uint8)
    d_size = _reach(desc, Operand.D) * desc.d_dtype.byte_width
    outputs = []
    for make in (GemvPlan, ReferenceGemmPlan):
        d = torch.zeros(d_size, dtype=torch.uint8)
        make(desc, a, b, d, c=c, bias=bias, bias_dtype=bias_dtype).run()
        outputs.append(d.view(data_type_dtype(desc.d_dtype)).double())
    got, want = outputs
    atol, rtol = tolerance(desc.d_dtype)
    return float((got - want).abs().max()), torch.allclose(got, want, rtol=rtol, atol=atol)


def tolerance(d_dtype: DataType) -> tuple[float, float]:
    """(atol, rtol) per element: the GEMV sums in f32 in another order than the f64
    reference, then rounds once to D's type, so the two may differ by one rounding step
    of that type (bf16: 2^-8 relative) plus the f32 summation error."""
    if d_dtype is DataType.F32:
        return 1e-4, 1e-5
    if d_dtype is DataType.F16:
        return 2e-3, 2e-3
    return 1e-2, 8e-3


def run_in_interpreter(path: Path, timeout: float = 300.0) -> subprocess.CompletedProcess[str]:
    """Run this check on `path` in a child process with TRITON_INTERPRET=1."""
    environment = {**os.environ, "TRITON_INTERPRET": "1"}
    return subprocess.run(
        [sys.executable, "-m", "lumir.testing.gemv_check", str(path)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lumir.testing.gemv_check")
    parser.add_argument("file", type=Path, help="an .mlir file with one hl function")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("gemv_check: set TRITON_INTERPRET=1 (no GPU is used)", file=sys.stderr)
        return 2
    plans = gemv_plans(args.file.read_text())
    if not plans:
        print(f"gemv_check: {args.file}: no plan was lowered to the GEMV", file=sys.stderr)
        return 1
    failed = False
    for plan in plans:
        error, ok = check_plan(plan, args.seed)
        failed |= not ok
        print(json.dumps({"plan": plan.sym_name.data, "max_abs_diff": error, "ok": ok}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
