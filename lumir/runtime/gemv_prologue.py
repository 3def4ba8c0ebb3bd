"""A grouped GEMV with its one-row prologue (and its epilogue, if any) as one Triton kernel.

At one token a Llama layer computes each RMSNorm as a one-program fused kernel and then
the grouped GEMV that reads it (q/k/v, gate/up): the norm's cost is the latency it adds
to the serial chain of launches. With the norm's launch inside the group
(`cublaslt_rt.matmul_group`'s prologue, made by the `gemv-prologue` pass), CUDA runs
both as one kernel: every program computes the norm of the whole row in registers
(`triton_codegen.generate_gemv_prologue`, op by op with the fused kernel's rounding)
and sums its BLOCK_M rows of a member against it (`gemv_kernel.gemv_rows_of_vector`,
the order of the member's own launch, whose one block of columns holds the row). The
prologue's output, the members' B, is never written, which the verifier allows only
where nothing outside the group reads it (`gemv_prologue_problems`).

The sums are the members' own; the norm is not bit for bit the separate launch's: that
kernel reduces its row with 4 warps (`fused_tiling.ROW_WARPS`), this one with the
GEMV's warps, and Triton's reduction order follows the layout, so the norm's last bits
may differ (the program is as deterministic as before, and on the CPU, where the
launches run one by one, identical).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.ir import Block

from lumir.runtime.gemv import GemvOperands, GemvPlanError, launch_config
from lumir.runtime.gemv_epilogue import GroupKernelPlan, check_outputs, describe_members
from lumir.runtime.pdl import NO_PDL, PdlMode
from lumir.runtime.triton_codegen import generate_gemv_prologue


class GemvProloguePlan(GroupKernelPlan):
    """A `cublaslt_rt.matmul_group` with a prologue, ready to run on CUDA buffers.

    `members` are the members' calls (`GemvPlan.operands`, reading one vector, the
    prologue's output, whose k fits their one block of columns), `prologue` the
    prologue's fused body and `inputs` the tensors it reads (typed views of its input
    buffers); `epilogue`, `sources` and `outputs` as for `GemvEpiloguePlan`, where the
    group has an epilogue. `run()` is one launch.
    """

    def __init__(
        self,
        members: Sequence[GemvOperands],
        prologue: Block,
        inputs: Sequence[torch.Tensor],
        epilogue: Block | None = None,
        sources: Sequence[int] = (),
        outputs: Sequence[torch.Tensor] = (),
        pdl: PdlMode = NO_PDL,
    ) -> None:
        self.members = tuple(members)
        first = self.members[0]
        k = first.a.shape[1]
        block_m, block_k, num_warps = launch_config(self.members)
        if block_k < k:
            raise GemvPlanError(f"a prologue needs the row ({k}) in one block, not {block_k}")
        for index, member in enumerate(self.members):
            if member.a.shape[1] != k or member.x.data_ptr() != first.x.data_ptr():
                raise GemvPlanError(f"member {index}: a prologue's members read one vector")
        described = describe_members(self.members)
        text = generate_gemv_prologue(prologue, described, epilogue, list(sources))
        arguments: list[object] = [*(tensor.reshape(-1) for tensor in inputs), k]
        if epilogue is None:
            grid = sum(-(-member.a.shape[0] // block_m) for member in self.members)
            for member in self.members:
                a, c, bias, d, m, s_am, s_ak, s_c, s_bias, s_d, alpha, beta = (
                    member.kernel_arguments()
                )
                arguments += [a, c, bias, d, m, s_am, s_ak, s_c, s_bias, s_d, alpha, beta]
        else:
            m = first.a.shape[0]
            if any(member.a.shape[0] != m for member in self.members):
                raise GemvPlanError("an epilogue's members have one m")
            check_outputs(outputs, m)
            grid = -(-m // block_m)
            arguments.append(m)
            for member in self.members:
                a, c, bias, _, _, s_am, s_ak, s_c, s_bias, _, alpha, beta = (
                    member.kernel_arguments()
                )
                arguments += [a, c, bias, s_am, s_ak, s_c, s_bias, alpha, beta]
            arguments += [output.reshape(-1) for output in outputs]
        self._prepare(text, grid, arguments, (block_m, block_k, num_warps), pdl)


__all__ = ["GemvProloguePlan"]
