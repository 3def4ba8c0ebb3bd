"""Load a lowered (`cublaslt_rt`) function for a device and run it on torch tensors.

Loading and running are separate phases, as they are for cuBLASLt itself:

- load: allocate every buffer once (inputs, `cublaslt_rt.alloc`s, constants filled with
  their literal; a `cublaslt_rt.view` is a byte slice of its root buffer, no
  allocation), build every plan from its `cublaslt_rt.plan` and the real buffers
  (`ReferenceGemmPlan` on CPU, the CUDA engineer's `CublasLtMatmulPlan` on CUDA), bind
  every `cublaslt_rt.launch` to its torch kernel writing straight into a typed view of
  its output buffer (`hl_torch.bind_into_kernel`; a permuted, strided view where the
  launch has `input_permutations` / `output_permutation`), bind every `cublaslt_rt.fused_launch`
  to its body run op by op (CPU) or to its generated Triton kernel (CUDA,
  `lumir.runtime.fused_kernels`), build a `cublaslt_rt.matmul_group` as its members'
  plans run one after the other (CPU: exactly the ungrouped program) or as one grouped
  GEMV launch (CUDA, `lumir.runtime.gemv.GroupedGemvPlan`), a `cublaslt_rt.launch_group`
  as its member launches one after the other (CPU) or as one grouped Triton launch
  (CUDA, `lumir.runtime.launch_group`), a `cublaslt_rt.fused_group` as its member
  fused launches one after the other (CPU) or as one generated Triton kernel (CUDA,
  `lumir.runtime.fused_kernels.group_launch`), and keep the result as a
  flat tuple of zero-argument launches, one per op that runs; except the trailing
  matmuls whose results are fresh outputs (`lumir.runtime.fresh_outputs`): their
  buffers are not allocated, their plans become the program's `tail`;
- run: copy the caller's tensors into the static input buffers, call the launches in
  order (on CUDA: replay the CUDA graph they were captured into during the first run),
  run the tail into tensors allocated for this call, and return those as they are and
  copies of the other output buffers.

Nothing runs at load time. A program may write a caller's tensor in place (a KV cache
bound by address, `lumir.backend.in_place`), and at load time its input buffers hold
no call's values yet: running it then (as a warm-up before capture) would write
garbage into the caller's cache, or index it out of bounds. So the first run is the
warm-up: it runs the launches on its real inputs, then captures them without running
them again.

Everything that can fail on the user's program fails at load time, with the location of
the op at fault; the run phase does no checking and no decoding.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, cast

import torch
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue

from lumir.cublaslt_enums import DataType
from lumir.diagnostics import Diagnostic, LumirDiagnosticError, op_diagnostic
from lumir.dialects.cublaslt import MatmulDescriptor
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
    PlanOp,
    ViewOp,
    Window,
    byte_range,
    epilogue_sources,
    inverse_permutation,
    overlap,
)
from lumir.runtime.binding import bind_static_inputs, tensor_bytes
from lumir.runtime.buffers import (
    UnsupportedTypeError,
    byte_size,
    constant_tensor,
    new_buffer,
    shaped_type_parts,
    typed_view,
)
from lumir.runtime.fresh_outputs import FreshOutput, find_fresh_outputs
from lumir.runtime.fused_reference import bind_fused_body
from lumir.runtime.hl_torch import IntoKernel, UnknownKernelError, bind_into_kernel
from lumir.runtime.interpreter import Signature, check_inputs, find_function, signature
from lumir.runtime.limits import check_function_sizes
from lumir.runtime.pdl import NO_PDL, PdlMode, pdl_supported
from lumir.runtime.reference_gemm import ReferenceGemmPlan
from lumir.runtime.triton_launch import WarmUp, compile_ahead

if TYPE_CHECKING:
    from lumir.runtime.cuda_graph import CudaGraphProgram

Launch = Callable[[], object]
"""A zero-argument step of the run phase (the shape `CudaGraphProgram` captures)."""


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
    [MatmulDescriptor, torch.Tensor, torch.Tensor, torch.Tensor, "_PlanExtras"], MatmulPlan
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
        for plan in self.plans:
            close = getattr(plan, "close", None)
            if close is not None:
                close()


@dataclass(frozen=True)
class _PlanExtras:
    c: torch.Tensor | None
    bias: torch.Tensor | None
    bias_dtype: DataType | None
    workspace_size: int
    algorithm: str = "heuristic"
    pdl: PdlMode = NO_PDL


class Program:
    """A lowered function loaded for one device, callable on torch tensors.

    `program(*inputs)` takes the inputs in the function's argument order, with exactly
    its argument shapes and dtypes (on any device; they are copied into the program's
    static input buffers), leaving out the arguments bound at load time
    (`static_inputs`, read in place from the caller's tensors), and returns the single
    result, or a tuple when the function returns zero or several. A program owns its
    buffers: calls are sequential, never concurrent.

    Attributes:
        name: the function's name.
        device: where the buffers live and the launches run.
        launches: the run phase over the program's buffers, in order (what a CUDA graph
            captures).
        tail: the matmuls of the fresh outputs, run after `launches` on every call.
        fresh_outputs: the results `tail` computes into a tensor of the call's own,
            returned without a copy.
        plans: the matmul plans built at load time, in IR order.
    """

    def __init__(
        self,
        name: str,
        device: torch.device,
        inputs: Sequence[torch.Tensor],
        outputs: Sequence[torch.Tensor],
        launches: Sequence[Launch],
        plans: Sequence[MatmulPlan],
        arguments: Signature,
        static: frozenset[int] = frozenset(),
        tail: Sequence[TailLaunch] = (),
    ) -> None:
        """`outputs` holds None at each result a `tail` step computes."""
        self.name = name
        self.device = device
        self.launches = tuple(launches)
        self.tail = tuple(tail)
        self.fresh_outputs = frozenset(step.result for step in self.tail)
        self.plans = tuple(plans)
        self._inputs = tuple(inputs)
        self._outputs = tuple(outputs)
        self._arguments = arguments
        self.static = static
        self._copied = tuple(i for i in range(len(self._inputs)) if i not in static)
        self._targets = tuple(self._inputs[i] for i in self._copied)
        self._graph: CudaGraphProgram | None = None
        self._capture_pending = False
        self._closed = False
        self.lock = threading.Lock()
        """Held by a call from its input copies to its output copies: the buffers are
        the program's, so calls from several threads take turns (`__call__` takes it;
        a caller of `run_unchecked` takes it around the run and its copies)."""
        self._stream: int | None = None
        """The raw CUDA stream of the last call (CUDA programs)."""

    @property
    def closed(self) -> bool:
        """Whether `close` released the program (it cannot be called again)."""
        return self._closed

    def capture(self) -> None:
        """Replay one CUDA graph of the launches from the next run on (CUDA only).

        The graph is captured during that run: its launches run once on the run's
        inputs (the warm-up capture needs, and the run's result), then are captured
        without running (module docstring: nothing runs before a call's inputs are
        in place). Should capture itself fail, the warm-up's result stands and the
        program keeps running launch by launch, with a `GraphCaptureWarning`.
        """
        if self.device.type != "cuda":
            raise ValueError(f"only CUDA programs can be captured, this one runs on {self.device}")
        self._capture_pending = self._graph is None

    @property
    def captured(self) -> bool:
        """Whether runs replay a captured CUDA graph (true from the first run on)."""
        return self._graph is not None

    def _execute(self) -> tuple[torch.Tensor, ...]:
        """Run the launches (replaying or capturing the graph) then the tail; the results."""
        if self._graph is not None:
            self._graph.replay()
        elif self._capture_pending and self.launches:  # a graph of nothing: nothing to do
            self._capture_pending = False
            try:
                self._graph = _warm_up_and_capture(self)
            except BaseException:
                self._capture_pending = True  # a call's bad input: capture at the next one
                raise
        else:
            for launch in self.launches:
                launch()
        if not self.tail:
            return self._outputs
        results = list(self._outputs)
        for step in self.tail:
            results[step.result] = step()
        return tuple(results)

    def __call__(self, *inputs: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        expected = tuple(self._arguments[i] for i in self._copied)
        check_inputs(f"program @{self.name}", expected, inputs)
        with self.lock:
            if self._closed:
                raise RuntimeError(f"program @{self.name} was closed")
            fresh = self.fresh_outputs
            results = tuple(
                output if index in fresh else output.clone()
                for index, output in enumerate(self.run_unchecked(inputs))
            )
        return results[0] if len(results) == 1 else results

    def run_unchecked(self, inputs: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """The hot path of `__call__` for callers that already fixed the inputs' shapes
        and dtypes (the backend's call plans): no checks, and the output buffers
        themselves are returned, not copies. The next run overwrites them, so a caller
        that keeps results must copy them out first; except the `fresh_outputs`, which
        are this call's own tensors already. A caller that may share the program with
        other threads holds `lock` from this call to the end of its copies.
        """
        if self.device.type == "cuda":
            self._follow_stream()
        for target, given in zip(self._targets, inputs, strict=True):
            target.copy_(given)
        return self._execute()

    def _follow_stream(self) -> None:
        """Order this call after the last one when it comes on another CUDA stream.

        Calls take turns on the host (`lock`), but the device runs each call's work on
        the stream current at the call: a thread of its own stream would otherwise
        copy its inputs into the buffers while another stream's replay still reads
        them. One raw-pointer read per call; `wait_stream` only on a change.
        """
        raw = _raw_current_stream(self.device)
        if self._stream is not None and raw != self._stream:
            previous = torch.cuda.ExternalStream(self._stream, device=self.device)
            torch.cuda.current_stream(self.device).wait_stream(previous)
        self._stream = raw

    def close(self) -> None:
        """Release the CUDA graph and the plans' cuBLASLt objects. Idempotent.

        A closed program cannot be called again; its buffers go with it. A call in
        progress on another thread finishes first.
        """
        with self.lock:
            self._close()

    def _close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None
        self._capture_pending = False
        for plan in self.plans:
            close = getattr(plan, "close", None)  # CUDA plans own cuBLASLt descriptors
            if close is not None:
                close()
        self._closed = True


_RAW_STREAM = getattr(torch._C, "_cuda_getCurrentRawStream", None)
"""torch's cheap read of the current stream's cudaStream_t (inductor's `get_raw_stream`)."""


def _raw_current_stream(device: torch.device) -> int:
    index = device.index if device.index is not None else torch.cuda.current_device()
    if _RAW_STREAM is not None:
        return int(_RAW_STREAM(index))
    return int(torch.cuda.current_stream(device).cuda_stream)


def load(
    module: ModuleOp | str,
    device: str | torch.device = "cpu",
    *,
    function: str | None = None,
    verify: bool = True,
    cuda_graph: bool = True,
    static_inputs: Mapping[int, torch.Tensor] | None = None,
    fresh_outputs: bool = True,
    autotune: bool | None = None,
) -> Program:
    """Load a lowered module's function for `device` ("cpu" or "cuda[:i]").

    Args:
        module: a `ModuleOp` or its text, at level 3 (the output of
            `lower-to-cublaslt-rt` or `lumir-pipeline`).
        device: the CPU reference executor ("cpu") or cuBLASLt on a GPU ("cuda").
        function: the function to load; by default the module's only one.
        verify: verify the module first. Only tests set this to False, to run a program
            the verifier would refuse (docs/design.md's bug) and watch it go wrong.
        cuda_graph: on CUDA, capture the launches into one CUDA graph during the first
            call and replay it on every later one (the default); False runs them one
            by one.
        static_inputs: argument index -> a tensor the argument is bound to by storage
            (`lumir.runtime.binding`): contiguous, exactly the argument's shape, dtype
            and device. The program reads it in place and `__call__` no longer takes it.
        fresh_outputs: compute the results that qualify (`lumir.runtime.fresh_outputs`:
            written by a trailing matmul and nothing else) into a tensor allocated per
            call and return it without a copy; False keeps a buffer for every result.
        autotune: on CUDA, run each cuBLASLt plan with the fastest of the heuristic's
            best answers, measured once per problem and cached on disk
            (`lumir.runtime.gemm_autotune`); None reads `LUMIR_AUTOTUNE` (off unless 1).

    Raises:
        LumirDiagnosticError: the module does not verify, a buffer is larger than
            `LUMIR_MAX_BUFFER_BYTES` (`lumir.runtime.limits`), or an op cannot be loaded
            (e.g. a plan whose layouts reach past their buffers), located at the op.
        DeviceUnavailableError: CUDA was asked for but torch or nvmath cannot provide it.
        StaticInputError: a static input does not fit its argument.
    """
    program, _ = _load(module, device, function, verify, static_inputs, fresh_outputs, autotune)
    if program.device.type == "cuda" and cuda_graph:
        program.capture()
    return program


def load_with_buffers(
    module: ModuleOp | str,
    device: str | torch.device = "cpu",
    *,
    function: str | None = None,
    verify: bool = True,
    static_inputs: Mapping[int, torch.Tensor] | None = None,
) -> tuple[Program, Mapping[SSAValue, torch.Tensor]]:
    """`load(..., cuda_graph=False)`, and the buffer (flat bytes) of every value of the
    function, keyed by the value of the module given (pass a `ModuleOp` to look them
    up). For tools that run `program.launches` one by one and read what each wrote
    (`lumir.testing.launch_diff`); a view's buffer is its byte slice of its root's.
    Every result keeps its buffer (no fresh outputs), so every value has one."""
    return _load(module, device, function, verify, static_inputs, fresh=False)


def _load(
    module: ModuleOp | str,
    device: str | torch.device,
    function: str | None,
    verify: bool,
    static_inputs: Mapping[int, torch.Tensor] | None,
    fresh: bool,
    autotune: bool | None = None,
) -> tuple[Program, Mapping[SSAValue, torch.Tensor]]:
    """Both loads: `fresh` says whether qualifying results become fresh outputs."""
    if isinstance(module, str):
        module = _parse(module)
    if verify:
        from lumir.diagnostics import verify_module

        problems = verify_module(module)
        if problems:
            raise LumirDiagnosticError(problems)
    func = find_function(module, function)
    check_function_sizes(func)  # before any buffer exists
    target = torch.device(device)
    group_factory: GroupFactory = PlansInOrder
    bind_workspace: Callable[[], None] | None = None
    if target.type == "cuda":
        factory, target, bind_workspace = _cuda_plan_factory(
            target, _largest_workspace(module), autotune
        )
        group_factory = _grouped_gemv_plan
    elif target.type == "cpu":
        factory = _cpu_plan
    else:
        raise DeviceUnavailableError(f"lumir runs programs on 'cpu' or 'cuda', not '{device}'")
    bound = bind_static_inputs(func, static_inputs or {}, target)
    tail = find_fresh_outputs(func) if fresh else ()
    loader = _Loader(func, target, factory, group_factory, tail)
    loader.buffers.update({func.body.block.args[i]: buffer for i, buffer in bound.items()})
    program = loader.load()
    if bind_workspace is not None:
        bind_workspace()
    return program, loader.buffers


class GraphCaptureWarning(RuntimeWarning):
    """A program's launches ran but could not be captured into a CUDA graph; the
    program runs them one by one (correct, with a launch's host cost each)."""


def _warm_up_and_capture(program: Program) -> CudaGraphProgram | None:
    """Run `program`'s launches once (this run's work) and capture them; `None`, with a
    warning, when only the capture failed."""
    from lumir.runtime.cuda_graph import CudaGraphProgram, GraphCaptureError

    try:
        return CudaGraphProgram(program.launches, device=program.device)
    except GraphCaptureError as error:
        warnings.warn(
            f"program @{program.name}: could not capture a CUDA graph, its launches run "
            f"one by one: {error.__cause__!r}",
            GraphCaptureWarning,
            stacklevel=4,
        )
        return None


def _parse(text: str) -> ModuleOp:
    from lumir.parsing import parse_module_text

    return parse_module_text(text, "<string>")


def _cpu_plan(
    desc: MatmulDescriptor,
    a: torch.Tensor,
    b: torch.Tensor,
    d: torch.Tensor,
    extras: _PlanExtras,
) -> MatmulPlan:
    return ReferenceGemmPlan(
        desc, a, b, d, c=extras.c, bias=extras.bias, bias_dtype=extras.bias_dtype
    )


def _grouped_gemv_plan(members: Sequence[MatmulPlan]) -> MatmulPlan:
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


def _largest_workspace(module: ModuleOp) -> int:
    sizes = [_workspace_size(op) for op in module.ops if isinstance(op, PlanOp)]
    return max(sizes, default=0)


def _cuda_plan_factory(
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
        extras: _PlanExtras,
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


class _Loader:
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

    def load(self) -> Program:
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
        compile_ahead(self.warm_ups)
        return Program(
            func.sym_name.data,
            self.device,
            inputs,
            outputs,
            self.launches,
            self.plans,
            signature(func),
            static,
            self.tail,
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
        epilogue = op.epilogue()
        if epilogue is not None:
            self._load_epilogue(op, epilogue, plans)
            return
        try:
            built = self.group_factory(plans)
        except (RuntimeError, ValueError) as error:
            raise LumirDiagnosticError([op_diagnostic(op, f"'{op.name}': {error}")]) from None
        self.plans.append(built)
        self._append(built.run, getattr(built, "warm_up", None))

    def _load_epilogue(
        self, op: MatmulGroupOp, epilogue: FusedLaunchOp, plans: list[MatmulPlan]
    ) -> None:
        """A group with its epilogue: on the CPU the members, then the fused launch, as
        the ungrouped program runs them; on CUDA one generated kernel over the members'
        GEMV calls (`lumir.runtime.gemv_epilogue`), which writes only the epilogue's
        results."""
        if self.device.type != "cuda":
            self.plans.extend(plans)
            self._load_fused(epilogue)
            body = self.launches.pop()
            self.launches.append(_in_order([*(plan.run for plan in plans), body]))
            return
        from lumir.runtime.gemv import GemvPlan
        from lumir.runtime.gemv_epilogue import GemvEpiloguePlan

        sources = cast(list[int], epilogue_sources(op, epilogue))  # verified: no None
        outputs = [self._view(value, self.buffers[value]) for value in epilogue.outputs]
        try:
            calls = [cast(GemvPlan, plan).operands for plan in plans]
            built = GemvEpiloguePlan(calls, epilogue.body.block, sources, outputs, self.pdl)
        except (RuntimeError, ValueError, AttributeError, ImportError) as error:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"cannot build the GEMV epilogue kernel: {error}")]
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
        extras = _PlanExtras(
            c=self.buffers[op.c] if op.c is not None else None,
            bias=self.buffers[op.bias] if op.bias is not None else None,
            bias_dtype=plan.bias_data_type(),
            workspace_size=_workspace_size(plan),
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


def _workspace_size(plan: PlanOp) -> int:
    return plan.workspace_size.value.data


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
