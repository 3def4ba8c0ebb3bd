"""What a runtime op reads and writes when it runs: one answer for every pass and check.

MLIR's memory-effect interface, in the small: each `cublaslt_rt` op says which buffers
it reads and which it writes (`BufferOp.buffer_access`); an op that does not say (a
`func.return`, an op of another dialect) may touch anything. The grouping passes move
ops across each other by it (`lumir.passes.program_order`), and the group verifier walks
a program's later ops by it (`outside_reader`), so the two cannot disagree about what an
op touches.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation


@dataclass(frozen=True)
class Access:
    """The buffers an op reads and writes when it runs; `everything` for an op that does
    not say, which no member of a group may move across."""

    reads: tuple[SSAValue, ...] = ()
    writes: tuple[SSAValue, ...] = ()
    everything: bool = False


class BufferOp(IRDLOperation, abc.ABC):
    """A `cublaslt_rt` op of a function's body: it says what it reads and writes."""

    @abc.abstractmethod
    def buffer_access(self) -> Access:
        """The buffers this op reads and writes when a program runs (none for an op whose
        work is done when the program is loaded: a buffer, a literal, a view)."""


def access(op: Operation) -> Access:
    """What `op` reads and writes at run time: its own answer, or everything."""
    if isinstance(op, BufferOp):
        return op.buffer_access()
    return Access(everything=True)
