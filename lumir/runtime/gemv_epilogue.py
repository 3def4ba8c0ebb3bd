"""A grouped GEMV with its elementwise epilogue as one generated Triton kernel.

A decode step's MLP computes gate and up as one grouped GEMV launch, then SiLU(gate) *
up as a fused kernel of its own: two launches, and the second only reads what the first
wrote. With the fused launch inside the group (`cublaslt_rt.matmul_group`'s epilogue,
made by the `gemv-epilogue` pass), CUDA runs both as one kernel: each program sums its
BLOCK_M rows of every member with the code of the member's own launch
(`gemv_kernel.gemv_rows`, the same block shape), rounds each sum to its D's type, and
computes the body on those values in registers (`triton_codegen.generate_gemv_epilogue`,
op by op with the fused kernel's rounding). The body's results are the bits the two
launches write; the members' D buffers are not written at all, which the verifier
allows only where nothing outside the group reads them (`gemv_epilogue_problems`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.ir import Block

from lumir.runtime.fused_kernels import FP_FUSION, compile_text
from lumir.runtime.gemv import GemvOperands, GemvPlanError, launch_config
from lumir.runtime.pdl import NO_PDL, PdlMode
from lumir.runtime.triton_codegen import EpilogueMember, generate_gemv_epilogue
from lumir.runtime.triton_launch import TritonLaunch

D_ELEMENTS = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}
"""The D types a generated group kernel writes, by their names in its text."""


def describe_members(members: Sequence[GemvOperands]) -> tuple[EpilogueMember, ...]:
    """What a generated group kernel's text says about each member (its C, its bias, its
    D's type); a D of a type no such kernel writes is refused."""
    for index, member in enumerate(members):
        if member.d.dtype not in D_ELEMENTS:
            raise GemvPlanError(f"member {index}: no group kernel writes a D of {member.d.dtype}")
    return tuple(
        EpilogueMember(member.reads_c, member.bias is not None, D_ELEMENTS[member.d.dtype])
        for member in members
    )


def check_outputs(outputs: Sequence[torch.Tensor], m: int) -> None:
    """An epilogue's results: m dense elements each, one per row."""
    for index, output in enumerate(outputs):
        if output.numel() != m or not output.is_contiguous():
            raise GemvPlanError(f"output {index}: expected {m} dense elements")


class GroupKernelPlan:
    """A GEMV group run as one launch of a generated Triton kernel (`GemvEpiloguePlan`,
    `lumir.runtime.gemv_prologue.GemvProloguePlan`): the plan interface over it."""

    _launch: TritonLaunch

    def _prepare(
        self,
        text: str,
        grid: int,
        arguments: Sequence[object],
        config: tuple[int, int, int],
        pdl: PdlMode,
    ) -> None:
        """Compile `text`'s kernel for a launch of `grid` programs over `arguments`, with
        the members' (BLOCK_M, BLOCK_K, num_warps), no floating-point contraction."""
        block_m, block_k, num_warps = config
        options = {
            "BLOCK_M": block_m,
            "BLOCK_K": block_k,
            "num_warps": num_warps,
            **pdl.kernel_options(),
            "enable_fp_fusion": FP_FUSION,
        }
        self._launch = TritonLaunch(compile_text(text), (grid,), tuple(arguments), options)

    def run(self) -> None:
        """Compute the group's results from the buffers' current contents (one launch)."""
        self._launch()

    def warm_up(self) -> None:
        """Compile `run`'s kernel without launching it (`lumir.runtime.triton_launch`)."""
        self._launch.warm_up()

    def close(self) -> None:
        """Nothing to release (no cuBLASLt objects); for the plan interface."""


class GemvEpiloguePlan(GroupKernelPlan):
    """A `cublaslt_rt.matmul_group` with an epilogue, ready to run on CUDA buffers.

    `members` are the members' calls (`GemvPlan.operands`, reading one vector, with one
    m and one block shape), `body` the epilogue's fused body, `sources[i]` the member
    whose D body argument i reads, `outputs` the epilogue's result buffers (m elements
    each, dense). `run()` is one launch.
    """

    def __init__(
        self,
        members: Sequence[GemvOperands],
        body: Block,
        sources: Sequence[int],
        outputs: Sequence[torch.Tensor],
        pdl: PdlMode = NO_PDL,
    ) -> None:
        self.members = tuple(members)
        first = self.members[0]
        m, k = first.a.shape
        for index, member in enumerate(self.members):
            if member.a.shape != (m, k) or member.x.data_ptr() != first.x.data_ptr():
                raise GemvPlanError(
                    f"member {index}: an epilogue's members read one vector and have one m"
                )
        check_outputs(outputs, m)
        text = generate_gemv_epilogue(body, describe_members(self.members), list(sources))
        block_m, block_k, num_warps = launch_config(self.members)
        arguments: list[object] = [first.x, k, first.x.stride(0), m]
        for member in self.members:
            a, c, bias, _, _, s_am, s_ak, s_c, s_bias, _, alpha, beta = member.kernel_arguments()
            arguments += [a, c, bias, s_am, s_ak, s_c, s_bias, alpha, beta]
        arguments += [output.reshape(-1) for output in outputs]
        grid = -(-m // block_m)
        self._prepare(text, grid, arguments, (block_m, block_k, num_warps), pdl)


__all__ = ["D_ELEMENTS", "GemvEpiloguePlan", "GroupKernelPlan", "check_outputs", "describe_members"]
