"""lumir's runtime: run lowered programs on CPU (the reference) or CUDA (cuBLASLt).

    program = lumir.runtime.load(module, device="cpu")   # or "cuda"
    y = program(x, w)                                    # torch tensors in, out

`load` takes a level-3 module (`cublaslt_rt`, the output of `lumir-pipeline`) and
returns a callable over torch tensors; `interpret` runs a level-1 or level-2 module as
unfused torch ops, the reference a compiled program is compared against;
`reference_matmul` is one cuBLASLt call on CPU byte buffers. `load` raises
`DeviceUnavailableError` where the device cannot run the program and
`KernelCompileError` where one of its Triton kernels does not compile. Buffers are flat
`torch.uint8` tensors of raw bytes (docs/conventions.md); docs/runtime.md describes
both executors.
"""

from lumir.runtime.interpreter import interpret, unfused_matmul
from lumir.runtime.program import (
    DeviceUnavailableError,
    GraphCaptureWarning,
    Program,
    load,
    load_with_buffers,
)
from lumir.runtime.reference_gemm import (
    GemmBufferError,
    GemmDescriptorError,
    ReferenceGemmPlan,
    reference_matmul,
)
from lumir.runtime.triton_launch import KernelCompileError

__all__ = [
    "DeviceUnavailableError",
    "GemmBufferError",
    "GemmDescriptorError",
    "GraphCaptureWarning",
    "KernelCompileError",
    "Program",
    "ReferenceGemmPlan",
    "interpret",
    "load",
    "load_with_buffers",
    "reference_matmul",
    "unfused_matmul",
]
