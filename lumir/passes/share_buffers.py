"""The buffer plan as a pass of its own: `lumir-pipeline` runs it last, after group-gemv."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass

from lumir.passes.buffer_plan import share_buffers


@dataclass(frozen=True)
class ShareBuffersPass(ModulePass):
    """Place each lowered function's intermediates in one arena, sharing dead bytes.

    The buffer plan of `lower-to-cublaslt-rt` (`lumir.passes.buffer_plan`, its option
    `share_buffers`), run on its own: each intermediate buffer becomes a view of one
    `cublaslt_rt.alloc` arena, and two share bytes only when one is dead before the
    other is allocated, or when a fused launch's elementwise body writes its output over
    exactly an input that dies there (`FusedLaunchOp.may_overwrite`: SiLU(gate) * up over
    gate). lumir-pipeline lowers with `share_buffers=false` and runs this
    last, so that passes which move launches on buffers (group-gemv) see values that
    do not share bytes yet, and the plan then follows the lifetimes they leave. A
    function already placed (an arena is used only through views) is left as it is, and
    so is one not yet on buffers (an argument or result that is not a memref: `hl` or
    `cublaslt` IR), which has no intermediates to place.
    """

    name = "share-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.ops:
            if isinstance(func, FuncOp) and func.body.blocks and _on_buffers(func):
                share_buffers(func)


def _on_buffers(func: FuncOp) -> bool:
    """Whether every argument and result of `func` is a buffer, as lowering leaves them."""
    types = (*func.function_type.inputs.data, *func.function_type.outputs.data)
    return all(isinstance(type_, MemRefType) for type_ in types)


__all__ = ["ShareBuffersPass"]
