"""What a loaded program's matmuls run as: the plan interface and each device's plans.

A `cublaslt_rt.matmul` is loaded as a plan built once on its real buffers and run with
no argument on every call: on the CPU a `ReferenceGemmPlan` (cuBLASLt's semantics on
byte buffers), on CUDA a `CublasLtMatmulPlan` or, for `algorithm = "gemv"`, lumir's
`GemvPlan`. The loader (`lumir.runtime.loader`) asks a `PlanFactory` for each matmul
and a `GroupFactory` for each `cublaslt_rt.matmul_group`; this module builds both for
a device, and holds the step that runs a fresh output's matmul after the launches
(`TailLaunch`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import torch
from xdsl.dialects.builtin import ModuleOp

from lumir.cublaslt_enums import DataType
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.dialects.cublaslt_rt import PlanOp
from lumir.runtime.binding import tensor_bytes
from lumir.runtime.pdl import NO_PDL, PdlMode
from lumir.runtime.reference_gemm import ReferenceGemmPlan


class DeviceUnavailableError(RuntimeError):
    """The requested device (or the library it needs, such as nvmath) is not here."""


class MatmulPlan(Protocol):
    """What the executor needs of a plan: `run()` (CPU reference and CUDA plans both)."""

    def run(self) -> None: ...


class IntoPlan(MatmulPlan, Protocol):
    """A plan that can write D into a buffer given per call (every single-matmul plan:
    `ReferenceGemmPlan`, `CublasLtMatmulPlan`, `GemvPlan`), for fresh outputs."""

    def run_into(self, d: torch.Tensor) -> None: ...

    def unbind_d(self) -> None: ...


@dataclass(frozen=True)
class TailLaunch:
    """The matmul of a fresh output (`lumir.runtime.fresh_outputs`): run after the
    program's launches, into a tensor allocated for the call, which becomes result
    `result`. The tensor is what a copy of the buffer would be (dense, `shape`,
    `dtype`, on `device`), so callers see no difference but the copy not made."""

    result: int
    plan: IntoPlan
    shape: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device

    def __call__(self) -> torch.Tensor:
        output = torch.empty(self.shape, dtype=self.dtype, device=self.device)
        self.plan.run_into(tensor_bytes(output))
        return output


PlanFactory = Callable[
    [MatmulDescriptor, torch.Tensor, torch.Tensor, torch.Tensor, "PlanExtras"], MatmulPlan
]

GroupFactory = Callable[[Sequence[MatmulPlan]], MatmulPlan]
"""Builds the plan of a `cublaslt_rt.matmul_group` from its members' plans."""


class PlansInOrder:
    """A group's member plans run one after the other: on the CPU a group computes
    exactly what its members compute ungrouped."""

    def __init__(self, plans: Sequence[MatmulPlan]) -> None:
        self.plans = tuple(plans)

    def run(self) -> None:
        for plan in self.plans:
            plan.run()

    def close(self) -> None:
        close_plans(self.plans)


def close_plans(plans: Sequence[object]) -> None:
    """Release what each plan holds: CUDA plans own cuBLASLt descriptors (`close`);
    CPU plans hold nothing and have no `close`."""
    for plan in plans:
        close = getattr(plan, "close", None)
        if close is not None:
            close()


@dataclass(frozen=True)
class PlanExtras:
    c: torch.Tensor | None
    bias: torch.Tensor | None
    bias_dtype: DataType | None
    workspace_size: int
    algorithm: str = "heuristic"
    pdl: PdlMode = NO_PDL


def cpu_plan(
    desc: MatmulDescriptor,
    a: torch.Tensor,
    b: torch.Tensor,
    d: torch.Tensor,
    extras: PlanExtras,
) -> MatmulPlan:
    return ReferenceGemmPlan(
        desc, a, b, d, c=extras.c, bias=extras.bias, bias_dtype=extras.bias_dtype
    )


def grouped_gemv_plan(members: Sequence[MatmulPlan]) -> MatmulPlan:
    """One grouped GEMV launch over the members' GEMV plans (a verified group's members
    are all `algorithm = "gemv"`, so on CUDA they are `GemvPlan`s)."""
    from lumir.runtime.gemv import GemvPlan, GemvPlanError, GroupedGemvPlan

    calls, modes = [], []
    for index, plan in enumerate(members):
        if not isinstance(plan, GemvPlan):
            raise GemvPlanError(f"member {index} is not a GEMV plan; a group runs GEMV plans only")
        calls.append(plan.operands)
        modes.append(plan.pdl)
    # One launch, dependent when all its members' launches would be.
    return GroupedGemvPlan(calls, pdl=PdlMode(dependent=all(mode.dependent for mode in modes)))


def largest_workspace(module: ModuleOp) -> int:
    sizes = [workspace_size(op) for op in module.ops if isinstance(op, PlanOp)]
    return max(sizes, default=0)


def cuda_plan_factory(
    device: torch.device, workspace_bytes: int, autotune: bool | None = None
) -> tuple[PlanFactory, torch.device, Callable[[], None]]:
    """The CUDA plan constructor, imported lazily, the device it builds plans on, and
    what binds the plans it built to a workspace once they all are.

    Every program on a device shares the process's one cuBLASLt workspace there
    (`shared_workspace`). Plans run in order on one stream, and the partitions of a
    compiled model run one after the other, so sharing is safe; a workspace per program
    cost 32 MiB per partition (18 partitions of a decode step held 576 MiB on the H200).
    Each plan's algorithm is chosen with its `workspace_size` as the most it may use,
    and the workspace is then grown to the most any chosen algorithm needs
    (`algorithm_workspace_bytes`), not to what they may use: memory a program holds
    while it runs, which the peak-memory target counts. With autotuning the plans time
    their candidates in a real workspace, so it is allocated at the largest
    `workspace_size` up front, as before.
    """
    from lumir.runtime.cuda_cublaslt import (
        CublasLtMatmulPlan,
        cublaslt_available,
        shared_workspace,
    )
    from lumir.runtime.gemm_autotune import autotune_requested, process_tuner

    if not cublaslt_available():
        raise DeviceUnavailableError(
            "device 'cuda' needs an NVIDIA GPU visible to torch and nvmath-python "
            "(pip install 'lumir[cuda]')"
        )
    if device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    tuner = process_tuner() if autotune_requested(autotune) else None
    workspace = shared_workspace(device, workspace_bytes) if tuner is not None else None
    unbound: list[CublasLtMatmulPlan] = []

    def bind_workspace() -> None:
        if not unbound:
            return
        needed = max(plan.algorithm_workspace_bytes for plan in unbound)
        shared = shared_workspace(device, needed)
        for plan in unbound:
            plan.bind_workspace(shared)
        unbound.clear()

    def make(
        desc: MatmulDescriptor,
        a: torch.Tensor,
        b: torch.Tensor,
        d: torch.Tensor,
        extras: PlanExtras,
    ) -> MatmulPlan:
        if extras.algorithm == "gemv":
            from lumir.runtime.gemv import GemvPlan

            return GemvPlan(
                desc,
                a,
                b,
                d,
                c=extras.c,
                bias=extras.bias,
                bias_dtype=extras.bias_dtype,
                pdl=extras.pdl,
            )
        if workspace is None:
            plan = CublasLtMatmulPlan(
                desc,
                a,
                b,
                d,
                c=extras.c,
                bias=extras.bias,
                bias_dtype=extras.bias_dtype,
                workspace_bytes=extras.workspace_size,
            )
            unbound.append(plan)
            return plan
        return CublasLtMatmulPlan(
            desc,
            a,
            b,
            d,
            c=extras.c,
            bias=extras.bias,
            bias_dtype=extras.bias_dtype,
            workspace=workspace[: extras.workspace_size],
            tuner=tuner,
            d_holds_nothing_yet=True,  # a loading program's buffers hold no value yet
        )

    return make, device, bind_workspace


def workspace_size(plan: PlanOp) -> int:
    return plan.workspace_size.value.data
