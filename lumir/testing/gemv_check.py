"""Check lumir's GEMV kernel against the reference GEMM, on CPU, under TRITON_INTERPRET=1.

A plan with `algorithm = "gemv"` runs on CUDA as `lumir.runtime.gemv.GemvPlan` and on
the CPU as the reference GEMM, so without this check CI would never run the kernel.
Triton's interpreter runs it on CPU tensors; the variable must be set before triton is
first imported, so the check runs in a child process:
`python -m lumir.testing.gemv_check FILE.mlir` lowers the file's hl function with
lumir-pipeline, and for each plan the lowering gave `algorithm = "gemv"` fills its
operand buffers with seeded random values, runs `GemvPlan` and `ReferenceGemmPlan`
over the same bytes, and prints one JSON line per plan (its name and the largest
absolute difference of D, and whether `GemvPlan.run_into` writes the bytes `run`
does into another buffer, as a fresh output does). Then, for each
`cublaslt_rt.matmul_group` group-gemv made, it runs the members as one
`GroupedGemvPlan` launch over one shared B buffer, each member as its own `GemvPlan`
and as the reference, and prints one JSON line per group:
whether every member's D is bit for bit its own launch's, and the largest difference
from the reference. Groups with an epilogue or a prologue get one line each as well:
whether their one generated kernel writes the bytes of the separate launches it
replaces. The exit status is 0 when the file has at least one GEMV plan and
every D agrees with the reference within `tolerance` (and every grouped D is its own
launch's exactly).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import torch

from lumir.cublaslt_enums import DataType, Operand
from lumir.dialects.cublaslt_rt import MatmulGroupOp, PlanOp, epilogue_sources
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import matrix_layout
from lumir.parsing import parse_module_text
from lumir.runtime.buffers import data_type_dtype, shaped_type_parts
from lumir.runtime.layouts import element_offsets
from lumir.runtime.plans import MatmulPlan
from lumir.runtime.reference_gemm import ReferenceGemmPlan
from lumir.testing.interpreter_child import run_check
from lumir.testing.programs import compile_text


def gemv_plans(text: str) -> list[PlanOp]:
    """The plans of `text` (hl, through lumir-pipeline) that run as the GEMV."""
    module = parse_module_text(compile_text(text, fuse_kernels=False), "<gemv_check>")
    return [op for op in module.ops if isinstance(op, PlanOp) and op.algorithm.data == "gemv"]


def gemv_groups(text: str) -> list[MatmulGroupOp]:
    """The grouped GEMV launches of `text` (hl, through lumir-pipeline), in order."""
    module = parse_module_text(compile_text(text, fuse_kernels=False), "<gemv_check>")
    return [op for op in module.walk() if isinstance(op, MatmulGroupOp)]


def _reach(desc: MatmulDescriptor, operand: Operand) -> int:
    """Elements of the operand's type its layout reaches."""
    return int(element_offsets(matrix_layout(desc, operand)).max()) + 1


def _buffer(desc: MatmulDescriptor, operand: Operand, generator: torch.Generator) -> torch.Tensor:
    """A flat byte buffer exactly as long as the operand's layout reaches, random inside."""
    dtype = data_type_dtype(matrix_layout(desc, operand).dtype)
    values = (0.5 * torch.randn(_reach(desc, operand), generator=generator)).to(dtype)
    return values.view(torch.uint8).clone()


PlanClass = Callable[..., MatmulPlan]
"""GemvPlan or ReferenceGemmPlan: built from a descriptor and buffers alike."""


@dataclass(frozen=True)
class _Call:
    """One plan's call on random operand buffers; `run(make)` computes D with the plan
    class `make` (GemvPlan, ReferenceGemmPlan) into a fresh buffer."""

    plan: PlanOp
    a: torch.Tensor
    b: torch.Tensor
    c: torch.Tensor | None
    bias: torch.Tensor | None

    @classmethod
    def random(
        cls, plan: PlanOp, generator: torch.Generator, b: torch.Tensor | None = None
    ) -> _Call:
        desc = plan.descriptor()
        a = _buffer(desc, Operand.A, generator)
        b = _buffer(desc, Operand.B, generator) if b is None else b
        c = _buffer(desc, Operand.C, generator) if desc.beta != 0.0 else None
        bias = None
        if desc.epilogue.reads_bias:
            dtype = data_type_dtype(plan.bias_data_type() or desc.d_dtype)
            bias = (0.5 * torch.randn(desc.m, generator=generator)).to(dtype).view(torch.uint8)
        return cls(plan, a, b, c, bias)

    def new_d(self) -> torch.Tensor:
        desc = self.plan.descriptor()
        return torch.zeros(_reach(desc, Operand.D) * desc.d_dtype.byte_width, dtype=torch.uint8)

    def build(self, make: PlanClass, d: torch.Tensor) -> MatmulPlan:
        desc, bias_dtype = self.plan.descriptor(), self.plan.bias_data_type()
        return make(desc, self.a, self.b, d, c=self.c, bias=self.bias, bias_dtype=bias_dtype)

    def values(self, d: torch.Tensor) -> torch.Tensor:
        return d.view(data_type_dtype(self.plan.descriptor().d_dtype)).double()

    def run(self, make: PlanClass) -> torch.Tensor:
        d = self.new_d()
        self.build(make, d).run()
        return self.values(d)


def _within(got: torch.Tensor, want: torch.Tensor, d_dtype: DataType) -> tuple[float, bool]:
    atol, rtol = tolerance(d_dtype)
    return float((got - want).abs().max()), torch.allclose(got, want, rtol=rtol, atol=atol)


def check_plan(plan: PlanOp, seed: int) -> tuple[float, bool]:
    """Largest |D_gemv - D_reference| over one seeded set of operand buffers, and
    whether every element is within `tolerance` of the reference."""
    from lumir.runtime.gemv import GemvPlan

    call = _Call.random(plan, torch.Generator().manual_seed(seed))
    return _within(call.run(GemvPlan), call.run(ReferenceGemmPlan), plan.descriptor().d_dtype)


def check_run_into(plan: PlanOp, seed: int) -> bool:
    """Whether a `GemvPlan` whose D was unbound writes, through `run_into`, the bytes a
    plan writes through `run` (a fresh output's path, `lumir.runtime.fresh_outputs`)."""
    from lumir.runtime.gemv import GemvPlan

    call = _Call.random(plan, torch.Generator().manual_seed(seed))
    bound = call.new_d()
    call.build(GemvPlan, bound).run()
    unbound = call.build(GemvPlan, call.new_d())
    unbound.unbind_d()  # type: ignore[attr-defined]
    fresh = torch.full_like(bound, 0xFF)
    unbound.run_into(fresh)  # type: ignore[attr-defined]
    return torch.equal(fresh, bound)


def check_prefetch(plan: PlanOp, seed: int) -> bool:
    """Whether the GEMV that reads its first block of A before the PDL wait (the peeled
    loop of `lumir.runtime.gemv_kernel`) writes the bytes of the one that does not."""
    from lumir.runtime.gemv import GemvPlan
    from lumir.runtime.pdl import PdlMode

    call = _Call.random(plan, torch.Generator().manual_seed(seed))
    prefetching = functools.partial(GemvPlan, pdl=PdlMode(prefetch_weight=True))
    return torch.equal(call.run(prefetching), call.run(GemvPlan))


def check_group(group: MatmulGroupOp, seed: int) -> tuple[bool, float, bool]:
    """Whether each member's D from one grouped launch is bit for bit its own GEMV
    launch's, the largest |D_grouped - D_reference| over the members, and whether every
    element is within `tolerance` of the reference."""
    from lumir.runtime.gemv import GemvPlan, GroupedGemvPlan

    generator = torch.Generator().manual_seed(seed)
    plans = [member.plan_op() for member in group.members()]
    assert all(plan is not None for plan in plans)
    shared = _buffer(plans[0].descriptor(), Operand.B, generator)  # type: ignore[union-attr]
    calls = [_Call.random(plan, generator, b=shared) for plan in plans]  # type: ignore[arg-type]
    outputs = [call.new_d() for call in calls]
    members = [call.build(GemvPlan, d) for call, d in zip(calls, outputs, strict=True)]
    GroupedGemvPlan([member.operands for member in members]).run()
    identical, worst, ok = True, 0.0, True
    for call, d in zip(calls, outputs, strict=True):
        grouped = call.values(d)
        identical &= torch.equal(grouped, call.run(GemvPlan))
        error, close = _within(grouped, call.run(ReferenceGemmPlan), call.plan.descriptor().d_dtype)
        worst, ok = max(worst, error), ok and close
    return identical, worst, ok


def epilogue_groups(text: str) -> list[MatmulGroupOp]:
    """The GEMV groups of `text` (hl, through the whole lumir-pipeline, fused kernels on)
    that gemv-epilogue gave an epilogue, in order."""
    module = parse_module_text(compile_text(text, fuse_kernels=True), "<gemv_check>")
    return [op for op in module.walk() if isinstance(op, MatmulGroupOp) and op.epilogue()]


def check_epilogue(group: MatmulGroupOp, seed: int) -> bool:
    """Whether one launch of the group's epilogue kernel (`GemvEpiloguePlan`) writes the
    bytes that the group's grouped GEMV launch followed by its fused kernel write."""
    from lumir.runtime.fused_kernels import run_source
    from lumir.runtime.gemv import GemvPlan, GroupedGemvPlan
    from lumir.runtime.gemv_epilogue import GemvEpiloguePlan
    from lumir.runtime.triton_codegen import generate

    epilogue = group.epilogue()
    assert epilogue is not None
    generator = torch.Generator().manual_seed(seed)
    plans = [member.plan_op() for member in group.members()]
    shared = _buffer(plans[0].descriptor(), Operand.B, generator)  # type: ignore[union-attr]
    calls = [_Call.random(plan, generator, b=shared) for plan in plans]  # type: ignore[arg-type]
    ds = [call.new_d() for call in calls]
    members = [call.build(GemvPlan, d) for call, d in zip(calls, ds, strict=True)]
    GroupedGemvPlan([member.operands for member in members]).run()  # type: ignore[attr-defined]
    members_d = [member.operands.d for member in members]  # type: ignore[attr-defined]
    sources = cast(list[int], epilogue_sources(group, epilogue))  # verified: no None
    inputs = [
        members_d[source].reshape(shaped_type_parts(value.type)[0])
        for source, value in zip(sources, epilogue.inputs, strict=True)
    ]

    def new_outputs() -> list[torch.Tensor]:
        parts = [shaped_type_parts(value.type) for value in epilogue.outputs]
        return [torch.full(shape, float("nan"), dtype=dtype) for shape, dtype in parts]

    two_launches, one_launch = new_outputs(), new_outputs()
    run_source(generate(epilogue.body.block), inputs, two_launches)
    operands = [member.operands for member in members]  # type: ignore[attr-defined]
    GemvEpiloguePlan(operands, epilogue.body.block, sources, one_launch).run()
    return all(
        torch.equal(a.view(torch.uint8), b.view(torch.uint8))
        for a, b in zip(one_launch, two_launches, strict=True)
    )


def prologue_groups(text: str) -> list[MatmulGroupOp]:
    """The GEMV groups of `text` (hl, through the whole lumir-pipeline, fused kernels and
    gemv-prologue on) that gemv-prologue gave a prologue, in order."""
    compiled = compile_text(text, fuse_kernels=True, gemv_prologue=True)
    module = parse_module_text(compiled, "<gemv_check>")
    return [op for op in module.walk() if isinstance(op, MatmulGroupOp) and op.prologue()]


def check_prologue(group: MatmulGroupOp, seed: int) -> bool:
    """Whether one launch of the group's kernel with its prologue (`GemvProloguePlan`)
    writes the bytes that the prologue's fused kernel, then the group's grouped GEMV
    launch (then its epilogue's fused kernel, if any) write. The members' B is filled
    with NaN before the one launch: it must not read what it does not write."""
    from lumir.runtime.fused_kernels import run_source
    from lumir.runtime.gemv import GemvPlan, GroupedGemvPlan
    from lumir.runtime.gemv_prologue import GemvProloguePlan
    from lumir.runtime.triton_codegen import generate

    prologue, epilogue = group.prologue(), group.epilogue()
    assert prologue is not None
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for value in prologue.inputs:
        shape, dtype = shaped_type_parts(value.type)
        inputs.append(torch.randn(shape, generator=generator).to(dtype))
    shape, dtype = shaped_type_parts(prologue.outputs[0].type)
    row = torch.full(shape, float("nan"), dtype=dtype)
    run_source(generate(prologue.body.block), inputs, [row])
    shared = row.reshape(-1).view(torch.uint8)
    plans = [member.plan_op() for member in group.members()]
    calls = [_Call.random(plan, generator, b=shared) for plan in plans]  # type: ignore[arg-type]
    ds = [call.new_d() for call in calls]
    members = [call.build(GemvPlan, d) for call, d in zip(calls, ds, strict=True)]
    operands = [member.operands for member in members]  # type: ignore[attr-defined]
    GroupedGemvPlan(operands).run()
    results: list[torch.Tensor] = ds
    sources: list[int] = []
    if epilogue is not None:
        sources = cast(list[int], epilogue_sources(group, epilogue))  # verified: no None
        parts = [shaped_type_parts(value.type) for value in epilogue.outputs]
        results = [torch.full(shape, float("nan"), dtype=dtype) for shape, dtype in parts]
        members_d = [member.d for member in operands]
        body_inputs = [
            members_d[source].reshape(shaped_type_parts(value.type)[0])
            for source, value in zip(sources, epilogue.inputs, strict=True)
        ]
        run_source(generate(epilogue.body.block), body_inputs, results)
    want = [result.clone() for result in results]
    for result in [*results, *ds]:
        result.view(torch.uint8).fill_(0xFF)
    shared.fill_(0xFF)
    body = None if epilogue is None else epilogue.body.block
    GemvProloguePlan(operands, prologue.body.block, inputs, body, sources, results).run()
    return all(
        torch.equal(a.view(torch.uint8), b.view(torch.uint8))
        for a, b in zip(results, want, strict=True)
    )


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
    return run_check("lumir.testing.gemv_check", str(path), timeout=timeout)


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
        into = check_run_into(plan, args.seed)
        prefetch = check_prefetch(plan, args.seed)
        failed |= not (ok and into and prefetch)
        line = {
            "plan": plan.sym_name.data,
            "max_abs_diff": error,
            "ok": ok,
            "into": into,
            "prefetch": prefetch,
        }
        print(json.dumps(line))
    for group in gemv_groups(args.file.read_text()):
        identical, error, ok = check_group(group, args.seed)
        failed |= not (identical and ok)
        members = [str(member.plan) for member in group.members()]
        line = {"group": members, "bit_identical": identical, "max_abs_diff": error, "ok": ok}
        print(json.dumps(line))
    for group in epilogue_groups(args.file.read_text()):
        identical = check_epilogue(group, args.seed)
        failed |= not identical
        members = [str(member.plan) for member in group.members()]
        print(json.dumps({"epilogue": members, "bit_identical": identical}))
    for group in prologue_groups(args.file.read_text()):
        identical = check_prologue(group, args.seed)
        failed |= not identical
        members = [str(member.plan) for member in group.members()]
        print(json.dumps({"prologue": members, "bit_identical": identical}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
