"""A one-column matmul (a decode step's GEMM) as a generated Triton GEMV.

A GEMM whose activation has one row reads every weight once and does two flops per
weight: it is bound by memory, and its floor is the weight's bytes at the copy rate.
cuBLASLt's kernels for that case were measured on the H200 well below it (docs/perf-
notes.md), so lumir can run such a call as this GEMV instead, when the IR says so
(`algorithm = "gemv"` on its `cublaslt_rt.plan`; `lumir.plan_algorithms`).

    d = alpha * op(A) b + beta * c + bias      (one column: n = 1)

computed in f32 (products and sums), rounded once to d's type, like cuBLASLt's
`compute_32f` call it replaces; only the order of the sum differs.

Small GEMVs are bound by launch latency more than by bytes, so the GEMV calls of a
`cublaslt_rt.matmul_group` (several calls reading one activation, such as a decode
layer's k and v projections) run as one launch of the grouped kernel: `GroupedGemvPlan`.
Each member reads its own weight where it lives and writes its own D, with the block
shape it would have alone, so its D is bit for bit what its own launch writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import torch

from lumir.cublaslt_enums import DataType, Operand
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import OPERAND_FIELDS, matrix_layout, op_element_steps
from lumir.plan_algorithms import GEMV_GROUP_MAX, GemvConfig, gemv_config, gemv_problems
from lumir.runtime.buffers import data_type_dtype
from lumir.runtime.fused_kernels import FP_FUSION
from lumir.runtime.pdl import NO_PDL, PdlMode
from lumir.runtime.reference_gemm import scale_as_read
from lumir.runtime.triton_launch import TritonLaunch


class GemvPlanError(ValueError):
    """The call is not one the GEMV runs, or an operand's layout overruns its buffer."""


@dataclass(frozen=True)
class GemvOperands:
    """One GEMV call on strided tensors: d = alpha * a x + beta * c + bias.

    `a` is m x k (op(A)), `x` has k entries, `d`, `c` and `bias` m each; C is read only
    when it is given and beta != 0.
    """

    a: torch.Tensor
    x: torch.Tensor
    d: torch.Tensor
    c: torch.Tensor | None = None
    bias: torch.Tensor | None = None
    alpha: float = 1.0
    beta: float = 0.0

    def __post_init__(self) -> None:
        m, k = self.a.shape
        shapes_ok = self.x.shape == (k,) and self.d.shape == (m,)
        for vector in (self.c, self.bias):
            shapes_ok &= vector is None or vector.shape == (m,)
        if not shapes_ok:
            shapes = [None if t is None else tuple(t.shape) for t in self._tensors()]
            raise ValueError(f"gemv: a, x, d, c, bias of shapes {shapes}")

    def _tensors(self) -> tuple[torch.Tensor | None, ...]:
        return (self.a, self.x, self.d, self.c, self.bias)

    @property
    def reads_c(self) -> bool:
        return self.c is not None and self.beta != 0.0

    def config(self) -> GemvConfig:
        """The block shape this call runs with alone (`gemv_config`)."""
        m, k = self.a.shape
        return gemv_config(m, k)

    def kernel_arguments(self) -> tuple[object, ...]:
        """The kernels' per-call arguments, in their order: a, c, bias, d, m, the strides
        of a (rows, columns), c, bias and d, alpha, beta (an absent C or bias is d)."""
        c = self.c if self.reads_c and self.c is not None else self.d
        bias = self.bias if self.bias is not None else self.d
        return (
            self.a,
            c,
            bias,
            self.d,
            self.a.shape[0],
            self.a.stride(0),
            self.a.stride(1),
            c.stride(0),
            bias.stride(0),
            self.d.stride(0),
            float(self.alpha),
            float(self.beta),
        )


class GemvPlan:
    """A `cublaslt_rt.plan` with `algorithm = "gemv"`, ready to run on CUDA buffers.

    Same arguments as `CublasLtMatmulPlan` (flat `torch.uint8` buffers, read through
    the descriptor's layouts): A, B and D, C when beta != 0, the bias for the BIAS
    epilogue (read as `bias_dtype`, default D's type), and how its launch uses
    programmatic dependent launch (`lumir.runtime.pdl`). Construction checks the call
    (`gemv_problems`) and that every layout fits its buffer, and fixes the strided
    views (`operands`, which a `GroupedGemvPlan` launches with others), so `run()` is
    one kernel launch.
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
        pdl: PdlMode = NO_PDL,
    ) -> None:
        desc = descriptor
        problems = gemv_problems(desc)
        if problems:
            raise GemvPlanError("; ".join(problems))
        self.descriptor = desc
        reads_c = desc.beta != 0.0
        if reads_c and c is None:
            raise GemvPlanError(f"beta = {desc.beta} reads C, but no C buffer was given")
        if (bias is not None) != desc.epilogue.reads_bias:
            raise GemvPlanError(f"epilogue {desc.epilogue}: bias buffer given = {bias is not None}")
        offset = None
        if bias is not None:
            dtype = data_type_dtype(bias_dtype or desc.d_dtype)
            offset = _fitting(bias, dtype, (desc.m,), (1,), "bias")
        self.operands = GemvOperands(
            _op_matrix(a, desc, Operand.A),
            _op_matrix(b, desc, Operand.B)[:, 0],
            _op_matrix(d, desc, Operand.D)[:, 0],
            c=_op_matrix(c, desc, Operand.C)[:, 0] if reads_c and c is not None else None,
            bias=offset,
            alpha=scale_as_read(desc.alpha, desc.scale_type),
            beta=scale_as_read(desc.beta, desc.scale_type),
        )
        self.buffers = {"a": a, "b": b, "c": c, "d": d, "bias": bias}
        self.pdl = pdl
        call = self.operands
        self._launch = gemv_launch(
            call.a,
            call.x,
            call.d,
            c=call.c,
            bias=call.bias,
            alpha=call.alpha,
            beta=call.beta,
            pdl=pdl,
        )
        d_view = call.d
        self._d_view = (d_view.dtype, tuple(d_view.shape), d_view.stride())
        self._d_bytes = matrix_layout(desc, Operand.D).byte_extent()

    def run(self) -> None:
        """Compute D from the buffers' current contents (on torch's current stream)."""
        self._launch()

    def warm_up(self) -> None:
        """Compile `run`'s kernel without launching it (`lumir.runtime.triton_launch`)."""
        self._launch.warm_up()

    def run_into(self, d: torch.Tensor) -> None:
        """`run()`, writing D into `d` instead: a flat uint8 buffer of at least D's bytes
        on D's device, 16-byte aligned (a fresh output, `lumir.runtime.fresh_outputs`).
        The block shape and the kernel's specialisation stay those chosen at build."""
        if d.dtype != torch.uint8 or d.dim() != 1 or d.numel() < self._d_bytes:
            raise GemvPlanError(
                f"operand D: expected a flat uint8 buffer of {self._d_bytes} bytes, got "
                f"{d.dtype} of shape {tuple(d.shape)}"
            )
        dtype, shape, strides = self._d_view
        self._launch.into(d.view(dtype).as_strided(shape, strides))

    def unbind_d(self) -> None:
        """Drop D's build-time buffer (so it can be freed); from now on only `run_into`
        runs the plan. The operands' D becomes a meta tensor of D's shape (no memory):
        an unbound plan is no group member."""
        self._launch.unbind_d()
        self.buffers["d"] = None
        d = self.operands.d
        meta = torch.empty_strided(d.shape, d.stride(), dtype=d.dtype, device="meta")
        self.operands = replace(self.operands, d=meta)

    def close(self) -> None:
        """Nothing to release (no cuBLASLt objects); for the plan interface."""


class GroupedGemvPlan:
    """A `cublaslt_rt.matmul_group`, ready to run on CUDA buffers: one launch of the
    grouped kernel over its members' calls (each member's `GemvPlan.operands`, in order).

    Construction checks what the kernel assumes and the verifier guarantees for IR: two
    to `GEMV_GROUP_MAX` members reading one vector (same storage, offset, stride, type)
    with one block shape (`gemv_config`).
    """

    def __init__(self, members: Sequence[GemvOperands], pdl: PdlMode = NO_PDL) -> None:
        self.members = tuple(members)
        if not 2 <= len(self.members) <= GEMV_GROUP_MAX:
            raise GemvPlanError(
                f"a group runs 2 to {GEMV_GROUP_MAX} GEMVs in one launch, not {len(self.members)}"
            )
        first = self.members[0].x
        for index, member in enumerate(self.members[1:], start=1):
            x = member.x
            same = (x.data_ptr(), x.stride(), x.shape, x.dtype)
            if same != (first.data_ptr(), first.stride(), first.shape, first.dtype):
                raise GemvPlanError(
                    f"member {index} reads another vector than member 0; a group reads one B"
                )
        self._launch = grouped_gemv_launch(self.members, pdl=pdl)

    def run(self) -> None:
        """Compute every member's D from the buffers' current contents (one launch)."""
        self._launch()

    def warm_up(self) -> None:
        """Compile `run`'s kernel without launching it (`lumir.runtime.triton_launch`)."""
        self._launch.warm_up()

    def close(self) -> None:
        """Nothing to release (no cuBLASLt objects); for the plan interface."""


def _op_matrix(buffer: torch.Tensor, desc: MatmulDescriptor, operand: Operand) -> torch.Tensor:
    """op(X) of the call as a strided view of `buffer` (rows x cols of op(X))."""
    dtype = data_type_dtype(matrix_layout(desc, operand).dtype)
    sizes = OPERAND_FIELDS[operand].op_sizes(desc)
    return _fitting(buffer, dtype, sizes, op_element_steps(desc, operand), operand.value)


def _fitting(
    buffer: torch.Tensor,
    dtype: torch.dtype,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    name: str,
) -> torch.Tensor:
    """`buffer`'s bytes as a strided `dtype` tensor, refusing one that reaches past it."""
    flat = buffer.view(dtype)
    reach = 1 + sum((size - 1) * step for size, step in zip(shape, strides, strict=True))
    if reach > flat.numel():
        raise GemvPlanError(
            f"operand {name} reaches {reach} elements of {dtype}, its buffer holds {flat.numel()}"
        )
    return flat.as_strided(shape, strides)


def launch_config(
    calls: Sequence[GemvOperands],
    block_m: int | None = None,
    block_k: int | None = None,
    num_warps: int | None = None,
) -> GemvConfig:
    """The block shape of one launch over `calls`: each field given, or the one every call
    has alone (a launch over calls of different block shapes must be given one)."""
    alone = {call.config() for call in calls}
    given = (block_m, block_k, num_warps)
    if None in given and len(alone) != 1:
        raise ValueError(f"gemv: the calls run with different block shapes alone: {sorted(alone)}")
    default = next(iter(alone))
    config = tuple(value or fallback for value, fallback in zip(given, default, strict=True))
    return config  # type: ignore[return-value]


def gemv_launch(
    a: torch.Tensor,
    x: torch.Tensor,
    d: torch.Tensor,
    *,
    c: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    block_m: int | None = None,
    block_k: int | None = None,
    num_warps: int | None = None,
    num_stages: int | None = None,
    pdl: PdlMode = NO_PDL,
) -> GemvLaunch:
    """A zero-argument launch of the GEMV over these fixed tensors (captured into the
    program's CUDA graph like any other launch). The block shape is `gemv_config`'s,
    unless given (`bench/gemv_sweep.py` tries others); `num_stages` (Triton's software
    pipelining depth, which changes no sum's order) is Triton's default unless given.
    `pdl` says whether it is a programmatic dependent launch (`PdlMode`)."""
    call = GemvOperands(a, x, d, c=c, bias=bias, alpha=alpha, beta=beta)
    block_m, block_k, num_warps = launch_config([call], block_m, block_k, num_warps)
    from lumir.runtime.gemv_kernel import gemv_kernel

    a, c_arg, bias_arg, d, m, s_am, s_ak, s_c, s_bias, s_d, alpha, beta = call.kernel_arguments()
    k = x.shape[0]
    arguments = (a, x, c_arg, bias_arg, d, m, k, s_am, s_ak, x.stride(0), s_c, s_bias, s_d)
    # D stands in for an absent C or bias (never read then): those slots follow D too.
    d_slots = tuple(i for i in (2, 3, 4) if arguments[i] is d)
    options = {
        "HAS_C": call.reads_c,
        "HAS_BIAS": bias is not None,
        "BLOCK_M": block_m,
        "BLOCK_K": block_k,
        "num_warps": num_warps,
        **({} if num_stages is None else {"num_stages": num_stages}),
        **pdl.kernel_options(),
        "enable_fp_fusion": FP_FUSION,
    }
    launch = TritonLaunch(gemv_kernel, (-(-m // block_m),), (*arguments, alpha, beta), options)
    return GemvLaunch(launch, d_slots)


def _tensor_spec(tensor: torch.Tensor) -> tuple[object, ...]:
    return (tuple(tensor.shape), tensor.stride(), tensor.dtype, tensor.device)


class GemvLaunch:
    """A zero-argument launch of the GEMV kernel over fixed tensors (`gemv_launch`).

    `into(d)` launches the same kernel writing another D: a tensor of D's shape,
    strides, dtype and device (a fresh output, `lumir.runtime.fresh_outputs`). Triton
    specialises a kernel on whether each pointer is 16-byte aligned, so `d` must be
    (torch's allocations are), or the call would compile and run another kernel.
    """

    def __init__(self, launch: TritonLaunch, d_slots: tuple[int, ...]) -> None:
        self.launch = launch
        self.d_slots = d_slots
        d = launch.arguments[d_slots[0]]
        assert isinstance(d, torch.Tensor)
        self.d_spec = _tensor_spec(d)
        self.bound = True

    def __call__(self) -> None:
        if not self.bound:
            raise RuntimeError("gemv: a launch whose D was unbound runs only into(d)")
        self.launch()

    def warm_up(self) -> None:
        """Compile the launch's kernel without launching it (`lumir.runtime.triton_launch`);
        a launch whose D was unbound has nothing to compile it against and does nothing."""
        if self.bound:
            self.launch.warm_up()

    def into(self, d: torch.Tensor) -> None:
        """The launch, with `d` in D's place (and wherever D stood in for C or bias)."""
        if _tensor_spec(d) != self.d_spec:
            raise GemvPlanError(f"gemv: D must be {self.d_spec}, got {_tensor_spec(d)}")
        if d.data_ptr() % 16:
            raise GemvPlanError(f"gemv: D at {d.data_ptr():#x} is not 16-byte aligned")
        arguments = list(self.launch.arguments)
        for slot in self.d_slots:
            arguments[slot] = d
        self.launch.with_arguments(tuple(arguments))()

    def unbind_d(self) -> None:
        """Drop D's build-time tensor (so it can be freed); from now on only `into` runs."""
        arguments = self.launch.arguments
        self.launch = self.launch.with_arguments(
            tuple(None if i in self.d_slots else value for i, value in enumerate(arguments))
        )
        self.bound = False


def grouped_gemv_launch(
    calls: Sequence[GemvOperands],
    *,
    block_m: int | None = None,
    block_k: int | None = None,
    num_warps: int | None = None,
    num_stages: int | None = None,
    pdl: PdlMode = NO_PDL,
) -> TritonLaunch:
    """A zero-argument launch of the grouped kernel over `calls`, which read one vector
    (`calls[i].x` all alike). Member i owns the programs after member i - 1's, one per
    row block of its D. The block shape is the one every call has alone (refused when
    they differ), unless given (the bench compares others; then a member's sums need
    not be those of its own launch)."""
    if not 1 <= len(calls) <= GEMV_GROUP_MAX:
        raise ValueError(f"gemv: a grouped launch runs 1 to {GEMV_GROUP_MAX} calls")
    block_m, block_k, num_warps = launch_config(calls, block_m, block_k, num_warps)
    from lumir.runtime.gemv_kernel import grouped_gemv_kernel

    x = calls[0].x
    per_call = list(zip(*(call.kernel_arguments() for call in calls), strict=True))
    starts, ends, total = [], [], 0
    for call in calls:
        starts.append(total)
        total += -(-call.a.shape[0] // block_m)
        ends.append(total)
    c_members = sum(1 << i for i, call in enumerate(calls) if call.reads_c)
    bias_members = sum(1 << i for i, call in enumerate(calls) if call.bias is not None)
    arguments = (x, x.shape[0], x.stride(0), *per_call, tuple(starts), tuple(ends))
    options = {
        **({} if num_stages is None else {"num_stages": num_stages}),
        **pdl.kernel_options(),
        "enable_fp_fusion": FP_FUSION,
    }

    constants = {
        "MEMBERS": len(calls),
        "C_MEMBERS": c_members,
        "BIAS_MEMBERS": bias_members,
        "BLOCK_M": block_m,
        "BLOCK_K": block_k,
        "num_warps": num_warps,
    }
    return TritonLaunch(grouped_gemv_kernel, (total,), arguments, {**constants, **options})


__all__ = [
    "GemvLaunch",
    "GemvOperands",
    "GemvPlan",
    "GemvPlanError",
    "GroupedGemvPlan",
    "gemv_config",
    "gemv_launch",
    "grouped_gemv_launch",
    "launch_config",
]
