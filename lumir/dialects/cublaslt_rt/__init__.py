"""The `cublaslt_rt` dialect: the cuBLASLt host API as IR, on buffers.

Level 3 of lumir (buffer semantics, builtin `memref` types). A lowered function is what
an executor runs, op by op:

- `cublaslt_rt.plan @plan0 {...}` (module level): one cuBLASLt plan, i.e. the operation
  descriptor, the four matrix layouts, how the algorithm is chosen and the workspace
  it may use. An executor builds it once, when it loads the program, from the
  properties (the whole `MatmulDescriptor` of level 2) and the real buffers.
- `cublaslt_rt.alloc` and `cublaslt_rt.constant`: a buffer, empty or holding a literal.
- `cublaslt_rt.matmul @plan0 a(..) b(..) c(..)? bias(..)? d(..)`: one `cublasLtMatmul`
  with that plan, reading A, B, C and the bias and writing D in place.
- `cublaslt_rt.matmul_group { cublaslt_rt.matmul ... }`: GEMV matmuls that read one B
  and run as one launch of the grouped GEMV kernel (made by `group-gemv`).
- `cublaslt_rt.launch "hl.softmax" {dim = 1 : i64} ins(..) outs(..)`: any other kernel;
  it runs the `hl` op it names, with that op's properties, from input buffers into an
  output buffer.
- `cublaslt_rt.fused_launch ins(..) outs(..) { hl body }`: one fused kernel (a bufferized
  `hl.fused`), writing each of its output buffers.
- `cublaslt_rt.launch_group { cublaslt_rt.launch ... }`: independent launches of one
  kernel (a decode layer's in-place KV-cache writes, its counters' integer adds) that
  run as one launch on CUDA (made by `group-launches`).

A buffer is a dense row-major `memref` (static shape, no layout, no memory space); at
run time it is a flat `torch.uint8` tensor of raw bytes (docs/conventions.md). The plan
verifies the descriptor alone (invariants V1, V2, V3 and V7 of docs/design.md); a matmul
verifies its buffers against its plan (V4, V5, V6, V8, V9, V10); a launch verifies that
the `hl` op it names accepts its buffers' types. So a program that verifies is one the
CPU and CUDA executors run without further checks.
"""

from xdsl.ir import Dialect

from lumir.dialects.cublaslt import descriptor_from_properties
from lumir.dialects.cublaslt_rt.buffers import (
    AllocOp,
    ConstantOp,
    ViewOp,
    buffer_bytes,
    buffer_elements,
    buffer_of,
    byte_range,
    dense_memref_problem,
    element_byte_width,
    element_of,
    int_value,
    members_lack_buffers,
    overlap,
    require_buffer,
    tensor_of,
    view_users,
)
from lumir.dialects.cublaslt_rt.effects import (
    Access,
    BufferOp,
    access,
)
from lumir.dialects.cublaslt_rt.group import GroupOp
from lumir.dialects.cublaslt_rt.launch import (
    IN_PLACE_KERNELS,
    STRIDED_KERNELS,
    FusedLaunchOp,
    LaunchOp,
    Permutation,
    Window,
    hl_op_class,
    inverse_permutation,
    permuted_shape,
)
from lumir.dialects.cublaslt_rt.launch_groups import (
    FUSED_GROUP_MAX,
    GROUPED_KERNELS,
    LAUNCH_GROUP_MAX,
    FusedGroupOp,
    LaunchGroupOp,
    fused_group_problems,
    launch_group_problems,
    launch_member_problem,
)
from lumir.dialects.cublaslt_rt.matmul import (
    BUFFER_INVARIANTS,
    DEFAULT_WORKSPACE_SIZE,
    PLAN_INVARIANTS,
    MatmulOp,
    PlanOp,
    epilogue_problem,
)
from lumir.dialects.cublaslt_rt.matmul_group import (
    MatmulGroupOp,
    epilogue_sources,
    gemv_epilogue_problems,
    gemv_prologue_problems,
    matmul_group_problems,
    outside_reader,
)
from lumir.plan_algorithms import ALGORITHMS

CublasltRt = Dialect(
    "cublaslt_rt",
    [
        PlanOp,
        AllocOp,
        ConstantOp,
        MatmulOp,
        MatmulGroupOp,
        LaunchOp,
        LaunchGroupOp,
        FusedLaunchOp,
        FusedGroupOp,
        ViewOp,
    ],
    [],
)

__all__ = [
    "ALGORITHMS",
    "BUFFER_INVARIANTS",
    "DEFAULT_WORKSPACE_SIZE",
    "FUSED_GROUP_MAX",
    "GROUPED_KERNELS",
    "IN_PLACE_KERNELS",
    "LAUNCH_GROUP_MAX",
    "PLAN_INVARIANTS",
    "STRIDED_KERNELS",
    "Access",
    "AllocOp",
    "BufferOp",
    "ConstantOp",
    "CublasltRt",
    "FusedGroupOp",
    "FusedLaunchOp",
    "GroupOp",
    "LaunchGroupOp",
    "LaunchOp",
    "MatmulGroupOp",
    "MatmulOp",
    "Permutation",
    "PlanOp",
    "ViewOp",
    "Window",
    "access",
    "buffer_bytes",
    "buffer_elements",
    "buffer_of",
    "byte_range",
    "dense_memref_problem",
    "descriptor_from_properties",
    "element_byte_width",
    "element_of",
    "epilogue_problem",
    "epilogue_sources",
    "fused_group_problems",
    "gemv_epilogue_problems",
    "gemv_prologue_problems",
    "hl_op_class",
    "int_value",
    "inverse_permutation",
    "launch_group_problems",
    "launch_member_problem",
    "matmul_group_problems",
    "members_lack_buffers",
    "outside_reader",
    "overlap",
    "permuted_shape",
    "require_buffer",
    "tensor_of",
    "view_users",
]
