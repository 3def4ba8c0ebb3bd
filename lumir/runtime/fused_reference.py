"""A fused body (`hl.fused`, `cublaslt_rt.fused_launch`) run op by op as torch calls.

The reference meaning of a fused kernel is its body, unfused: each op is the torch call
of `lumir.runtime.hl_torch` it would be as a launch of its own, so a fused program on
the CPU executor gives the bytes the unfused program gives. The generated Triton kernel
(`lumir.runtime.triton_codegen`) is checked against this.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from xdsl.ir import Block, Operation, SSAValue

from lumir.dialects import hl
from lumir.runtime.buffers import constant_tensor, shaped_type_parts
from lumir.runtime.hl_torch import bind_kernel

FusedKernel = Callable[..., tuple[torch.Tensor, ...]]
"""A bound fused body: its input tensors in, its yielded tensors out."""


def bind_fused_body(block: Block, compute: torch.dtype | None = None) -> FusedKernel:
    """The body of a fused op as one function over torch tensors, properties decoded once.

    `compute` (torch.float64: the exact reference of the interpreter check,
    `lumir.testing.fused_check`) computes every float value in that dtype instead of
    its own: casts and per-op roundings disappear, the ops stay the same; the inputs
    must be given in it."""
    steps: list[tuple[Operation, Callable[..., torch.Tensor] | torch.Tensor]] = []
    terminator = block.last_op
    assert isinstance(terminator, hl.YieldOp)
    for op in block.ops:
        if op is terminator:
            break
        if isinstance(op, hl.ConstantOp):
            constant = constant_tensor(op.value)
            if compute is not None and constant.is_floating_point():
                constant = constant.to(compute)
            steps.append((op, constant))
            continue
        shape, dtype = shaped_type_parts(op.results[0].type)
        if compute is not None and dtype.is_floating_point:
            dtype = compute
        steps.append((op, bind_kernel(op.name, op.properties, shape, dtype)))
    args = list(block.args)
    yielded = list(terminator.values)

    def run(*inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        values: dict[SSAValue, torch.Tensor] = dict(zip(args, inputs, strict=True))
        device = inputs[0].device if inputs else torch.device("cpu")
        for op, step in steps:
            if isinstance(step, torch.Tensor):
                values[op.results[0]] = step.to(device)
            else:
                values[op.results[0]] = step(*(values[v] for v in op.operands))
        return tuple(values[v] for v in yielded)

    return run


__all__ = ["FusedKernel", "bind_fused_body"]
