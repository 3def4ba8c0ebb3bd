"""The load phase of a program: walk a lowered function once, allocating and binding.

- allocate every buffer once (inputs, `cublaslt_rt.alloc`s, constants filled with their
  literal; a `cublaslt_rt.view` is a byte slice of its root buffer, no allocation);
- build every plan from its `cublaslt_rt.plan` and the real buffers
  (`lumir.runtime.plans`);
- bind every `cublaslt_rt.launch` to its torch kernel writing straight into a typed view
  of its output buffer (`hl_torch.bind_into_kernel`; a permuted, strided view where the
  launch has `input_permutations` / `output_permutation`), and every
  `cublaslt_rt.fused_launch` to its body run op by op (CPU) or to its generated Triton
  kernel (CUDA, `lumir.runtime.fused_kernels`);
- build a `cublaslt_rt.matmul_group` as its members' plans run one after the other
  (CPU: exactly the ungrouped program) or as one grouped GEMV launch (CUDA,
  `lumir.runtime.gemv.GroupedGemvPlan`; with its epilogue, one generated kernel,
  `lumir.runtime.gemv_epilogue`), a `cublaslt_rt.launch_group` as its member launches
  one after the other (CPU) or as one grouped Triton launch (CUDA,
  `lumir.runtime.launch_group`), and a `cublaslt_rt.fused_group` as its member fused
  launches one after the other (CPU) or as one generated Triton kernel (CUDA,
  `lumir.runtime.fused_kernels.group_launch`);
- keep the result as a flat tuple of zero-argument launches, one per op that runs;
  except the trailing matmuls whose results are fresh outputs
  (`lumir.runtime.fresh_outputs`): their buffers are not allocated, their plans become
  the program's `tail`.

Nothing runs here, and everything that can fail on the user's program fails here, with
the location of the op at fault: the run phase (`lumir.runtime.program.Program`) does
no checking and no decoding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import cast

import torch
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue

from lumir.diagnostics import Diagnostic, LumirDiagnosticError, op_diagnostic
from lumir.dialects.cublaslt_rt import (
    IN_PLACE_KERNELS,
    AllocOp,
    ConstantOp,
    FusedGroupOp,
    FusedLaunchOp,
    LaunchGroupOp,
    LaunchOp,
    MatmulGroupOp,
    MatmulOp,
    ViewOp,
    Window,
    byte_range,
    epilogue_sources,
    inverse_permutation,
    overlap,
)
from lumir.runtime.buffers import (
    UnsupportedTypeError,
    byte_size,
    constant_tensor,
    new_buffer,
    shaped_type_parts,
    typed_view,
)
from lumir.runtime.fresh_outputs import FreshOutput
from lumir.runtime.fused_reference import bind_fused_body
from lumir.runtime.hl_torch import IntoKernel, UnknownKernelError, bind_into_kernel
from lumir.runtime.interpreter import Signature, signature
from lumir.runtime.pdl import NO_PDL, PdlMode, pdl_supported
from lumir.runtime.plans import (
    GroupFactory,
    IntoPlan,
    MatmulPlan,
    PlanExtras,
    PlanFactory,
    TailLaunch,
    close_plans,
    workspace_size,
)
from lumir.runtime.triton_launch import KernelCompileError, WarmUp, compile_ahead

Launch = Callable[[], object]
"""A zero-argument step of the run phase (the shape `CudaGraphProgram` captures)."""


@dataclass(frozen=True)
class LoadedFunction:
    """What loading a function made: a `Program`'s parts (`lumir.runtime.program`).

    `outputs` holds None at each result a `tail` step computes; `static` the argument
    indices bound to a caller's tensor at load time (read in place, not copied)."""

    name: str
    device: torch.device
    inputs: tuple[torch.Tensor, ...]
    outputs: tuple[torch.Tensor | None, ...]
    launches: tuple[Launch, ...]
    plans: tuple[MatmulPlan, ...]
    arguments: Signature
    static: frozenset[int]
    tail: tuple[TailLaunch, ...]


class Loader:
    """The load phase: walks the function once, allocating and binding as it goes."""

    def __init__(
        self,
        func: FuncOp,
        device: torch.device,
        plan_factory: PlanFactory,
        group_factory: GroupFactory,
        fresh: Sequence[FreshOutput] = (),
    ):
        self.func = func
        self.device = device
        self.plan_factory = plan_factory
        self.group_factory = group_factory
        self.buffers: dict[SSAValue, torch.Tensor] = {}
        self.launches: list[Launch] = []
        self.plans: list[MatmulPlan] = []
        self.fresh = {output.matmul: output for output in fresh}
        self.fresh_roots = {output.root for output in fresh}
        self.tail: list[TailLaunch] = []
        self.warm_ups: list[WarmUp] = []
        """What compiles each Triton kernel the program launches, without launching it
        (`lumir.runtime.triton_launch`): run together, in threads, when loading ends."""
        pdl = device.type == "cuda" and pdl_supported(device.index or 0)
        # Every Triton launch is dependent where PDL is supported. A GEMV could also
        # read its weight before the wait (`PdlMode.prefetch_weight`), but on the H200 that
        # made a decode layer's GEMVs slower (`bench/gemv_sweep.py --pdl`), so it does not.
        self.pdl = PdlMode(dependent=True) if pdl else NO_PDL

    def load(self) -> LoadedFunction:
        func = self.func
        args = func.body.block.args
        static = frozenset(index for index, arg in enumerate(args) if arg in self.buffers)
        inputs = [
            self._view(arg, self.buffers[arg] if arg in self.buffers else self._new(func, arg))
            for arg in args
        ]
        outputs: list[torch.Tensor | None] | None = None
        fresh = {output.result for output in self.fresh.values()}
        for op in func.body.block.ops:
            if isinstance(op, ReturnOp):
                outputs = [
                    None if index in fresh else self._view(value, self.buffers[value])
                    for index, value in enumerate(op.arguments)
                ]
                break
            self._load_op(op)
        if outputs is None:
            raise LumirDiagnosticError([op_diagnostic(func, "the function has no func.return")])
        try:
            compile_ahead(self.warm_ups)
        except KernelCompileError:
            close_plans(self.plans)  # nothing will run them
            raise
        return LoadedFunction(
            func.sym_name.data,
            self.device,
            tuple(inputs),
            tuple(outputs),
            tuple(self.launches),
            tuple(self.plans),
            signature(func),
            static,
            tuple(self.tail),
        )

    def _new(self, op: Operation, value: SSAValue) -> torch.Tensor:
        """A fresh buffer for `value`, which must be a buffer type the runtime knows."""
        if not isinstance(value.type, MemRefType):
            raise LumirDiagnosticError(
                [
                    op_diagnostic(
                        op,
                        f"expected a lowered function on buffers, found {value.type}; run "
                        f"lower-to-cublaslt-rt (or lumir-pipeline) first",
                    )
                ]
            )
        try:
            shape, dtype = shaped_type_parts(value.type)
        except UnsupportedTypeError as error:
            raise LumirDiagnosticError([op_diagnostic(op, str(error))]) from None
        buffer = new_buffer(byte_size(shape, dtype), self.device)
        self.buffers[value] = buffer
        return buffer

    def _view(self, value: SSAValue, buffer: torch.Tensor) -> torch.Tensor:
        shape, dtype = shaped_type_parts(value.type)
        return typed_view(buffer, shape, dtype)

    def _load_op(self, op: Operation) -> None:
        if isinstance(op, AllocOp | ViewOp) and byte_range(op.results[0])[0] in self.fresh_roots:
            return  # a fresh output's buffer, or a view of it: allocated per call
        if isinstance(op, AllocOp):
            self._new(op, op.memref)
        elif isinstance(op, ConstantOp):
            buffer = self._new(op, op.memref)
            self._view(op.memref, buffer).copy_(constant_tensor(op.value))
        elif isinstance(op, ViewOp):
            _, start, end = byte_range(op.result)
            root, _, _ = byte_range(op.source)
            self.buffers[op.result] = self.buffers[root][start:end]
        elif isinstance(op, MatmulOp):
            self._load_matmul(op)
        elif isinstance(op, MatmulGroupOp):
            self._load_group(op)
        elif isinstance(op, LaunchOp):
            self._load_launch(op)
        elif isinstance(op, LaunchGroupOp):
            self._load_launch_group(op)
        elif isinstance(op, FusedLaunchOp):
            self._load_fused(op)
        elif isinstance(op, FusedGroupOp):
            self._load_fused_group(op)
        else:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"the runtime cannot execute '{op.name}' (not lowered IR?)")]
            )

    def _load_matmul(self, op: MatmulOp) -> None:
        fresh = self.fresh.get(op)
        if fresh is not None:
            self._load_tail(op, fresh)
            return
        built = self._matmul_plan(op)
        self.plans.append(built)
        self._append(built.run, getattr(built, "warm_up", None))

    def _append(self, launch: Launch, warm_up: WarmUp | None = None) -> None:
        """A step of the run phase, and what compiles its Triton kernel ahead, if any."""
        self.launches.append(launch)
        if warm_up is not None:
            self.warm_ups.append(warm_up)

    def _load_tail(self, op: MatmulOp, fresh: FreshOutput) -> None:
        """A fresh output's matmul, as a step of the tail. Its plan is built on a D
        buffer of the right size that is dropped once the plan is (a plan is built on
        real buffers: the cuBLASLt heuristic reads D's alignment, the reference checks
        D's reach), so the program holds no buffer for the result."""
        shape, dtype = shaped_type_parts(fresh.returned.type)
        planning = torch.empty(byte_size(shape, dtype), dtype=torch.uint8, device=self.device)
        plan = cast(IntoPlan, self._matmul_plan(op, planning))
        plan.unbind_d()
        self.plans.append(plan)
        self.tail.append(TailLaunch(fresh.result, plan, shape, dtype, self.device))

    def _load_group(self, op: MatmulGroupOp) -> None:
        members = op.members()
        _refuse_member_overlaps(op, [([v for _, v in m.read_operands()], [m.d]) for m in members])
        plans = [self._matmul_plan(member) for member in members]
        prologue, epilogue = op.prologue(), op.epilogue()
        if prologue is not None or epilogue is not None:
            if self.device.type != "cuda":
                self._load_steps(prologue, plans, epilogue)
            else:
                self._load_group_kernel(op, prologue, plans, epilogue)
            return
        try:
            built = self.group_factory(plans)
        except (RuntimeError, ValueError) as error:
            raise LumirDiagnosticError([op_diagnostic(op, f"'{op.name}': {error}")]) from None
        self.plans.append(built)
        self._append(built.run, getattr(built, "warm_up", None))

    def _load_steps(
        self,
        prologue: FusedLaunchOp | None,
        plans: list[MatmulPlan],
        epilogue: FusedLaunchOp | None,
    ) -> None:
        """A group with a prologue or an epilogue on the CPU: the prologue, the members,
        then the epilogue, one after the other, as the ungrouped program runs them."""
        steps: list[Launch] = []
        if prologue is not None:
            self._load_fused(prologue)
            steps.append(self.launches.pop())
        steps += [plan.run for plan in plans]
        if epilogue is not None:
            self._load_fused(epilogue)
            steps.append(self.launches.pop())
        self.plans.extend(plans)
        self.launches.append(_in_order(steps))

    def _load_group_kernel(
        self,
        op: MatmulGroupOp,
        prologue: FusedLaunchOp | None,
        plans: list[MatmulPlan],
        epilogue: FusedLaunchOp | None,
    ) -> None:
        """A group with a prologue or an epilogue on CUDA: one generated kernel over the
        members' GEMV calls (`lumir.runtime.gemv_prologue`, `lumir.runtime.gemv_epilogue`),
        which writes neither the prologue's output nor, with an epilogue, the members' D."""
        from lumir.runtime.gemv import GemvPlan
        from lumir.runtime.gemv_epilogue import GemvEpiloguePlan
        from lumir.runtime.gemv_prologue import GemvProloguePlan

        sources: list[int] = []
        outputs: list[torch.Tensor] = []
        if epilogue is not None:
            sources = cast(list[int], epilogue_sources(op, epilogue))  # verified: no None
            outputs = [self._view(value, self.buffers[value]) for value in epilogue.outputs]
        built: GemvEpiloguePlan | GemvProloguePlan
        try:
            calls = [cast(GemvPlan, plan).operands for plan in plans]
            if prologue is None:
                assert epilogue is not None
                built = GemvEpiloguePlan(calls, epilogue.body.block, sources, outputs, self.pdl)
            else:
                inputs, _ = self._fused_buffers(prologue)
                built = GemvProloguePlan(
                    calls,
                    prologue.body.block,
                    inputs,
                    None if epilogue is None else epilogue.body.block,
                    sources,
                    outputs,
                    self.pdl,
                )
        except (RuntimeError, ValueError, AttributeError, ImportError) as error:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"cannot build the GEMV group's kernel: {error}")]
            ) from None
        self.plans.append(built)
        self._append(built.run, built.warm_up)

    def _matmul_plan(self, op: MatmulOp, d: torch.Tensor | None = None) -> MatmulPlan:
        """The plan of one matmul, built on its buffers, or on `d` for D where given
        (errors located at the op)."""
        _refuse_overlap(op, op.d, [op.a, op.b, *([op.bias] if op.bias is not None else [])])
        plan = op.plan_op()
        if plan is None:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"no cublaslt_rt.plan named {op.plan} in the module")]
            )
        extras = PlanExtras(
            c=self.buffers[op.c] if op.c is not None else None,
            bias=self.buffers[op.bias] if op.bias is not None else None,
            bias_dtype=plan.bias_data_type(),
            workspace_size=workspace_size(plan),
            algorithm=plan.algorithm.data,
            pdl=self.pdl,
        )
        try:
            return self.plan_factory(
                plan.descriptor(),
                self.buffers[op.a],
                self.buffers[op.b],
                self.buffers[op.d] if d is None else d,
                extras,
            )
        except (RuntimeError, ValueError) as error:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"'{op.name}' {op.plan}: {error}")]
            ) from None

    def _load_launch(self, op: LaunchOp) -> None:
        launch, _, _, warm_up = self._bind_launch(op)
        self._append(launch, warm_up)

    def _bind_launch(
        self, op: LaunchOp
    ) -> tuple[Launch, list[torch.Tensor], torch.Tensor, WarmUp | None]:
        """The launch of `op`, the input and output tensors it runs on, and the warm-up
        of its kernel where it is a Triton kernel (`lumir.runtime.triton_launch`)."""
        # A kernel of IN_PLACE_KERNELS may update its first input in place (the verifier
        # allows exactly that); every other input must not overlap the output.
        in_place = op.kernel.data in IN_PLACE_KERNELS and op.inputs and op.inputs[0] is op.output
        _refuse_overlap(op, op.output, list(op.inputs[1:] if in_place else op.inputs))
        kernel_name = op.kernel.data
        inputs = [
            _windowed(self._view(value, self.buffers[value]), window).permute(permutation)
            for value, window, permutation in zip(
                op.inputs, op.read_windows(), op.read_permutations(), strict=True
            )
        ]
        # The output buffer holds transpose(result, q): the result is written through
        # the buffer viewed by q's inverse (a strided view; the identity when q is).
        written = inverse_permutation(op.write_permutation())
        output = self._view(op.output, self.buffers[op.output]).permute(written)
        try:
            params = op.kernel_params()
            kernel, _ = bind_into_kernel(kernel_name, params, inputs, output, self.pdl)
        except UnknownKernelError:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f'the runtime has no kernel for "{kernel_name}"')]
            ) from None
        failure = op_diagnostic(op, f'kernel "{kernel_name}" failed')
        kernel_warm_up = getattr(kernel, "warm_up", None)
        warm_up = None if kernel_warm_up is None else lambda: kernel_warm_up(output, *inputs)
        return _kernel_launch(kernel, inputs, output, failure), inputs, output, warm_up

    def _load_launch_group(self, op: LaunchGroupOp) -> None:
        """The members one by one on the CPU (the ungrouped program exactly); on CUDA one
        grouped Triton launch (`lumir.runtime.launch_group`)."""
        members = op.members()
        _refuse_member_overlaps(op, [(list(m.inputs), [m.output]) for m in members])
        bound = [self._bind_launch(member) for member in members]
        if self.device.type != "cuda":
            self.launches.append(_in_order([launch for launch, _, _, _ in bound]))
            return
        from lumir.runtime.launch_group import LaunchGroupError, Member, grouped_launch

        dim = members[0].kernel_params().get("dim")
        try:
            launch = grouped_launch(
                op.kernel(),
                [Member(out, tuple(ins)) for _, ins, out, _ in bound],
                dim.value.data if isinstance(dim, IntegerAttr) else 0,
                self.pdl,
            )
        except (LaunchGroupError, ImportError) as error:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"cannot build the grouped launch: {error}")]
            ) from None
        self._append(launch, getattr(launch, "warm_up", None))

    def _load_fused_group(self, op: FusedGroupOp) -> None:
        """The members one by one on the CPU (the ungrouped program exactly); on CUDA one
        launch of one generated kernel (`fused_kernels.group_launch`)."""
        members = op.members()
        _refuse_member_overlaps(op, [(list(m.inputs), list(m.outputs)) for m in members])
        bound = [self._fused_buffers(member) for member in members]
        if self.device.type != "cuda":
            failures = [op_diagnostic(member, "fused kernel failed") for member in members]
            launches = [
                _fused_reference_launch(member, inputs, outputs, failure)
                for member, (inputs, outputs), failure in zip(members, bound, failures, strict=True)
            ]
            self.launches.append(_in_order(launches))
            return
        from lumir.runtime.fused_kernels import group_launch

        try:
            launch = group_launch(
                [member.body.block for member in members],
                [inputs for inputs, _ in bound],
                [outputs for _, outputs in bound],
                self.pdl,
            )
        except (RuntimeError, ImportError) as error:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"cannot build the grouped fused kernel: {error}")]
            ) from None
        self._append(launch, launch.warm_up)

    def _fused_buffers(self, op: FusedLaunchOp) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """The typed views a fused launch reads and writes, its overlaps refused (an
        output may only overwrite exactly an input, as `may_overwrite` allows)."""
        for output in op.outputs:
            read = [
                value
                for value in op.inputs
                if not (byte_range(value) == byte_range(output) and op.may_overwrite(output, value))
            ]
            _refuse_overlap(op, output, read)
        inputs = [self._view(value, self.buffers[value]) for value in op.inputs]
        outputs = [self._view(value, self.buffers[value]) for value in op.outputs]
        return inputs, outputs

    def _load_fused(self, op: FusedLaunchOp) -> None:
        inputs, outputs = self._fused_buffers(op)
        failure = op_diagnostic(op, "fused kernel failed")
        if self.device.type == "cuda":
            from lumir.runtime.fused_kernels import triton_launch

            try:
                launch = triton_launch(op.body.block, inputs, outputs, self.pdl)
            except (RuntimeError, ImportError) as error:
                raise LumirDiagnosticError(
                    [op_diagnostic(op, f"cannot build the fused kernel: {error}")]
                ) from None
            self._append(launch, launch.warm_up)
            return
        self.launches.append(_fused_reference_launch(op, inputs, outputs, failure))


def _fused_reference_launch(
    op: FusedLaunchOp,
    inputs: list[torch.Tensor],
    outputs: list[torch.Tensor],
    failure: Diagnostic,
) -> Launch:
    """A fused kernel on the CPU executor: its body op by op, then each result copied out."""
    body = bind_fused_body(op.body.block)

    def launch() -> None:
        try:
            results = body(*inputs)
        except (RuntimeError, IndexError) as error:
            message = f"{failure.message}: {error}"
            raise LumirDiagnosticError([replace(failure, message=message)]) from error
        for output, result in zip(outputs, results, strict=True):
            output.copy_(result)

    return launch


def _in_order(launches: Sequence[Launch]) -> Launch:
    """One step that runs `launches` one after the other (a group on the CPU)."""
    steps = tuple(launches)

    def launch() -> None:
        for step in steps:
            step()

    return launch


def _windowed(tensor: torch.Tensor, window: Window | None) -> torch.Tensor:
    """`tensor` read through a launch's input window (`cublaslt_rt.Window`): a slice of
    its last dimension split into the window's shape, a strided view (no copy)."""
    if window is None:
        return tensor
    return tensor[..., window.start : window.end].view(window.shape)


def _refuse_overlap(op: Operation, written: SSAValue, read: Sequence[SSAValue]) -> None:
    """A kernel may not write bytes it reads (views make that possible in verified IR)."""
    for value in read:
        if overlap(written, value):
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"'{op.name}' writes bytes it also reads (through a view)")]
            )


def _refuse_member_overlaps(
    op: Operation, members: Sequence[tuple[list[SSAValue], list[SSAValue]]]
) -> None:
    """A group's members (each its reads and writes) run at once: none may write bytes
    another reads or writes (what the group's verifier says, views resolved)."""
    for index, (_, writes) in enumerate(members):
        others = [m for i, m in enumerate(members) if i != index]
        touched = [v for reads, _ in others for v in reads]
        touched += [v for _, other_writes in others[index:] for v in other_writes]
        for written in writes:
            _refuse_overlap(op, written, touched)


def _kernel_launch(
    kernel: IntoKernel,
    inputs: list[torch.Tensor],
    output: torch.Tensor,
    failure: Diagnostic,
) -> Launch:
    """One non-GEMM launch: the kernel on the input views, writing into the output view.

    The kernel writes the output buffer itself (`bind_into_kernel`), so a launch is one
    torch call with no copy behind it. torch reports a kernel it cannot run (only
    possible for IR that skipped the verifier) as a RuntimeError; it is re-raised
    located at the launch op.
    """

    def launch() -> None:
        try:
            kernel(output, *inputs)
        except (RuntimeError, IndexError) as error:
            message = f"{failure.message}: {error}"
            raise LumirDiagnosticError([replace(failure, message=message)]) from error

    return launch
