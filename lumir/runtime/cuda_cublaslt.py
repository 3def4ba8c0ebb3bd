"""One `cublaslt.matmul` on a CUDA device, through `nvmath.bindings.cublasLt`.

The CUDA executor turns each `cublaslt.matmul` of a lowered program into a
`CublasLtMatmulPlan`, built once from the op's `MatmulDescriptor` and the program's
actual buffers, then calls `plan.run()` on every execution (usually while a CUDA graph
is being captured, see `lumir.runtime.cuda_graph`). Everything that costs host time is
done when the plan is built: the operation descriptor, the four matrix layouts, the
preference and the heuristic's algorithm, so `run()` is a single `cublasLtMatmul` call
with prebuilt arguments.

API for the program executor:

    plan = CublasLtMatmulPlan(descriptor, a, b, d, c=None, bias=None)
    plan.run()              # on torch's current stream of the plan's device
    plan.run(stream)        # or on a given torch.cuda.Stream / raw cudaStream_t
    plan.run_into(d)        # D written into another buffer `d` (a fresh output)
    plan.close()            # or `with CublasLtMatmulPlan(...) as plan:`

Buffers are flat `torch.uint8` CUDA tensors of raw bytes (docs/conventions.md); the
plan reads and writes them through the descriptor's dtypes, orders and leading
dimensions exactly as cuBLASLt does, and keeps references to them so their addresses
stay valid. The plan is bound to those addresses: the heuristic's choice depends on
their alignment, so a new set of buffers needs a new plan (except D, which `run_into`
replaces per call by a buffer aligned at least as well). `operand_bytes()` tells the
executor how large each buffer must be.

nvmath is imported only when a plan or a handle is made, so lumir imports and runs on
machines without CUDA or nvmath; `cublaslt_available()` says whether this one has both.
"""

from __future__ import annotations

import contextlib
import importlib.util
import threading
from collections.abc import Callable
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING

import numpy as np
import torch

from lumir.cublaslt_enums import FORWARD_EPILOGUES, DataType, Operand
from lumir.dialects.cublaslt_rt import DEFAULT_WORKSPACE_SIZE
from lumir.operand_layout import MatrixLayout, matrix_layout
from lumir.runtime.gemm_autotune import TOP_K, AlgorithmTuner, problem_key, time_candidates
from lumir.runtime.padded_output import (
    padded_problem,
    shared_staging,
    stage_a,
    staged_a,
    unstage,
)
from lumir.verifier.type_table import SUPPORTED_ROWS

if TYPE_CHECKING:
    from lumir.dialects.cublaslt import MatmulDescriptor

#: Workspace given to every plan that is not handed one (the lowering's default too).
DEFAULT_WORKSPACE_BYTES = DEFAULT_WORKSPACE_SIZE

# cuBLASLt never asks for more than 256-byte alignment; larger powers of two add nothing.
_MAX_ALIGNMENT = 256

# Host scalars alpha and beta are read in the scale type (POINTER_MODE_HOST).
# The scale types are those of the type table; each one's numpy type is its dtype row's.
_SCALE_NUMPY = {
    row.scale_type: getattr(np, name)
    for row in SUPPORTED_ROWS
    if (name := row.scale_type.row.numpy_name) is not None
}


class CublasLtPlanError(RuntimeError):
    """cuBLASLt rejected a descriptor, or found no algorithm for it on this device."""


def cublaslt_available() -> bool:
    """True when nvmath is installed and torch sees a CUDA device.

    Looks nvmath up without importing it, so asking is cheap and loads no CUDA library.
    """
    if importlib.util.find_spec("nvmath") is None:
        return False
    return torch.cuda.is_available()


def _cublaslt() -> ModuleType:
    """nvmath's cuBLASLt binding, imported on first use (see the module docstring)."""
    try:
        from nvmath.bindings import cublasLt
    except ImportError as error:
        raise CublasLtPlanError(
            "lumir's CUDA executor needs nvmath-python (`pip install nvmath-python`)"
        ) from error
    return cublasLt


_handles: dict[int, int] = {}
_workspaces: dict[int, torch.Tensor] = {}
_lock = threading.Lock()


def _device_index(device: int | torch.device) -> int:
    if isinstance(device, int):
        return device
    if device.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {device}")
    return device.index if device.index is not None else torch.cuda.current_device()


def cublaslt_handle(device: int | torch.device) -> int:
    """The process's cuBLASLt handle for `device`, created on first use.

    A cuBLASLt handle holds no per-call state, so one per device serves every plan and
    stream. It lives as long as the process: destroying it at exit could race with the
    CUDA context's own teardown.
    """
    index = _device_index(device)
    with _lock:
        handle = _handles.get(index)
        if handle is None:
            with torch.cuda.device(index):
                handle = _cublaslt().create()
            _handles[index] = handle
        return handle


def shared_workspace(
    device: int | torch.device, nbytes: int = DEFAULT_WORKSPACE_BYTES
) -> torch.Tensor:
    """A workspace on `device` that plans share by default.

    Sharing is safe as long as the plans' calls are ordered, i.e. issued on one stream
    (or one CUDA graph), which is how the program executor runs them. A request for
    more bytes than the current shared workspace holds replaces it with a larger one;
    plans built earlier keep the old one alive through their own reference.
    """
    index = _device_index(device)
    with _lock:
        workspace = _workspaces.get(index)
        if workspace is None or workspace.numel() < nbytes:
            workspace = torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{index}")
            _workspaces[index] = workspace
        return workspace


def operand_bytes(descriptor: MatmulDescriptor, operand: Operand) -> int:
    """Bytes the buffer of `operand` must hold for `descriptor` (batches included)."""
    return matrix_layout(descriptor, operand).byte_extent()


def _alignment(address: int, layout: MatrixLayout) -> int:
    """The alignment in bytes that every batch's matrix of `layout` at `address` has.

    cuBLASLt assumes 256-byte-aligned pointers unless told otherwise; a buffer that is a
    view into a larger allocation may be aligned less, and a strided batch whose stride
    in bytes is not a multiple of the base alignment places later matrices on smaller
    boundaries, so both lower what the heuristic may assume.
    """
    value = address | _MAX_ALIGNMENT
    if layout.batch_count > 1 and layout.stride:
        value |= layout.stride * layout.dtype.byte_width
    return value & -value


def _check_buffer(name: str, buffer: torch.Tensor, nbytes: int) -> None:
    if buffer.dtype != torch.uint8 or buffer.dim() != 1 or not buffer.is_contiguous():
        raise ValueError(
            f"operand {name}: expected a flat contiguous torch.uint8 buffer, "
            f"got dtype {buffer.dtype} and shape {tuple(buffer.shape)}"
        )
    if buffer.numel() < nbytes:
        raise ValueError(
            f"operand {name}: the descriptor reaches {nbytes} bytes but the buffer holds "
            f"only {buffer.numel()}"
        )


def _device_context(device: torch.device) -> contextlib.AbstractContextManager[object]:
    """Make `device` current: cuBLASLt binds descriptors and handles to it."""
    return torch.cuda.device(device)


def _attribute_setter(
    set_attribute: Callable[[int, int, int, int], None],
    attribute_dtype: Callable[[int], type[np.generic]],
) -> Callable[[int, int, int], None]:
    """A setter for one of cuBLASLt's `*SetAttribute` calls that takes plain ints.

    cuBLASLt reads an attribute from a pointer and a size; nvmath knows each
    attribute's C type, so the value goes through a one-element array of that type.
    cuBLASLt copies the value, so the array need not outlive the call.
    """

    def set_value(obj: int, attribute: int, value: int) -> None:
        buffer = np.array([value], dtype=attribute_dtype(attribute))
        set_attribute(obj, attribute, buffer.ctypes.data, buffer.itemsize)

    return set_value


def _raw_stream(stream: torch.cuda.Stream | int | None, device: torch.device) -> int:
    """The cudaStream_t to issue on: torch's current stream of `device` by default."""
    if stream is None:
        return torch.cuda.current_stream(device).cuda_stream
    if isinstance(stream, int):
        return stream
    return stream.cuda_stream


# Where the C and D pointers and the workspace sit in a plan's prebuilt
# `cublasLtMatmul` arguments.
_C_POINTER = 8
_D_POINTER = 10
_WORKSPACE_POINTER = 13
_WORKSPACE_BYTES = 14


class CublasLtMatmulPlan:
    """A ready-to-launch `cublasLtMatmul` for one descriptor and one set of buffers.

    Computes `d = epilogue(alpha * op(a) op(b) + beta * c (+ bias))`. Building the plan
    makes the cuBLASLt operation descriptor, the four matrix layouts, the preference
    (workspace size and the alignments of the real pointers) and asks the heuristic for
    its best algorithm, raising `CublasLtPlanError` (with the descriptor in the message)
    when cuBLASLt rejects the descriptor or has no algorithm for it. `run()` then costs
    one cuBLASLt call.

    Args:
        descriptor: the `cublaslt.matmul`'s `MatmulDescriptor`.
        a, b, d: flat `torch.uint8` CUDA buffers of the operands and the result.
        c: C's buffer; may be None only when `descriptor.beta == 0`, in which case D's
            pointer and layout stand in for C's, since cuBLASLt requires a C layout
            even when it does not read C. C may be the same buffer as D (in place).
        bias: the bias vector's buffer (m elements); required exactly when the epilogue
            reads a bias.
        bias_dtype: the bias's element type; defaults to D's, which is cuBLASLt's own
            default. Outside FP8 cuBLASLt wants exactly D's type: 13.1 rejects a bf16
            bias with an f32 D (CUBLAS_STATUS_INVALID_VALUE).
        workspace: a flat `torch.uint8` CUDA buffer; defaults to `shared_workspace()`
            of the operands' device. Plans sharing a workspace must run in order on
            one stream.
        workspace_bytes: instead of `workspace`, only the most bytes the algorithm may
            use: the heuristic chooses as it would with a workspace of that size, and
            the plan holds none until `bind_workspace` gives it one of at least
            `algorithm_workspace_bytes` (a program binds one workspace sized by what
            its plans need, not by what they may use). Not with a `tuner`, which
            times the candidates in a real workspace.
        tuner: when given, the plan runs the fastest of the heuristic's best
            `gemm_autotune.TOP_K` answers, as the tuner's cache records it or measures
            it (`lumir.runtime.gemm_autotune`); else the heuristic's first answer.
        d_holds_nothing_yet: D (and C, where it is D's buffer) hold no value anyone
            will read before the plan's first run, as in a program being loaded: the
            tuner then times the candidates writing into D itself. Otherwise it
            writes into a scratch buffer of D's size, so no caller's data changes.
    """

    def __init__(
        self,
        descriptor: MatmulDescriptor,
        a: torch.Tensor,
        b: torch.Tensor,
        d: torch.Tensor,
        *,
        c: torch.Tensor | None = None,
        bias: torch.Tensor | None = None,
        bias_dtype: DataType | None = None,
        workspace: torch.Tensor | None = None,
        workspace_bytes: int | None = None,
        tuner: AlgorithmTuner | None = None,
        d_holds_nothing_yet: bool = False,
    ) -> None:
        self.descriptor = descriptor
        self._tuner = tuner
        self._d_holds_nothing_yet = d_holds_nothing_yet
        self.algorithm_rank = 0
        """Which of the heuristic's answers runs (0: its first; lumir.runtime.gemm_autotune)."""
        self._closed = True
        self._d_unbound = False
        self._matmul_desc = 0
        self._layouts: list[int] = []
        self._layout_values: list[MatrixLayout] = []
        self._preference = 0
        self._check_operands(a, b, c, d, bias, bias_dtype)
        self.bias_dtype = bias_dtype if bias_dtype is not None else descriptor.d_dtype
        self.device = d.device
        self.workspace: torch.Tensor | None = None
        """The workspace every call gets; None until `bind_workspace` where the plan
        was built with `workspace_bytes`."""
        if workspace_bytes is not None:
            if workspace is not None or tuner is not None:
                raise ValueError("workspace_bytes replaces a workspace, and a tuner needs one")
            if workspace_bytes < 0:
                raise ValueError(f"workspace_bytes = {workspace_bytes}, but it must be >= 0")
            self._workspace_budget = workspace_bytes
        else:
            self.workspace = workspace if workspace is not None else shared_workspace(d.device)
            self._check_workspace(self.workspace)
            self._workspace_budget = self.workspace.numel()
        # A problem whose m fills no whole 16-byte vectors runs padded: A staged with zero
        # rows, D computed into a staging buffer and copied out (lumir.runtime.padded_output).
        self.padded = padded_problem(descriptor, c is not None, bias is not None)
        staging = a_staged = None
        if self.padded is not None:
            staging = shared_staging(self.device, self.padded.d_layout.byte_extent())
            a_staged = staged_a(self.padded, self.device)
        # References keep the buffers, hence the addresses baked into the call, alive.
        self.buffers = {
            "a": a, "b": b, "c": c, "d": d, "bias": bias,
            "staging": staging, "a_staged": a_staged,
        }  # fmt: skip

        scale = _SCALE_NUMPY.get(descriptor.scale_type)
        if scale is None:
            raise CublasLtPlanError(
                f"scale type {descriptor.scale_type} has no host scalar type in lumir; "
                f"descriptor: {descriptor}"
            )
        # Host-pointer-mode scalars: cuBLASLt reads them when the call is issued (or
        # captured), so they must outlive every call; the plan holds them.
        self.alpha = np.array([descriptor.alpha], dtype=scale)
        self.beta = np.array([descriptor.beta], dtype=scale)

        lt = _cublaslt()
        self._lt = lt
        self._closed = False
        try:
            self._handle = cublaslt_handle(self.device)
            self._build(lt)
        except lt.cuBLASLtError as error:
            self.close()
            raise CublasLtPlanError(
                f"cuBLASLt rejected the matmul ({error}); descriptor: {descriptor}"
            ) from error
        except BaseException:
            self.close()
            raise

    @property
    def run_descriptor(self) -> MatmulDescriptor:
        """The problem cuBLASLt runs: the padded one where there is one, else the plan's."""
        return self.padded.descriptor if self.padded is not None else self.descriptor

    def _check_operands(
        self,
        a: torch.Tensor,
        b: torch.Tensor,
        c: torch.Tensor | None,
        d: torch.Tensor,
        bias: torch.Tensor | None,
        bias_dtype: DataType | None,
    ) -> None:
        """Reject what cuBLASLt would turn into a wrong answer or a bad memory access."""
        desc = self.descriptor
        if desc.epilogue not in FORWARD_EPILOGUES:
            raise CublasLtPlanError(
                f"epilogue {desc.epilogue} needs auxiliary buffers that lumir's CUDA "
                f"executor does not provide; descriptor: {desc}"
            )
        if c is None and desc.beta != 0:
            raise ValueError(f"beta = {desc.beta} reads C, but no C buffer was given")
        if (bias is not None) != desc.epilogue.reads_bias:
            wanted = "needs a" if desc.epilogue.reads_bias else "takes no"
            raise ValueError(f"epilogue {desc.epilogue} {wanted} bias buffer; descriptor: {desc}")
        operands = {Operand.A: a, Operand.B: b, Operand.C: c, Operand.D: d}
        for operand, buffer in operands.items():
            if buffer is not None:
                _check_buffer(operand.value, buffer, operand_bytes(desc, operand))
        if bias is not None:
            dtype = bias_dtype if bias_dtype is not None else desc.d_dtype
            _check_buffer("bias", bias, desc.m * dtype.byte_width)
        # Devices last, so the size checks above also run on machines without a GPU.
        for name, buffer in (*((op.value, t) for op, t in operands.items()), ("bias", bias)):
            if buffer is None:
                continue
            if not buffer.is_cuda:
                raise ValueError(
                    f"operand {name}: expected a CUDA buffer, got one on {buffer.device}"
                )
            if buffer.device != d.device:
                raise ValueError(f"operand {name} is on {buffer.device} but D is on {d.device}")

    def _build(self, lt: ModuleType) -> None:
        desc = self.run_descriptor
        with _device_context(self.device):
            self._matmul_desc = lt.matmul_desc_create(
                desc.compute_type.cuda_value, desc.scale_type.cuda_value
            )
            attr = lt.MatmulDescAttribute
            set_desc = _attribute_setter(
                lt.matmul_desc_set_attribute, lt.get_matmul_desc_attribute_dtype
            )
            set_desc(self._matmul_desc, attr.TRANSA, desc.transa.cuda_value)
            set_desc(self._matmul_desc, attr.TRANSB, desc.transb.cuda_value)
            set_desc(self._matmul_desc, attr.EPILOGUE, desc.epilogue.cuda_value)
            bias = self.buffers["bias"]
            if bias is not None:
                set_desc(self._matmul_desc, attr.BIAS_POINTER, bias.data_ptr())
                set_desc(self._matmul_desc, attr.BIAS_DATA_TYPE, self.bias_dtype.cuda_value)

            layouts = {op: matrix_layout(desc, op) for op in Operand}
            c_buffer = self.buffers["c"]
            if c_buffer is None:
                layouts[Operand.C] = layouts[Operand.D]
            handles = {op: self._make_layout(lt, layouts[op]) for op in Operand}

            staged = self.padded is not None
            d_buffer = self.buffers["staging"] if staged else self.buffers["d"]
            pointers = {
                Operand.A: self.buffers["a_staged" if staged else "a"].data_ptr(),
                Operand.B: self.buffers["b"].data_ptr(),
                Operand.C: (c_buffer if c_buffer is not None else d_buffer).data_ptr(),
                Operand.D: d_buffer.data_ptr(),
            }

            self._preference = lt.matmul_preference_create()
            pref = lt.MatmulPreferenceAttribute
            set_pref = _attribute_setter(
                lt.matmul_preference_set_attribute, lt.get_matmul_preference_attribute_dtype
            )
            set_pref(self._preference, pref.MAX_WORKSPACE_BYTES, self._workspace_budget)
            alignment_attrs = {
                Operand.A: pref.MIN_ALIGNMENT_A_BYTES,
                Operand.B: pref.MIN_ALIGNMENT_B_BYTES,
                Operand.C: pref.MIN_ALIGNMENT_C_BYTES,
                Operand.D: pref.MIN_ALIGNMENT_D_BYTES,
            }
            self.alignments = {op: _alignment(pointers[op], layouts[op]) for op in Operand}
            for op, alignment in self.alignments.items():
                set_pref(self._preference, alignment_attrs[op], alignment)

            wanted = TOP_K if self._tuner is not None else 1
            results = lt.MatmulHeuristicResult(wanted)
            count = np.zeros(1, dtype=np.int32)
            lt.matmul_algo_get_heuristic(
                self._handle,
                self._matmul_desc,
                handles[Operand.A],
                handles[Operand.B],
                handles[Operand.C],
                handles[Operand.D],
                self._preference,
                wanted,
                results.ptr,
                count.ctypes.data,
            )
            found = int(count[0])
            if found == 0:
                raise CublasLtPlanError(
                    f"cuBLASLt has no algorithm for the matmul on {self.device} with "
                    f"alignments {self._alignment_text()}; descriptor: {desc}"
                )
            if wanted == 1:
                self._heuristic = results
            else:
                self.algorithm_rank = self._tuned_rank(lt, results, found, handles, pointers)
                self._heuristic = results[self.algorithm_rank]
        self.algorithm_workspace_bytes = int(self._heuristic.workspace_size)

        # Everything but the stream is fixed: run() appends it and makes the call.
        self._call = lt.matmul
        self._arguments = self._matmul_arguments(pointers, handles, self._heuristic.ptr)

    def _matmul_arguments(
        self, pointers: dict[Operand, int], handles: dict[Operand, int], algorithm: int
    ) -> tuple[int, ...]:
        """`cublasLtMatmul`'s arguments but the stream, for these operand pointers and
        the algorithm at address `algorithm` (a heuristic result: its first field is its
        `cublasLtMatmulAlgo_t`)."""
        return (
            self._handle,
            self._matmul_desc,
            self.alpha.ctypes.data,
            pointers[Operand.A],
            handles[Operand.A],
            pointers[Operand.B],
            handles[Operand.B],
            self.beta.ctypes.data,
            pointers[Operand.C],
            handles[Operand.C],
            pointers[Operand.D],
            handles[Operand.D],
            algorithm,
            self.workspace.data_ptr() if self.workspace is not None else 0,
            self.workspace.numel() if self.workspace is not None else 0,
        )

    def _check_workspace(self, workspace: torch.Tensor) -> None:
        _check_buffer("workspace", workspace, 0)
        if workspace.device != self.device:
            raise ValueError(f"the workspace is on {workspace.device}, D on {self.device}")

    def bind_workspace(self, workspace: torch.Tensor) -> None:
        """Run every later call with `workspace`: a flat uint8 CUDA buffer on the plan's
        device holding at least the `algorithm_workspace_bytes` the chosen algorithm
        needs. Binding before the first run (or capture) is what a plan built with
        `workspace_bytes` requires; a CUDA graph that captured a call keeps the
        workspace it captured."""
        self._check_workspace(workspace)
        if workspace.numel() < self.algorithm_workspace_bytes:
            raise ValueError(
                f"the workspace holds {workspace.numel()} bytes; the plan's algorithm "
                f"needs {self.algorithm_workspace_bytes}"
            )
        self.workspace = workspace
        arguments = list(self._arguments)
        arguments[_WORKSPACE_POINTER] = workspace.data_ptr()
        arguments[_WORKSPACE_BYTES] = workspace.numel()
        self._arguments = tuple(arguments)

    def _check_ready(self, call: str) -> None:
        if self._closed:
            raise RuntimeError(f"{call} on a closed plan; descriptor: {self.descriptor}")
        if self.workspace is None and self.algorithm_workspace_bytes > 0:
            raise RuntimeError(
                f"{call} before bind_workspace: the algorithm needs "
                f"{self.algorithm_workspace_bytes} workspace bytes; descriptor: {self.descriptor}"
            )

    def _tuned_rank(
        self,
        lt: ModuleType,
        results: object,
        found: int,
        handles: dict[Operand, int],
        pointers: dict[Operand, int],
    ) -> int:
        """The tuner's pick among the heuristic's `found` answers. A, B, C and the bias
        are only read; D is written, in place when it holds nothing yet, else into a
        scratch buffer of its size (read as C too where C is D)."""
        assert self._tuner is not None
        candidates = [results[i]["algo"].tobytes() for i in range(found)]  # type: ignore[index]
        key = problem_key(
            f"{torch.cuda.get_device_name(self.device)} "
            f"sm{''.join(map(str, torch.cuda.get_device_capability(self.device)))}",
            int(lt.get_version()),
            self.run_descriptor,
            self.alignments,
            self._workspace_budget,
            self.bias_dtype,
        )

        def measure() -> list[float]:
            d = self.buffers["d"]
            if self.buffers["staging"] is not None:  # written before every copy-out anyway
                scratch = self.buffers["staging"]
            elif self._d_holds_nothing_yet:
                scratch = d
            else:
                scratch = torch.empty(d.numel(), dtype=torch.uint8, device=self.device)
            timed = {**pointers, Operand.D: scratch.data_ptr()}
            if pointers[Operand.C] == pointers[Operand.D]:
                timed[Operand.C] = scratch.data_ptr()
            stream = _raw_stream(None, self.device)

            def launch(index: int) -> None:
                lt.matmul(*self._matmul_arguments(timed, handles, results[index].ptr), stream)  # type: ignore[index]

            return time_candidates(launch, found, self.device)

        capturing = torch.cuda.is_current_stream_capturing()
        return self._tuner.choose(key, candidates, measure, may_measure=not capturing)

    def _make_layout(self, lt: ModuleType, layout: MatrixLayout) -> int:
        for made, seen in zip(self._layouts, self._layout_values, strict=True):
            if seen == layout:
                return made
        handle = lt.matrix_layout_create(
            layout.dtype.cuda_value, layout.rows, layout.cols, layout.ld
        )
        self._layouts.append(handle)
        self._layout_values.append(layout)
        attr = lt.MatrixLayoutAttribute
        set_layout = _attribute_setter(
            lt.matrix_layout_set_attribute, lt.get_matrix_layout_attribute_dtype
        )
        set_layout(handle, attr.ORDER, layout.order.cuda_value)
        if layout.batch_count > 1:
            set_layout(handle, attr.BATCH_COUNT, layout.batch_count)
            set_layout(handle, attr.STRIDED_BATCH_OFFSET, layout.stride)
        return handle

    def _alignment_text(self) -> str:
        return ", ".join(f"{op.value}={n}" for op, n in self.alignments.items())

    def run(self, stream: torch.cuda.Stream | int | None = None) -> None:
        """Issue the matmul on `stream` (default: torch's current stream of the device).

        Asynchronous like any CUDA launch. Inside `torch.cuda.graph` capture the current
        stream is the capturing one, so `plan.run` can be handed to the graph helper as
        a zero-argument launch.
        """
        self._check_ready("run()")
        if self._d_unbound:
            raise RuntimeError(
                f"run() on a plan whose D was unbound, use run_into(d); descriptor: "
                f"{self.descriptor}"
            )
        if self.padded is not None:
            self._run_padded(self.buffers["d"], stream)
            return
        self._call(*self._arguments, _raw_stream(stream, self.device))

    def _run_padded(self, d: torch.Tensor, stream: torch.cuda.Stream | int | None) -> None:
        """Stage A, run the padded problem, copy D out: all on `stream`, in order."""
        assert self.padded is not None
        context: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
        if stream is not None:
            if isinstance(stream, int):
                stream = torch.cuda.ExternalStream(stream, device=self.device)
            context = torch.cuda.stream(stream)
        with context:
            stage_a(self.padded, self.buffers["a"], self.buffers["a_staged"])
            self._call(*self._arguments, _raw_stream(None, self.device))
            unstage(self.padded, self.descriptor, self.buffers["staging"], d)

    def run_into(self, d: torch.Tensor, stream: torch.cuda.Stream | int | None = None) -> None:
        """`run(stream)`, writing D into `d` instead of the build-time buffer: a flat
        uint8 buffer of at least D's bytes on the plan's device (a fresh output,
        `lumir.runtime.fresh_outputs`). Where C was absent, D stood in for C, so `d`
        does too.

        cuBLASLt takes its pointers per call, so only the algorithm the heuristic chose
        at build time must stay valid for `d`: the layouts are the plan's, and `d` must
        be aligned at least as D's buffer was (the alignment the heuristic was promised;
        a fresh torch allocation is 512-byte aligned, the most cuBLASLt asks).
        """
        self._check_ready("run_into()")
        pointer = self._checked_d(d)
        if self.padded is not None:  # the call writes the staging buffer, then d
            self._run_padded(d, stream)
            return
        arguments = list(self._arguments)
        arguments[_D_POINTER] = pointer
        if self.buffers["c"] is None:
            arguments[_C_POINTER] = pointer
        self._call(*arguments, _raw_stream(stream, self.device))

    def _checked_d(self, d: torch.Tensor) -> int:
        """`d`'s address, once `d` is a D buffer the built algorithm may write."""
        layout = matrix_layout(self.descriptor, Operand.D)
        _check_buffer("D", d, layout.byte_extent())
        if d.device != self.device:
            raise ValueError(f"operand D is on {d.device}, the plan runs on {self.device}")
        pointer = d.data_ptr()
        if self.padded is not None:
            return pointer  # d only receives a copy: any alignment does
        alignment = _alignment(pointer, layout)
        if pointer % 16 or alignment < self.alignments[Operand.D]:
            raise ValueError(
                f"operand D at {pointer:#x} is {alignment}-byte aligned; the plan's "
                f"algorithm was chosen for {self.alignments[Operand.D]} bytes"
            )
        return pointer

    def unbind_d(self) -> None:
        """Drop the reference to D's build-time buffer, so that it can be freed. From
        now on only `run_into` runs the plan (`run` would write freed memory)."""
        if self.buffers["c"] is self.buffers["d"]:
            raise ValueError("D's buffer is also C's; the plan cannot run into another D")
        self.buffers["d"] = None
        self._d_unbound = True

    def close(self) -> None:
        """Destroy the cuBLASLt descriptor, layouts and preference. Idempotent.

        These are host-side objects that a CUDA graph which captured `run()` no longer
        reads. The plan keeps its buffers and workspace referenced after closing, since
        such a graph keeps reading and writing them on every replay.
        """
        if self._closed:
            return
        self._closed = True
        lt = self._lt
        if self._preference:
            lt.matmul_preference_destroy(self._preference)
            self._preference = 0
        for layout in self._layouts:
            lt.matrix_layout_destroy(layout)
        self._layouts = []
        self._layout_values = []
        if self._matmul_desc:
            lt.matmul_desc_destroy(self._matmul_desc)
            self._matmul_desc = 0

    def __enter__(self) -> CublasLtMatmulPlan:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        # Best effort only: at interpreter exit nvmath may already be gone.
        with contextlib.suppress(Exception):
            self.close()
