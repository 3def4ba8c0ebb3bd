"""Find the first launch where the CUDA executor leaves a different result from the CPU one.

A whole-program differential test (`programs.assert_cuda_matches_cpu`) says *that* CUDA and
the reference executor disagree; this says *where*. Both programs are loaded from the same
lowered function, so their buffers are keyed by the same SSA values. They get the same
inputs, run launch by launch, and after each launch the values it wrote are compared; the
CPU's results are then copied into the CUDA buffers, so every launch is judged on
identical inputs and one wrong kernel does not smear into all that follow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from xdsl.ir import Operation, SSAValue

from lumir.dialects.cublaslt_rt import (
    FusedGroupOp,
    FusedLaunchOp,
    LaunchGroupOp,
    LaunchOp,
    MatmulGroupOp,
    MatmulOp,
)
from lumir.runtime.buffers import shaped_type_parts, typed_view
from lumir.runtime.interpreter import find_function
from lumir.runtime.program import load_with_buffers


@dataclass(frozen=True)
class LaunchDifference:
    """One launch's largest disagreement between the two executors."""

    index: int
    op: str
    max_abs: float
    mismatched: int
    elements: int


def _label(op: Operation) -> str:
    if isinstance(op, LaunchOp):
        return f"launch {op.kernel.data}"
    if isinstance(op, FusedLaunchOp):
        return f"fused ({len(op.body.block.ops)} ops)"
    if isinstance(op, MatmulGroupOp):
        members = ", ".join(str(member.plan) for member in op.members())
        prologue = "" if op.prologue() is None else "prologue + "
        return f"matmul_group {prologue}{members}{'' if op.epilogue() is None else ' + epilogue'}"
    if isinstance(op, LaunchGroupOp):
        return f"launch_group {op.kernel()} x{len(op.members())}"
    if isinstance(op, FusedGroupOp):
        return f"fused_group x{len(op.members())}"
    return f"matmul {op.plan}"


def _written(op: Operation) -> list[SSAValue]:
    if isinstance(op, MatmulOp):
        return [op.d]
    if isinstance(op, MatmulGroupOp):
        epilogue = op.epilogue()  # with one, CUDA leaves the members' D unwritten
        return [member.d for member in op.members()] if epilogue is None else epilogue.outputs
    if isinstance(op, LaunchOp):
        return [op.output]
    if isinstance(op, LaunchGroupOp):
        return [member.output for member in op.members()]
    if isinstance(op, FusedGroupOp):
        return [value for member in op.members() for value in member.outputs]
    return list(op.outputs)


def _typed(buffers: Mapping[SSAValue, torch.Tensor], value: SSAValue) -> torch.Tensor:
    shape, dtype = shaped_type_parts(value.type)
    return typed_view(buffers[value], shape, dtype)


load_under_test = load_with_buffers
"""How the device under test is loaded (a test swaps in one whose matmuls are wrong)."""


def launch_differences(
    text: str,
    inputs: Sequence[torch.Tensor],
    tolerance: float = 2.0**-6,
    device: str = "cuda",
    isolate: bool = True,
) -> list[LaunchDifference]:
    """Each launch of `text`'s function (lowered IR) compared between the CPU executor and
    `device` ("cpu" compares the reference executor with itself: every row is zero).

    `isolate=False` leaves each executor's own results in place, so differences compound
    as they do in a whole run (the rows then show where they grow)."""
    from lumir.parsing import parse_module_text

    module = parse_module_text(text, "<launch-diff>")
    func = find_function(module)
    cpu, cpu_buffers = load_with_buffers(module, "cpu")
    gpu, gpu_buffers = load_under_test(module, device)
    target = gpu.device
    for given, argument in zip(inputs, func.body.block.args, strict=True):
        _typed(cpu_buffers, argument).copy_(given)
        _typed(gpu_buffers, argument).copy_(given)
    launched = (MatmulOp, MatmulGroupOp, LaunchOp, LaunchGroupOp, FusedLaunchOp, FusedGroupOp)
    ops = [op for op in func.body.block.ops if isinstance(op, launched)]
    report = []
    for index, (op, on_cpu, on_gpu) in enumerate(zip(ops, cpu.launches, gpu.launches, strict=True)):
        on_cpu()
        on_gpu()
        if target.type == "cuda":
            torch.cuda.synchronize()
        worst, mismatched, elements = 0.0, 0, 0
        for value in _written(op):
            want = _typed(cpu_buffers, value)
            got = _typed(gpu_buffers, value)
            diff = (got.cpu().float() - want.float()).abs()
            bad = diff > tolerance * (1 + want.float().abs())
            worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
            mismatched += int(bad.sum())
            elements += diff.numel()
            if isolate:
                got.copy_(want)
        report.append(LaunchDifference(index, _label(op), worst, mismatched, elements))
    gpu.close()
    return report
