"""Make Triton's CPU interpreter convert between f32 and bf16 as a GPU does.

A kernel's `x.to(tl.bfloat16)` compiles to LLVM's `fptrunc`, which rounds to nearest
even (`cvt.rn.bf16.f32` on NVIDIA GPUs), and `.to(tl.float32)` of a bf16 is exact (the
bits shifted up). Triton's interpreter (3.9) runs both through `_convert_float`, which
gets each wrong somewhere: without a rounding mode it drops the low 16 bits of an f32
(it truncates towards zero), and it scales a bf16 subnormal wrongly (1e-39 came back
as 4.4e-39, 1e-40 as 0). So under `TRITON_INTERPRET=1` a bf16 rounding of a generated
kernel (after each op of a bf16 body, `triton_codegen`) could be one ulp below the GPU's
and torch's, and a check saw differences no GPU makes (found by
`lumir.testing.codegen_fuzz`: `log(sqrt(x))` in bf16 was off by one ulp of the sqrt,
magnified by the log near 1; `x / tanh(x)` of a subnormal was inf). f16 goes through
numpy's `astype`, which is right both ways.

`exact_bf16_casts` replaces the interpreter's conversions between f32 and bf16 with
torch's (the GPU's) for the life of the process; every other cast is the interpreter's
own. The interpreter check (`fused_check`) calls it before it runs a kernel.
"""

from __future__ import annotations

import numpy as np
import torch


def exact_bf16_casts() -> None:
    """Patch `InterpreterBuilder.cast_impl` (once per process): f32 -> bf16 rounds to
    nearest even, bf16 -> f32 is exact. Only under the interpreter: triton must import."""
    import triton.language as tl
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    original = builder.cast_impl
    if getattr(original, "exact_bf16", False):
        return

    def cast_impl(self, src, dst_type):  # type: ignore[no-untyped-def]
        source, target = src.dtype.scalar, dst_type.scalar
        if source == tl.float32 and target == tl.bfloat16:
            values = torch.from_numpy(np.array(src.data, dtype=np.float32))
            bits = values.to(torch.bfloat16).view(torch.uint16).numpy()
            return interpreter.TensorHandle(bits, target)
        if source == tl.bfloat16 and target == tl.float32:  # stored as uint16 bits
            bits = np.array(src.data, dtype=np.uint16).astype(np.uint32) << 16
            return interpreter.TensorHandle(bits.view(np.float32), target)
        return original(self, src, dst_type)

    cast_impl.exact_bf16 = True  # type: ignore[attr-defined]
    builder.cast_impl = cast_impl  # type: ignore[method-assign]


__all__ = ["exact_bf16_casts"]
