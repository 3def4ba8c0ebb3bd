"""One `cublasLtMatmul` on the CPU, reading and writing raw bytes as cuBLASLt does.

This is the CPU executor's GEMM and the reason lumir's tests can catch a wrong fusion
without a GPU. Every operand is read through the descriptor alone: its declared data
type, order, leading dimension and batch stride, by index arithmetic over the buffer's
bytes. Element (row, col) of batch `i` of a matrix is at element offset

    COL order: i * stride + col * ld + row
    ROW order: i * stride + row * ld + col

times the data type's byte width: a strided view of the buffer's elements
(`lumir.runtime.layouts.strided_matrix`), so reading a weight costs its values, never
an index tensor of its size. Nothing looks at the type the buffer was allocated
with, so a C declared f32 over a bf16 buffer reads pairs of bf16 values as one float32
and runs past the buffer's end, as the GPU would (docs/design.md's bug); here running past
the end is a `GemmBufferError` rather than a read of a neighbouring allocation.

Arithmetic follows cuBLASLt's definition of the call:

    D = activation(alpha * op(A) op(B) + beta * C + bias)

with C read only when beta != 0, the bias (one value per row of D, i.e. along m) added
before the activation, GELU in its tanh form, and one rounding to D's data type at the
end. Products and sums are computed in float64, which holds every f16/bf16/f32 product
exactly; the compute type's own reductions of precision are applied where they change
the inputs (`compute_32f_fast_*` rounds A and B, `compute_16f` rounds the accumulator)
and alpha and beta are rounded to the scale type, as cuBLASLt reads them.
"""

from __future__ import annotations

import torch

from lumir.cublaslt_enums import (
    FORWARD_EPILOGUES,
    ComputeType,
    DataType,
    Operand,
    Order,
    Transpose,
)
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.runtime.buffers import data_type_dtype
from lumir.runtime.hl_torch import gelu_tanh
from lumir.runtime.layouts import (
    MatrixLayout,
    matrix_layout,
    offset_range,
    overlaps,
    strided_matrix,
)


class GemmBufferError(RuntimeError):
    """An operand's layout reaches past the end of its buffer, or D's layout overlaps itself.

    On a GPU the first reads or writes a neighbouring allocation; the second makes D
    depend on the order of threads. Both are wrong programs, so the reference stops.
    """


class GemmDescriptorError(RuntimeError):
    """The call asks for something the reference does not compute (an AUX epilogue, say)."""


def _operand_matrix(
    name: str, buffer: torch.Tensor, layout: MatrixLayout, what: str | None = None
) -> torch.Tensor:
    """Check that `layout` fits in `buffer`, and return the strided (batch, rows, cols)
    view of its elements (`lumir.runtime.layouts`); `what` names the layout in the
    error (default: its description)."""
    elements = _elements(name, buffer, layout.dtype)
    reached = offset_range(layout)
    if reached is not None:
        lowest, highest = reached
        reach = (highest + 1) * layout.dtype.byte_width
        if lowest < 0 or reach > buffer.numel():
            raise GemmBufferError(
                f"operand {name} is read as a {what or layout.describe()}, which reaches byte "
                f"{reach}, but its buffer holds {buffer.numel()} bytes"
            )
    return strided_matrix(elements, layout)


def _elements(name: str, buffer: torch.Tensor, dtype: DataType) -> torch.Tensor:
    """The flat CPU byte buffer's whole elements of `dtype`."""
    _check_flat_cpu(name, buffer, 0)
    width = dtype.byte_width
    count = buffer.numel() // width
    return buffer[: count * width].view(data_type_dtype(dtype))


def _check_flat_cpu(name: str, buffer: torch.Tensor, nbytes: int) -> None:
    """A buffer is flat contiguous uint8 bytes on the CPU, at least `nbytes` of them."""
    if buffer.dtype != torch.uint8 or buffer.dim() != 1 or not buffer.is_contiguous():
        raise ValueError(
            f"operand {name}: expected a flat contiguous torch.uint8 buffer, got dtype "
            f"{buffer.dtype} and shape {tuple(buffer.shape)}"
        )
    if buffer.device.type != "cpu":
        raise ValueError(
            f"operand {name}: the reference GEMM runs on CPU buffers, got {buffer.device}"
        )
    if buffer.numel() < nbytes:
        raise GemmBufferError(
            f"operand {name} needs {nbytes} bytes, but its buffer holds {buffer.numel()}"
        )


def _round_to(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return x.to(dtype).to(torch.float64)


def _round_tf32(x: torch.Tensor) -> torch.Tensor:
    """Round float values to TF32 (10 mantissa bits), to nearest even, as the tensor cores."""
    bits = x.to(torch.float32).view(torch.int32)
    lsb = (bits >> 13) & 1
    rounded = (bits + 0x0FFF + lsb) & ~0x1FFF
    finite = torch.isfinite(x)
    return torch.where(finite, rounded.view(torch.float32).to(torch.float64), x)


_F32_ACCUMULATORS = frozenset(
    {
        ComputeType.COMPUTE_32F,
        ComputeType.COMPUTE_32F_PEDANTIC,
        ComputeType.COMPUTE_32F_FAST_16F,
        ComputeType.COMPUTE_32F_FAST_16BF,
        ComputeType.COMPUTE_32F_FAST_TF32,
    }
)


def _overflowed(x: torch.Tensor, accumulator: torch.dtype) -> torch.Tensor:
    """The exact product, except where it lies beyond the accumulator's range: there the
    accumulator holds an infinity (of the product's sign) before alpha, beta and the
    epilogue see it, as on the GPU and in eager (`(x @ w) * 0.01` is inf when `x @ w`
    overflows f32, and `x @ w + -inf` NaN). Values in range keep every bit, so a
    product is still rounded once, on output."""
    rounded = x.to(accumulator)
    return torch.where(torch.isinf(rounded) & torch.isfinite(x), rounded.to(x.dtype), x)


def _compute_inputs(x: torch.Tensor, compute_type: ComputeType) -> torch.Tensor:
    """A or B as the compute type's multipliers see them."""
    if compute_type is ComputeType.COMPUTE_32F_FAST_16F:
        return _round_to(x, torch.float16)
    if compute_type is ComputeType.COMPUTE_32F_FAST_16BF:
        return _round_to(x, torch.bfloat16)
    if compute_type is ComputeType.COMPUTE_32F_FAST_TF32:
        return _round_tf32(x)
    return x


def scale_as_read(value: float, scale_type: DataType) -> float:
    """alpha or beta as cuBLASLt reads it: a host scalar of the scale type."""
    return float(torch.tensor(value, dtype=torch.float64).to(data_type_dtype(scale_type)).item())


def _to_output(x: torch.Tensor, dtype: DataType) -> torch.Tensor:
    target = data_type_dtype(dtype)
    if target.is_floating_point:
        return x.to(target)
    info = torch.iinfo(target)
    return torch.round(x).clamp(info.min, info.max).to(target)


class ReferenceGemmPlan:
    """A `cublasLtMatmul` ready to run on CPU buffers: the reference twin of the CUDA plan.

    Same arguments as `lumir.runtime.cuda_cublaslt.CublasLtMatmulPlan`: the descriptor,
    flat `torch.uint8` CPU buffers for A, B and D, C (needed only when beta != 0; it may
    be D's buffer) and the bias (exactly when the epilogue adds one, read as
    `bias_dtype`, default D's type). Construction does what a plan does on the GPU:
    checks the descriptor and that every layout fits its buffer, and fixes each
    operand's strided view of its buffer, so `run()` only reads, multiplies and writes.

    Raises:
        GemmBufferError: a layout reaches past its buffer, or D's layout overlaps itself.
        GemmDescriptorError: an epilogue the reference does not compute.
        ValueError: a missing or superfluous C or bias, or a buffer that is not flat CPU
            bytes.
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
    ) -> None:
        desc = descriptor
        self.descriptor = desc
        if desc.epilogue not in FORWARD_EPILOGUES:
            raise GemmDescriptorError(
                f"epilogue {desc.epilogue} needs auxiliary buffers that lumir's executors do "
                f"not provide"
            )
        self.reads_c = desc.beta != 0.0
        if self.reads_c and c is None:
            raise ValueError(f"beta = {desc.beta} reads C, but no C buffer was given")
        if (bias is not None) != desc.epilogue.reads_bias:
            wanted = "needs a" if desc.epilogue.reads_bias else "takes no"
            raise ValueError(f"epilogue {desc.epilogue} {wanted} bias buffer")

        self._a = self._operand("A", a, Operand.A)
        self._b = self._operand("B", b, Operand.B)
        self._c = self._operand("C", c, Operand.C) if self.reads_c and c is not None else None
        self._d_layout = matrix_layout(desc, Operand.D)
        self._d: torch.Tensor | None = self._operand("D", d, Operand.D)
        self._d_bytes = self._d_layout.byte_extent()
        if overlaps(self._d_layout):
            raise GemmBufferError(
                f"operand D is written as a {self._d_layout.describe()}, which writes some "
                f"elements more than once"
            )
        self._bias: torch.Tensor | None = None
        if bias is not None:
            self.bias_dtype = bias_dtype if bias_dtype is not None else desc.d_dtype
            vector = MatrixLayout(self.bias_dtype, desc.m, 1, desc.m, Order.COL, 1, 0)
            what = f"{self.bias_dtype} vector of {desc.m}"
            self._bias = _operand_matrix("bias", bias, vector, what)
        self.alpha = scale_as_read(desc.alpha, desc.scale_type)
        self.beta = scale_as_read(desc.beta, desc.scale_type)
        # References keep the buffers alive for as long as the plan can run.
        self.buffers = {"a": a, "b": b, "c": c, "d": d, "bias": bias}

    def _operand(self, name: str, buffer: torch.Tensor, operand: Operand) -> torch.Tensor:
        return _operand_matrix(name, buffer, matrix_layout(self.descriptor, operand))

    def run(self) -> None:
        """Compute D from the buffers' current contents and write it into D's buffer."""
        if self._d is None:
            raise RuntimeError("run() on a plan whose D was unbound; use run_into(d)")
        self._d.copy_(self._values())

    def run_into(self, d: torch.Tensor) -> None:
        """Compute D as `run()` does, but write it into `d`, another flat uint8 CPU buffer
        of at least D's bytes (a fresh output, `lumir.runtime.fresh_outputs`): D's
        layout was checked at build time and does not depend on the buffer."""
        _check_flat_cpu("D", d, self._d_bytes)
        elements = _elements("D", d, self._d_layout.dtype)
        strided_matrix(elements, self._d_layout).copy_(self._values())

    def unbind_d(self) -> None:
        """Drop the reference to D's build-time buffer, so that it can be freed; from now
        on only `run_into` runs the plan. C must not be D's buffer (it would still be
        read from there)."""
        if self._c is not None and self.buffers["c"] is self.buffers["d"]:
            raise ValueError("D's buffer is also C's; the plan cannot run into another D")
        self._d = None
        self.buffers["d"] = None

    def _values(self) -> torch.Tensor:
        """D's values, (batch, m, n), from the operands' current contents."""
        desc = self.descriptor
        a = _compute_inputs(self._a.to(torch.float64), desc.compute_type)
        b = _compute_inputs(self._b.to(torch.float64), desc.compute_type)
        if desc.transa is Transpose.T:
            a = a.transpose(1, 2)
        if desc.transb is Transpose.T:
            b = b.transpose(1, 2)
        product = torch.matmul(a, b)
        if desc.compute_type in (ComputeType.COMPUTE_16F, ComputeType.COMPUTE_16F_PEDANTIC):
            product = _round_to(product, torch.float16)
        elif desc.compute_type in _F32_ACCUMULATORS:
            product = _overflowed(product, torch.float32)
        x = self.alpha * product
        if self._c is not None:
            x = x + self.beta * self._c.to(torch.float64)
        if self._bias is not None:
            x = x + self._bias.to(torch.float64).reshape(1, -1, 1)
        activation = desc.epilogue.activation
        if activation == "relu":
            x = torch.relu(x)
        elif activation == "gelu":
            x = gelu_tanh(x)
        return _to_output(x, desc.d_dtype)


def reference_matmul(
    descriptor: MatmulDescriptor,
    a: torch.Tensor,
    b: torch.Tensor,
    d: torch.Tensor,
    *,
    c: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    bias_dtype: DataType | None = None,
) -> None:
    """Run one `cublasLtMatmul` on CPU byte buffers, writing D in place (see the module)."""
    ReferenceGemmPlan(descriptor, a, b, d, c=c, bias=bias, bias_dtype=bias_dtype).run()
