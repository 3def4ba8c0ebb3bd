"""Run the GEMV matmuls that read one activation as one grouped launch.

A decode step runs every projection as lumir's GEMV (`algorithm = "gemv"`), and the
small ones are bound by launch latency, not bytes: on the H200, inside a CUDA graph, a
Llama-1B layer's k and v projections take ~2.9 µs each, about what one launch over both
takes. Concatenating the weights at load time would cost the guarantee that a weight
changed in place after compiling is seen by the next call (docs/backend.md, "Weights
are bound, not copied"), so instead one launch reads each member's weight where it
lives: `cublaslt_rt.matmul_group`, whose members are the matmuls themselves.

The pass walks each function in program order. Each GEMV matmul not yet grouped
anchors a group, and every later GEMV matmul that reads the same B value joins it (at
most `GEMV_GROUP_MAX`) when

- the group op would verify with it (`cublaslt_rt.matmul_group_problems`: same k, B
  read alike, the same block shape as the others, so its sums and its D are what its
  own launch gives; no member writes bytes another member reads or writes), and
- it can run at the anchor instead of where it is: every operand is defined before the
  anchor, or by load-time ops (alloc, constant, view) that can move there too; and no
  op in between writes bytes it reads, or reads or writes bytes it writes (views
  resolved to the bytes they alias).

The group replaces the anchor; its members move into it in program order. Nothing is
decided by set or dict order or object ids, so a module always groups the same way.
Existing groups are left alone, so a second run changes nothing.

Run it before the buffer plan (`share-buffers`), as `lumir-pipeline` does: once
intermediates share bytes, a later matmul's D often holds bytes an earlier op still
reads, and the dependence check above (rightly) keeps it where it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from lumir.dialects.cublaslt_rt import MatmulGroupOp, MatmulOp, matmul_group_problems
from lumir.passes.program_order import ProgramOrder, group_greedily
from lumir.plan_algorithms import GEMV_GROUP_MAX


def _runs_gemv(op: Operation) -> bool:
    if not isinstance(op, MatmulOp):
        return False
    plan = op.plan_op()
    return plan is not None and plan.algorithm.data == "gemv"


def _joins(state: ProgramOrder, members: list[Operation], later: Operation) -> bool:
    assert isinstance(later, MatmulOp) and isinstance(members[0], MatmulOp)
    return later.b is members[0].b and not matmul_group_problems([*members, later])  # type: ignore[list-item]


def _make_group(members: list[Operation]) -> Operation:
    return MatmulGroupOp(members)  # type: ignore[arg-type]


def group_function(func: FuncOp) -> int:
    """Group `func`'s GEMV matmuls in place (see the module doc); returns the groups made."""
    if not func.body.blocks:
        return 0
    return group_greedily(func.body.block, _runs_gemv, GEMV_GROUP_MAX, _joins, _make_group)


@dataclass(frozen=True)
class GroupGemvPass(ModulePass):
    """Run the GEMV matmuls that read one activation as one launch (cublaslt_rt.matmul_group).

    A decode step's small GEMVs are bound by launch latency, and concatenating their
    weights at load time would hide later in-place changes of a weight from the
    compiled program, so independent `algorithm = "gemv"` matmuls of a function that
    read the same B become the members of one `cublaslt_rt.matmul_group`: one launch of
    the grouped GEMV kernel on CUDA, which reads each member's weight where it lives and
    writes each member's D bit for bit as its own launch would (same block shape, same
    order of sums), and the members one by one on the CPU. Groups form greedily in
    program order, anchored at their first member; a later matmul joins when the group
    still verifies and it can move up to the anchor without crossing a write of what it
    reads or an access to what it writes. Run it on lowered IR before the buffer plan
    (`share-buffers`), as lumir-pipeline does when `gemv` and `group_gemv` are on. See
    docs/runtime.md, "The grouped GEMV".
    """

    name = "group-gemv"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.ops:
            if isinstance(func, FuncOp):
                group_function(func)


__all__ = ["GroupGemvPass", "group_function"]
