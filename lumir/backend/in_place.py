"""Write a graph's input mutations where the input lives (a KV cache updated in place).

aot_autograd hands the backend a functional graph: a model's `cache.index_copy_(...)`
becomes `new = index_copy(cache, ...)`, `new` is returned as an extra output, and torch
copies it back into `cache` after the call. Taken literally that is three copies of the
whole cache per update (the kernel's `out` starts as a copy of the input, the partition
copies its outputs out of the program's buffers, torch copies the result back), where
eager writes one row.

When the mutated input is bound to the program by address (a static input: a
`StaticCache`'s tensors are marked static, as parameters are), the launch that computes
the new value can write the input's own buffer instead: `outs(%cache)` with `%cache`
also its first input, which the runtime dialect allows for `IN_PLACE_KERNELS`. The
program's result is then the caller's tensor itself, so the partition returns it
without a copy and torch's write-back is a copy onto itself, which torch skips.

It is done only when nothing else can observe the difference: the result is a fresh
buffer (`cublaslt_rt.alloc`) written by exactly one launch, of a kernel that may update
in place, whose first input is the mutated argument with the same type; every other
reader of the argument (or of a view of it) runs before that launch, so no op reads
the old value after it is overwritten; and the argument is not returned elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, OpResult, SSAValue

from lumir.dialects.cublaslt_rt import (
    IN_PLACE_KERNELS,
    AllocOp,
    FusedGroupOp,
    FusedLaunchOp,
    LaunchGroupOp,
    LaunchOp,
    MatmulGroupOp,
    MatmulOp,
    ViewOp,
)


def update_in_place(module: ModuleOp, updates: Mapping[int, int]) -> frozenset[int]:
    """Rewrite result `r` to be written into argument `a` for each `updates[r] = a` that
    qualifies (see the module doc); returns the result indices rewritten. Modifies
    `module` (the lowered `cublaslt_rt` module of one function)."""
    (func,) = [op for op in module.ops if isinstance(op, FuncOp)]
    ret = func.body.block.last_op
    assert isinstance(ret, ReturnOp)
    done: set[int] = set()
    for result_index, arg_index in sorted(updates.items()):
        if _rewrite(func, ret, result_index, arg_index):
            done.add(result_index)
    return frozenset(done)


def _rewrite(func: FuncOp, ret: ReturnOp, result_index: int, arg_index: int) -> bool:
    args = func.body.block.args
    if not (0 <= result_index < len(ret.arguments) and 0 <= arg_index < len(args)):
        return False
    value = ret.arguments[result_index]
    argument = args[arg_index]
    if not isinstance(value, OpResult) or not isinstance(value.op, AllocOp):
        return False
    if value.type != argument.type:
        return False
    block = func.body.block
    users = [_in_block(block, u.operation) for u in value.uses]
    writers = [user for user in users if _writes(user, value)]
    if len(writers) != 1 or not isinstance(writers[0], LaunchOp):
        return False
    launch = writers[0]
    if any(  # every other reader (a view, an attention kernel) comes after the update
        user is not launch
        and user is not ret
        and block.get_operation_index(user) < block.get_operation_index(launch)
        for user in users
    ):
        return False
    if launch.kernel.data not in IN_PLACE_KERNELS or not launch.inputs:
        return False
    if launch.inputs[0] is not argument or any(v is argument for v in launch.inputs[1:]):
        return False
    launch_at = block.get_operation_index(launch)
    for reader in (_in_block(block, op) for op in _readers(argument)):
        if reader is launch:
            continue
        if reader is ret or _writes(reader, argument):
            return False  # the argument is returned, or written elsewhere
        if block.get_operation_index(reader) > launch_at:
            return False  # the old value is read after the update
    if sum(1 for v in ret.arguments if v is value) != 1:
        return False
    alloc = value.op
    value.replace_all_uses_with(argument)
    alloc.detach()
    alloc.erase()
    return True


def _readers(value: SSAValue) -> list[Operation]:
    """Every op using `value` or a view of it (views alias: their readers read it too)."""
    found: list[Operation] = []
    pending = [value]
    while pending:
        current = pending.pop()
        for use in current.uses:
            found.append(use.operation)
            if isinstance(use.operation, ViewOp):
                pending.extend(use.operation.results)
    return found


def _in_block(block: Block, op: Operation) -> Operation:
    """The op of `block` that is or holds `op` (a grouped matmul runs as its group)."""
    found = block.find_ancestor_op_in_block(op)
    assert found is not None, f"{op.name} is not in the function"
    return found


def _writes(op: Operation, value: SSAValue) -> bool:
    """Whether `op` writes the buffer `value` (through the operand itself, not a view)."""
    if isinstance(op, MatmulGroupOp):
        return any(_writes(step, value) for step in op.steps())
    if isinstance(op, LaunchGroupOp | FusedGroupOp):
        return any(_writes(member, value) for member in op.members())
    if isinstance(op, LaunchOp):
        return op.output is value
    if isinstance(op, FusedLaunchOp):
        return any(v is value for v in op.outputs)
    if isinstance(op, MatmulOp):
        return op.d is value
    return False
