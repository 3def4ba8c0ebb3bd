"""Whether ATen's kernel for a node computes `a * b + c` in f32 as one fused multiply-add.

ATen's CPU kernels are compiled once per CPU capability, and GCC contracts `a * b + c`
of floats into one fused multiply-add (rounded once) where the target has the
instruction: ATen's AVX2 and AVX512 kernels do, its DEFAULT ones do not (each product
and sum rounded). nvcc contracts by default too. So an f32 `linspace` element or
`linalg.cross` component is eager's value only in the form of the kernels this process
runs (`torch.backends.cpu.get_cpu_capability()`, which `ATEN_CPU_CAPABILITY` can lower;
each capability below was checked against eager with it). A half type's arithmetic is
c10's, every operation rounded, on every capability.
"""

from __future__ import annotations

import torch
from torch import fx

CONTRACTED_CAPABILITIES = ("AVX2", "AVX512")
"""ATen CPU capabilities whose f32 kernels contract a product and a sum."""

UNCONTRACTED_CAPABILITIES = ("DEFAULT",)
"""ATen CPU capabilities whose f32 kernels round the product, then the sum."""


def contracted(node: fx.Node) -> bool | str:
    """Whether ATen's f32 kernel on the device of `node`'s result fuses a product and a
    sum into one rounding, or why lumir does not know (another device, or a CPU
    capability not checked)."""
    value = node.meta.get("val")
    device = value.device if isinstance(value, torch.Tensor) else torch.device("cpu")
    if device.type == "cuda":
        return True  # nvcc's default --fmad=true (not checked on a GPU)
    if device.type != "cpu":
        return f"an f32 {node.target} on {device} (its rounding is not known)"
    capability = torch.backends.cpu.get_cpu_capability()
    if capability in CONTRACTED_CAPABILITIES:
        return True
    if capability in UNCONTRACTED_CAPABILITIES:
        return False
    return f"an f32 {node.target} under ATen's CPU capability {capability} (not checked)"
