"""`cublaslt_rt.matmul_group`: GEMV matmuls that read one B, run as one launch.

With an optional prologue (the norm that makes B) and epilogue (what reads the members'
D), the whole group is one generated kernel on CUDA; the checks here say when that
kernel computes what the steps compute one after the other on the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    MemRefType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
)
from xdsl.utils.exceptions import VerifyException

from lumir.dialects.cublaslt_rt.buffers import (
    buffer_elements,
    byte_range,
    element_of,
    members_lack_buffers,
    overlap,
    tensor_of,
    view_users,
)
from lumir.dialects.cublaslt_rt.effects import Access, access
from lumir.dialects.cublaslt_rt.group import GroupOp
from lumir.dialects.cublaslt_rt.launch import FusedLaunchOp
from lumir.dialects.cublaslt_rt.matmul import MatmulOp
from lumir.plan_algorithms import GEMV_GROUP_MAX, gemv_config, gemv_group_problems, vector_step
from lumir.verifier import FindingsVerifyException


@irdl_op_definition
class MatmulGroupOp(GroupOp):
    """GEMV matmuls that read one activation, run as one launch (`lumir.runtime.gemv`).

    The body is the member `cublaslt_rt.matmul` ops themselves, in program order, each
    with its own plan, weight, D and optional C and bias, and its own location. On the
    CPU the members run one after the other, exactly as they would ungrouped; on CUDA
    they are one launch of the grouped GEMV kernel, in which each member is summed
    with the block shape of its own launch, so every D is bit for bit what it would be
    alone. The verifier refuses a group that launch could not run that way
    (`matmul_group_problems`).

    After the members the body may hold one `cublaslt_rt.fused_launch`, the group's
    epilogue (made by the `gemv-epilogue` pass): an elementwise body whose inputs are
    exactly the members' D values, which nothing outside the group reads. On the CPU it
    runs after the members, as it would ungrouped; on CUDA the whole group is one
    generated kernel (`lumir.runtime.gemv_epilogue`) that keeps each member's rounded
    D in registers, computes the body on it and writes only the body's results: the
    members' D buffers are scratch there, left unwritten
    (`gemv_epilogue_problems`).

    Before the members the body may hold one `cublaslt_rt.fused_launch`, the group's
    prologue (made by the `gemv-prologue` pass): a one-row body (an RMSNorm) whose one
    output is the B every member reads, which nothing outside the group reads. On the
    CPU it runs before the members, as it would ungrouped; on CUDA every program of the
    group's one generated kernel computes the row in registers and sums its rows
    against it, and B's buffer is scratch, left unwritten (`gemv_prologue_problems`).
    """

    name = "cublaslt_rt.matmul_group"

    def members(self) -> list[MatmulOp]:
        """The member matmuls, in order (only matmuls, once the group verifies)."""
        return [op for op in self.body.block.ops if isinstance(op, MatmulOp)]

    def epilogue(self) -> FusedLaunchOp | None:
        """The fused launch after the members, if the group has one."""
        last = self.body.block.last_op
        if not isinstance(last, FusedLaunchOp) or last is self.body.block.first_op:
            return None
        return last

    def prologue(self) -> FusedLaunchOp | None:
        """The fused launch before the members, if the group has one."""
        first = self.body.block.first_op
        return first if isinstance(first, FusedLaunchOp) else None

    def steps(self) -> list[Operation]:
        """What the group runs, in order: its prologue, members and epilogue."""
        return list(self.body.block.ops)

    def buffer_access(self) -> Access:
        """What its steps write, and what they read of the bytes from before the group.

        The steps run in order (the CPU's order): a read of bytes an earlier step of
        the group wrote (the members' B, which the prologue makes; the members' D, which
        the epilogue reads) reads the group's own result, not what stood there before.
        Such a read is no read of the group's: were it one, a later group whose prologue
        makes its B in the bytes an earlier group's prologue left unwritten (the buffer
        plan places one layer's norm where the last layer's was) would read them, and
        the earlier group would be refused for a reader it does not have.
        """
        reads: list[SSAValue] = []
        writes: list[SSAValue] = []
        for step in self.steps():
            effects = access(step)
            reads += [v for v in effects.reads if not any(_within(v, w) for w in writes)]
            writes += effects.writes
        return Access(tuple(reads), tuple(writes))

    def verify_(self) -> None:
        ops = list(self.body.block.ops)
        if ops and isinstance(ops[0], FusedLaunchOp):
            ops.pop(0)
        if ops and isinstance(ops[-1], FusedLaunchOp):
            ops.pop()
        strangers = [op.name for op in ops if not isinstance(op, MatmulOp)]
        if strangers or self.body.block.args:
            raise VerifyException(
                f"'{self.name}' holds at most one cublaslt_rt.fused_launch, then only "
                f"cublaslt_rt.matmul ops, then at most one cublaslt_rt.fused_launch, and no "
                f"block arguments; found {', '.join(strangers) or 'block arguments'}"
            )
        if members_lack_buffers(self.body.block.ops):
            return
        steps = [step for step in (self.prologue(), self.epilogue()) if step is not None]
        if any(len(step.body.blocks) != 1 for step in steps):
            return  # the launch's own verifier says what is wrong with its region, located
        problems = matmul_group_problems(self.members())
        prologue = self.prologue()
        if prologue is not None:
            problems += gemv_prologue_problems(self, prologue)
        epilogue = self.epilogue()
        if epilogue is not None:
            problems += gemv_epilogue_problems(self, epilogue)
        if problems:
            raise FindingsVerifyException([f"'{self.name}' {p}" for p in problems])


def _within(inner: SSAValue, outer: SSAValue) -> bool:
    """Whether every byte of the buffer `inner` is a byte of the buffer `outer`."""
    root, start, end = byte_range(inner)
    outer_root, outer_start, outer_end = byte_range(outer)
    return root is outer_root and outer_start <= start and end <= outer_end


def _member_name(index: int, member: MatmulOp) -> str:
    return f"member {index} ({member.plan})"


def matmul_group_problems(members: Sequence[MatmulOp]) -> list[str]:
    """Why `members` cannot run as one grouped GEMV launch (empty when they can).

    Two to `GEMV_GROUP_MAX` members (the kernel's slots); each a GEMV plan's call
    (`algorithm = "gemv"`); all reading one B value and agreeing with the first member
    as `gemv_group_problems` asks (k, B's type and step, one block shape); and no
    member writing bytes another member reads or writes (views resolved): the members
    run at once, so none may depend on another. A member whose plan is missing or
    incomplete is left to its own verifier.
    """
    if not 2 <= len(members) <= GEMV_GROUP_MAX:
        return [f"holds {len(members)} matmul(s); a grouped GEMV runs 2 to {GEMV_GROUP_MAX}"]
    problems: list[str] = []
    completes = [member.complete_plan() for member in members]
    first_desc = completes[0][1] if completes[0] is not None else None
    for index, (member, complete) in enumerate(zip(members, completes, strict=True)):
        name = _member_name(index, member)
        plan = complete[0] if complete is not None else None
        if plan is not None and plan.algorithm.data != "gemv":
            problems.append(
                f'{name} runs algorithm = "{plan.algorithm.data}"; a group runs GEMV plans '
                f'(algorithm = "gemv") only'
            )
        if index == 0:
            continue
        if member.b is not members[0].b:
            problems.append(f"{name} reads another B than member 0; a group reads one B")
        if complete is not None and first_desc is not None:
            problems += [f"{name}: {p}" for p in gemv_group_problems(first_desc, complete[1])]
    for index, member in enumerate(members):
        for other_index, other in enumerate(members):
            if other is member:
                continue
            touched = other.read_operands() + ([("D", other.d)] if other_index > index else [])
            for role, value in touched:
                if overlap(member.d, value):
                    problems.append(
                        f"{_member_name(index, member)} writes D into bytes "
                        f"{_member_name(other_index, other)} "
                        f"{'writes' if role == 'D' else 'reads as ' + role}; the members of a "
                        f"group run at once and may not depend on each other"
                    )
    return problems


def outside_reader(
    group: MatmulGroupOp,
    scratch: SSAValue,
    steps: Sequence[FusedLaunchOp],
    written: Sequence[SSAValue],
) -> Operation | None:
    """An op outside `group` that reads `scratch`, a buffer the group's one CUDA kernel
    leaves unwritten (the prologue's output; with an epilogue, the members' D), or None.

    Two kinds count. An op outside the group's block that uses `scratch` itself or a
    view of it (`view_users`), which program order cannot place. And an op after the
    group, in its block, that reads bytes of `scratch`, through the value or any other
    view of its buffer (a sibling view at the same bytes, the buffer it views, as the
    buffer plan makes them), before an op writes them again: program order, with the
    effects the passes see (`access`: an op that does not say, `func.return` included,
    reads all its operands) and views resolved to their bytes. A later op that
    writes the bytes first (the buffer plan's next tenant) ends the check there; so do
    `written`, bytes the group itself writes on CUDA (the epilogue's outputs, which the
    buffer plan may place over a D). `steps` are the group's prologue and epilogue,
    which need not stand in it yet (a pass asks before it moves one in): not outside.
    An op before the group in its block runs before whatever the group writes, through
    the value as through a sibling view (hl-canonicalize merges two views of the same
    bytes into one value; mutate fuzzer, mutant 4469 of seed 1002).
    """
    block = group.parent_block()
    for user in view_users(scratch):
        if group.is_ancestor(user) or user in steps:
            continue
        top = None if block is None else block.find_ancestor_op_in_block(user)
        if top is None:  # not in the group's block: no order to it
            return user
        # before the group it runs first; after it, the walk below decides
    root, start, end = byte_range(scratch)
    stale = _without([(start, end)], root, written)
    # Only an op that uses the root or a view of it can read or write its bytes, so the
    # walk asks for the effects of those alone (the others' would cost the walk a
    # byte range per operand of every later op of the program).
    touching = set()
    if block is not None:
        tops = (block.find_ancestor_op_in_block(user) for user in view_users(root))
        touching = {top for top in tops if top is not None}
    op = group.next_op
    while op is not None and stale:
        if op in touching and op not in steps:
            effects = access(op)
            reads = effects.reads
            if effects.everything:
                reads = tuple(v for inner in op.walk() for v in inner.operands)
            if any(_meets(stale, root, value) for value in reads):
                return op
            stale = _without(stale, root, effects.writes)
        op = op.next_op
    return None


def caller_argument(scratch: SSAValue) -> int | None:
    """The index of the function argument whose bytes `scratch` lies in, or None.

    A function's arguments are the caller's buffers (an input the program updates in
    place, a KV cache, is bound to the caller's own tensor), so the caller reads them
    after the call: bytes there that a group's kernel leaves unwritten would be stale
    on CUDA and written on the CPU, a reader no walk of the function's ops finds.
    """
    root = byte_range(scratch)[0]
    if isinstance(root, BlockArgument) and isinstance(root.owner.parent_op(), FuncOp):
        return root.index
    return None


def _meets(ranges: Sequence[tuple[int, int]], root: SSAValue, value: SSAValue) -> bool:
    """Whether the buffer `value` shares a byte with `ranges` of the buffer `root`."""
    if not isinstance(value.type, MemRefType):
        return False
    found, start, end = byte_range(value)
    return found is root and any(first < end and start < last for first, last in ranges)


def _without(
    ranges: Sequence[tuple[int, int]], root: SSAValue, values: Sequence[SSAValue]
) -> list[tuple[int, int]]:
    """`ranges` of the buffer `root` less the bytes of `values` that lie in it."""
    left = list(ranges)
    for value in values:
        found, start, end = byte_range(value)
        if found is not root:
            continue
        pieces = [(first, min(last, start)) for first, last in left]
        pieces += [(max(first, end), last) for first, last in left]
        left = [(first, last) for first, last in pieces if first < last]
    return left


def epilogue_sources(group: MatmulGroupOp, epilogue: FusedLaunchOp) -> list[int | None]:
    """For each input of `epilogue`, the index of the member of `group` whose D it is (the
    same bytes, views resolved), None where it is none (which the verifier refuses)."""
    ds = [byte_range(member.d) for member in group.members()]
    found = [byte_range(value) for value in epilogue.inputs]
    return [ds.index(bytes_) if bytes_ in ds else None for bytes_ in found]


def gemv_epilogue_problems(group: MatmulGroupOp, epilogue: FusedLaunchOp) -> list[str]:
    """Why `epilogue` cannot be the last step of the one kernel that runs `group` on CUDA
    (empty when it can).

    That kernel computes m rows of every member's D per program and applies the body to
    them where they are, so the body must be elementwise (`is_elementwise`), every
    member must have the same m, each input must be exactly a member's D (the same
    bytes, m elements of D's type), each output m elements, and every member's D must
    be read: the kernel never writes the members' D buffers, so nothing outside the
    group may read them, through any view of their bytes (`outside_reader`; bytes the
    epilogue writes are written), and none may be a function argument's bytes, which
    the caller reads (`caller_argument`). `epilogue` need not stand in the group yet (the
    `gemv-epilogue` pass asks before it moves the launch there).
    """
    from lumir.dialects.hl.row_program import is_elementwise

    problems: list[str] = []
    members = group.members()
    values = [*(member.d for member in members), *epilogue.inputs, *epilogue.outputs]
    if not all(isinstance(value.type, MemRefType) for value in values):
        return problems  # the ops' own verifiers say what is wrong
    if not is_elementwise(epilogue.body.block.ops):
        problems.append(
            "epilogue: its body must be elementwise (no reduction, slice, cat or transpose)"
        )
    rows = {buffer_elements(member.d) for member in members}
    if len(rows) != 1:
        problems.append(f"epilogue: the members have different m ({sorted(rows)}); one m runs")
        return problems
    (m,) = rows
    read = [False] * len(members)
    owners = epilogue_sources(group, epilogue)
    for index, (value, owner) in enumerate(zip(epilogue.inputs, owners, strict=True)):
        element = element_of(value)
        if owner is None or buffer_elements(value) != m or element != element_of(members[owner].d):
            problems.append(
                f"epilogue: input {index} must be one member's D, whole ({m} elements of its type)"
            )
            continue
        read[owner] = True
    for index, value in enumerate(epilogue.outputs):
        if buffer_elements(value) != m:
            problems.append(f"epilogue: output {index} must hold {m} elements, one per row")
    for index, member in enumerate(members):
        if not read[index]:
            problems.append(f"epilogue: it reads no D of {_member_name(index, member)}")
        outside = outside_reader(group, member.d, [epilogue], epilogue.outputs)
        if outside is not None:
            problems.append(
                f"epilogue: {outside.name} outside the group reads the D of "
                f"{_member_name(index, member)}, which the group's kernel does not write"
            )
        argument = caller_argument(member.d)
        if argument is not None:
            problems.append(
                f"epilogue: the D of {_member_name(index, member)} is in the bytes of "
                f"argument {argument}, which the caller reads and the group's kernel does "
                f"not write"
            )
    return problems


def gemv_prologue_problems(
    group: MatmulGroupOp, prologue: FusedLaunchOp, epilogue: FusedLaunchOp | None = None
) -> list[str]:
    """Why `prologue` cannot be the first step of the one kernel that runs `group` on CUDA
    (empty when it can).

    Every program of that kernel computes the prologue's one row in registers, then sums
    its rows of each member against it in one block of columns, as the member's own
    launch does when its block holds the whole row. So the body must be a program over
    one row of k lanes; its one output must be the B every member reads (the same
    bytes, k elements of B's type, read with step 1); every member must sum the row as
    one block (`gemv_config`'s BLOCK_K at least k); nothing may read B but the members,
    as their B (the kernel never writes its buffer: not a member as its A, C or bias,
    not the epilogue, nothing outside the group, through any view of B's bytes:
    `outside_reader`; nor the caller, through a function argument: `caller_argument`);
    and no step of the group may write bytes the prologue reads (its programs run at
    once). `prologue` need not stand in the group yet (the
    `gemv-prologue` pass asks before it moves the launch there). The epilogue is the
    group's, or `epilogue` where given: a launch the `gemv-epilogue` pass asks about
    before it moves it in after the members.
    """
    from lumir.dialects.hl.fused import body_problem
    from lumir.dialects.hl.row_program import row_program

    problems: list[str] = []
    members = group.members()
    values = [*(member.b for member in members), *prologue.inputs, *prologue.outputs]
    if not members or not all(isinstance(value.type, MemRefType) for value in values):
        return problems  # the ops' own verifiers say what is wrong
    b = members[0].b
    k = buffer_elements(b)
    if len(prologue.outputs) != 1:
        return [f"prologue: it has {len(prologue.outputs)} outputs; one, the members' B, runs"]
    (output,) = prologue.outputs
    if byte_range(output) != byte_range(b) or element_of(output) != element_of(b):
        problems.append("prologue: its output must be the members' B, whole (the same bytes)")
    block = prologue.body.block
    typed = [tensor_of(value.type) for value in (*prologue.inputs, *prologue.outputs)]  # type: ignore[arg-type]
    split = len(prologue.inputs)
    try:
        for op in block.ops:
            op.verify()
    except VerifyException:
        return problems  # the body's ops say what is wrong with them, located
    if body_problem(block, typed[:split], typed[split:]) is not None:
        return problems  # the launch's own verifier says what is wrong with its body
    terminator = block.last_op
    ops = [op for op in block.ops if op is not terminator]
    try:
        program = row_program(ops, list(block.args), list(terminator.operands))  # type: ignore[union-attr]
    except ValueError:
        program = None
    if program is None or math.prod(program.lead) != 1 or program.hidden != k:
        problems.append(f"prologue: its body must compute one row of {k} elements")
    for index, member in enumerate(members):
        complete = member.complete_plan()
        if complete is None:
            continue
        desc = complete[1]
        if vector_step(desc) != 1:
            problems.append(f"prologue: {_member_name(index, member)} reads B with a step")
        block_k = gemv_config(desc.m, desc.k)[1]
        if block_k < k:
            problems.append(
                f"prologue: {_member_name(index, member)} sums its row in blocks of "
                f"{block_k} columns; a prologue needs the whole row ({k}) in one"
            )
    if epilogue is None:
        epilogue = group.epilogue()
    steps = [prologue] if epilogue is None else [prologue, epilogue]
    written = [] if epilogue is None else epilogue.outputs
    outside = outside_reader(group, output, steps, written)
    if outside is not None:
        problems.append(
            f"prologue: {outside.name} outside the group reads its output, which the "
            f"group's kernel does not write"
        )
    argument = caller_argument(output)
    if argument is not None:
        problems.append(
            f"prologue: its output is in the bytes of argument {argument}, which the caller "
            f"reads and the group's kernel does not write"
        )
    for index, member in enumerate(members):
        for role, value in member.read_operands():
            if role != "B" and overlap(value, output):
                problems.append(
                    f"prologue: {_member_name(index, member)} reads its output as {role}; "
                    f"the group's kernel holds it in registers only, as the members' B"
                )
    if epilogue is not None and any(overlap(value, output) for value in epilogue.inputs):
        problems.append(
            "prologue: the epilogue reads its output, which the group's kernel does not write"
        )
    written = [member.d for member in members]
    if epilogue is not None:
        written += list(epilogue.outputs)
    for index, value in enumerate(prologue.inputs):
        if any(overlap(value, other) for other in written):
            problems.append(
                f"prologue: input {index} shares bytes with what the group writes; the "
                f"programs that read it run beside the ones that write"
            )
    return problems
