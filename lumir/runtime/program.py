"""Load a lowered (`cublaslt_rt`) function for a device and run it on torch tensors.

Loading and running are separate phases, as they are for cuBLASLt itself:

- load (`lumir.runtime.loader`): allocate every buffer once, build every matmul's plan
  on its real buffers (`lumir.runtime.plans`), bind every other launch to its kernel
  writing straight into its output buffer, and keep the run phase as a flat tuple of
  zero-argument launches, with the matmuls of fresh outputs as the program's `tail`;
- run (`Program`): copy the caller's tensors into the static input buffers, call the
  launches in order (on CUDA: replay the CUDA graph they were captured into during the
  first run), run the tail into tensors allocated for this call, and return those as
  they are and copies of the other output buffers.

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
from typing import TYPE_CHECKING

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from lumir.diagnostics import LumirDiagnosticError
from lumir.runtime.binding import bind_static_inputs
from lumir.runtime.fresh_outputs import find_fresh_outputs
from lumir.runtime.interpreter import Signature, check_inputs, find_function
from lumir.runtime.limits import check_function_sizes
from lumir.runtime.loader import Launch, LoadedFunction, Loader
from lumir.runtime.plans import (
    DeviceUnavailableError,
    GroupFactory,
    MatmulPlan,
    PlansInOrder,
    TailLaunch,
    close_plans,
    cpu_plan,
    cuda_plan_factory,
    grouped_gemv_plan,
    largest_workspace,
)

if TYPE_CHECKING:
    from lumir.runtime.cuda_graph import CudaGraphProgram


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

    @classmethod
    def from_loaded(cls, loaded: LoadedFunction) -> Program:
        """The program of a function the loader walked (`lumir.runtime.loader`)."""
        return cls(
            loaded.name,
            loaded.device,
            loaded.inputs,
            loaded.outputs,
            loaded.launches,
            loaded.plans,
            loaded.arguments,
            loaded.static,
            loaded.tail,
        )

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
        close_plans(self.plans)
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
        factory, target, bind_workspace = cuda_plan_factory(
            target, largest_workspace(module), autotune
        )
        group_factory = grouped_gemv_plan
    elif target.type == "cpu":
        factory = cpu_plan
    else:
        raise DeviceUnavailableError(f"lumir runs programs on 'cpu' or 'cuda', not '{device}'")
    bound = bind_static_inputs(func, static_inputs or {}, target)
    tail = find_fresh_outputs(func) if fresh else ()
    loader = Loader(func, target, factory, group_factory, tail)
    loader.buffers.update({func.body.block.args[i]: buffer for i, buffer in bound.items()})
    program = Program.from_loaded(loader.load())
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
