"""The shape every `cublaslt_rt` group shares: member ops in one block, run as one launch.

A `matmul_group`, `launch_group` or `fused_group` holds its member ops themselves, in
program order, each with its own buffers and location: on the CPU the members run one
after the other, exactly as they would ungrouped; on CUDA they are one launch. What
differs between the groups is which members they take and what their verifier asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.ir import Block, Operation, Region
from xdsl.irdl import region_def, traits_def
from xdsl.traits import NoTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from lumir.dialects.cublaslt_rt.buffers import members_lack_buffers
from lumir.dialects.cublaslt_rt.effects import BufferOp
from lumir.verifier import FindingsVerifyException

Member = TypeVar("Member", bound=Operation)


class GroupOp(BufferOp):
    """An op whose one block holds its member ops, with no terminator."""

    body = region_def("single_block")

    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = "attr-dict-with-keyword $body"

    def __init__(self, members: Sequence[Operation]):
        """The group of `members`, each detached from where it stood and moved inside."""
        block = Block()
        for member in members:
            member.detach()
            block.add_op(member)
        super().__init__(regions=[Region(block)])

    def verify_members(
        self, kind: type[Member], problems: Callable[[list[Member]], list[str]]
    ) -> None:
        """Refuse a member of another `kind` and block arguments; then, once every
        member's operands are buffers (a member's own verifier reports one that is not,
        located at it), what `problems` finds in the members as one group."""
        strangers = [op.name for op in self.body.block.ops if not isinstance(op, kind)]
        if strangers or self.body.block.args:
            raise VerifyException(
                f"'{self.name}' holds only {kind.name} ops and no block arguments, "
                f"found {', '.join(strangers) or 'block arguments'}"
            )
        if members_lack_buffers(self.body.block.ops):
            return
        found = problems([op for op in self.body.block.ops if isinstance(op, kind)])
        if found:
            raise FindingsVerifyException([f"'{self.name}' {p}" for p in found])
