"""Which results a program computes straight into a fresh tensor on every call.

A program owns its buffers and the next call overwrites them, so a caller that keeps a
result must get a copy of it (`Program.__call__`, `lumir.backend.calls`). For a model's
last matmul that copy is large: Llama-1B's lm_head writes [1024, 128256] bf16 logits
(250 MB) at sequence 1024, which the program then held twice per call (its buffer and
the caller's copy) and copied device to device every call (62 us on the H200).

A result needs no buffer of the program's when the one launch that writes it can write
a tensor allocated for the call instead, and that tensor can be handed to the caller
as it is. That is safe exactly when nothing else sees the buffer: this module finds
such results (`find_fresh_outputs`), the loader allocates no buffer for them, and a call
runs their matmuls after the rest of the program (the CUDA graph's replay) with D bound
to a fresh `torch.empty` (`lumir.runtime.program`).

A fresh output saves a device copy of its bytes and a buffer of its size, but its
matmul then runs outside the CUDA graph: one more library call from the host on every
call (through nvmath's Python bindings), against a copy that for a small result is a
fraction of a microsecond on the device. So only results of at least `MIN_BYTES` take
the fresh path, where the copy and the memory are what cost.

A result qualifies when (anything else keeps the buffer and the copy):

- it holds at least `MIN_BYTES` bytes;

- its root buffer is a `cublaslt_rt.alloc` (not an argument, a constant or an arena of
  shared intermediates: the `share-buffers` plan never places a result, and a result
  placed some other way is a view with an offset or of a larger buffer), and the
  result is that whole buffer (itself, or a view of it at byte 0 of its full size, as
  the reshape of a Linear's [S, N] output to [1, S, N]);
- one top-level `cublaslt_rt.matmul` (not a member of a grouped GEMV launch) writes
  the whole buffer through a dense D layout (every byte once, so no byte of the fresh
  tensor stays uninitialised), reading none of it (no C in place);
- nothing else uses the buffer or a view of it, and `func.return` returns it once;
- that matmul is in the trailing run of such matmuls at the end of the function's
  launches, so running it after every other launch changes no value: no later launch
  reads its D, and no later launch writes what it reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import OpResult, SSAValue

from lumir.cublaslt_enums import Operand, Order
from lumir.dialects.cublaslt_rt import (
    AllocOp,
    FusedGroupOp,
    FusedLaunchOp,
    LaunchGroupOp,
    LaunchOp,
    MatmulGroupOp,
    MatmulOp,
    ViewOp,
    buffer_bytes,
    byte_range,
    overlap,
)
from lumir.operand_layout import matrix_layout

MIN_BYTES = 16 << 20
"""The smallest result computed into a fresh tensor (module docstring): below it, the
host-side call costs more than the copy it saves, and the memory is not worth it."""

_LAUNCHES = (MatmulOp, MatmulGroupOp, LaunchOp, LaunchGroupOp, FusedLaunchOp, FusedGroupOp)
"""The ops that run something (each one launch of the run phase, in block order)."""


@dataclass(frozen=True)
class FreshOutput:
    """Result `result` of the function (the value `returned`), written by `matmul` into
    the alloc `root`, which `returned` is (or is a whole view of)."""

    result: int
    returned: SSAValue
    matmul: MatmulOp
    root: SSAValue


def find_fresh_outputs(func: FuncOp) -> tuple[FreshOutput, ...]:
    """The results of `func` that qualify (module docstring), in launch order.

    Walks the launches from the last one back and stops at the first that is not a
    qualifying matmul: only a trailing run can move behind the rest unchanged.
    """
    block = func.body.block
    ret = block.last_op
    if not isinstance(ret, ReturnOp):
        return ()
    launches = [op for op in block.ops if isinstance(op, _LAUNCHES)]
    found: list[FreshOutput] = []
    for op in reversed(launches):
        fresh = _qualifying(op, ret) if isinstance(op, MatmulOp) else None
        if fresh is None:
            break
        found.append(fresh)
    return tuple(reversed(found))


def _qualifying(matmul: MatmulOp, ret: ReturnOp) -> FreshOutput | None:
    """The result `matmul` writes, if it qualifies (module docstring), else None."""
    root, start, end = byte_range(matmul.d)
    if not isinstance(root, OpResult) or not isinstance(root.op, AllocOp):
        return None
    size = buffer_bytes(root.op.memref.type)
    if (
        size == 0
        or size < MIN_BYTES
        or (start, end) != (0, size)
        or not _writes_densely(matmul, size)
    ):
        return None
    if any(overlap(matmul.d, value) for _, value in matmul.read_operands()):
        return None
    users = [(use.operation, use.index) for alias in _aliases(root) for use in alias.uses]
    others = [(op, index) for op, index in users if not isinstance(op, ViewOp)]
    returns = [index for op, index in others if op is ret]
    if len(returns) != 1 or any(op is not ret and op is not matmul for op, _ in others):
        return None
    returned = ret.arguments[returns[0]]
    returned_root, returned_start, returned_end = byte_range(returned)
    if returned_root is not root or (returned_start, returned_end) != (0, size):
        return None
    return FreshOutput(returns[0], returned, matmul, root)


def _writes_densely(matmul: MatmulOp, size: int) -> bool:
    """Whether D's layout writes each of the buffer's `size` bytes exactly once."""
    plan = matmul.plan_op()
    if plan is None:
        return False
    layout = matrix_layout(plan.descriptor(), Operand.D)
    matrix = layout.rows * layout.cols
    dense_ld = layout.ld == (layout.rows if layout.order is Order.COL else layout.cols)
    dense_batches = layout.batch_count == 1 or layout.stride == matrix
    written = matrix * layout.batch_count * layout.dtype.byte_width
    return dense_ld and dense_batches and written == size


def _aliases(root: SSAValue) -> list[SSAValue]:
    """`root` and every view of it, views of views included (they share its bytes)."""
    found = [root]
    for value in found:
        found.extend(
            use.operation.result for use in value.uses if isinstance(use.operation, ViewOp)
        )
    return found


__all__ = ["MIN_BYTES", "FreshOutput", "find_fresh_outputs"]
