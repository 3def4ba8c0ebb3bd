"""Each `hl` op as the torch call it came from.

`hl` ops are ATen operations (see `lumir.dialects.hl`), so running one is calling torch.
`bind_kernel` turns an op name and its properties into a plain function over torch
tensors, decoding the properties once: the reference interpreter calls it on values, the
program executors on typed views of buffers (`cublaslt_rt.launch`), and on CUDA those
calls are what a CUDA graph captures. One table serves all three, so the unfused
reference and the compiled program cannot disagree about what an `hl` op means.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import torch
import torch.nn.functional as F
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute

Kernel = Callable[..., torch.Tensor]
"""A bound kernel: input tensors in, one result tensor out."""

Params = Mapping[str, Attribute]
"""An op's properties (or a launch's params), by name."""

Shape = tuple[int, ...]

_Binder = Callable[[Params, Shape, torch.dtype], Kernel]
"""Decodes an op's properties once, given its result shape and dtype; returns the kernel."""


class UnknownKernelError(KeyError):
    """No torch implementation of the named op."""


def _int(params: Params, name: str) -> int:
    attr = params[name]
    assert isinstance(attr, IntegerAttr), f"{name} must be an integer attribute"
    return attr.value.data


def _ints(params: Params, name: str) -> tuple[int, ...]:
    attr = params[name]
    assert isinstance(attr, DenseArrayBase), f"{name} must be a dense array"
    return tuple(int(v) for v in attr.get_values())


def _string(params: Params, name: str) -> str:
    attr = params[name]
    assert isinstance(attr, StringAttr), f"{name} must be a string attribute"
    return attr.data


def _flag(params: Params, name: str) -> bool:
    return isinstance(params.get(name), UnitAttr)


def _no_params(fn: Kernel) -> _Binder:
    """A binder for ops without properties: the torch function itself."""

    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
        return fn

    return bind


def _bind_gelu(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    approximate = _string(params, "approximate")
    return lambda x: F.gelu(x, approximate=approximate)


def _bind_cast(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    return lambda x: x.to(dtype)


def _reduction(fn: Callable[..., torch.Tensor]) -> _Binder:
    """aten.sum/mean/amax over `dims`; as in ATen, an empty list reduces every dimension."""

    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
        dims = _ints(params, "dims")
        keepdim = _flag(params, "keepdim")

        def reduce(x: torch.Tensor) -> torch.Tensor:
            return fn(x, dim=dims or tuple(range(x.dim())), keepdim=keepdim)

        return reduce

    return bind


def _bind_softmax(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    dim = _int(params, "dim")
    return lambda x: torch.softmax(x, dim)


def _bind_linear(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    return lambda x, weight, bias=None: F.linear(x, weight, bias)


def _bind_sdpa(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    is_causal = _flag(params, "is_causal")
    scale_attr = params.get("scale")
    scale = scale_attr.value.data if isinstance(scale_attr, FloatAttr) else None

    def sdpa(
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        return F.scaled_dot_product_attention(
            query, key, value, attn_mask=mask, is_causal=is_causal, scale=scale
        )

    return sdpa


def _bind_transpose(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    permutation = _ints(params, "permutation")
    return lambda x: x.permute(permutation)


def _bind_reshape(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    return lambda x: x.reshape(shape)


def _bind_expand(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    return lambda x: x.expand(shape)


def _bind_slice(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    dim, start, end, step = (_int(params, name) for name in ("dim", "start", "end", "step"))

    def slice_kernel(x: torch.Tensor) -> torch.Tensor:
        index: list[slice] = [slice(None)] * x.dim()
        index[dim] = slice(start, end, step)
        return x[tuple(index)]

    return slice_kernel


def _bind_cat(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    dim = _int(params, "dim")
    return lambda *xs: torch.cat(xs, dim)


_PREDICATES = {
    "eq": torch.eq,
    "ne": torch.ne,
    "lt": torch.lt,
    "le": torch.le,
    "gt": torch.gt,
    "ge": torch.ge,
}


def _bind_compare(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    return _PREDICATES[_string(params, "predicate")]


KERNELS: dict[str, _Binder] = {
    "hl.add": _no_params(torch.add),
    "hl.sub": _no_params(torch.sub),
    "hl.mul": _no_params(torch.mul),
    "hl.div": _no_params(torch.div),
    "hl.pow": _no_params(torch.pow),
    "hl.maximum": _no_params(torch.maximum),
    "hl.neg": _no_params(torch.neg),
    "hl.rsqrt": _no_params(torch.rsqrt),
    "hl.sqrt": _no_params(torch.sqrt),
    "hl.exp": _no_params(torch.exp),
    "hl.relu": _no_params(torch.relu),
    "hl.silu": _no_params(F.silu),
    "hl.sigmoid": _no_params(torch.sigmoid),
    "hl.tanh": _no_params(torch.tanh),
    "hl.gelu": _bind_gelu,
    "hl.cast": _bind_cast,
    "hl.sum": _reduction(torch.sum),
    "hl.mean": _reduction(torch.mean),
    "hl.amax": _reduction(torch.amax),
    "hl.softmax": _bind_softmax,
    "hl.matmul": _no_params(torch.matmul),
    "hl.linear": _bind_linear,
    "hl.addmm": _no_params(torch.addmm),
    "hl.sdpa": _bind_sdpa,
    "hl.transpose": _bind_transpose,
    "hl.reshape": _bind_reshape,
    "hl.expand": _bind_expand,
    "hl.slice": _bind_slice,
    "hl.cat": _bind_cat,
    "hl.embedding": _no_params(lambda weight, indices: F.embedding(indices, weight)),
    "hl.compare": _bind_compare,
    "hl.where": _no_params(torch.where),
}
"""Op name -> binder. `hl.constant` is not here: it is data, not a kernel."""


def bind_kernel(
    name: str,
    params: Params,
    result_shape: Sequence[int],
    result_dtype: torch.dtype,
) -> Kernel:
    """The torch function that runs op `name` with properties `params`.

    The returned function takes the op's operands as tensors, in operand order, and
    returns a tensor of `result_shape` and `result_dtype` (the op's result type).
    Properties are decoded here, once, not on every call.
    """
    binder = KERNELS.get(name)
    if binder is None:
        raise UnknownKernelError(name)
    shape = tuple(result_shape)
    kernel = binder(params, shape, result_dtype)

    def run(*inputs: torch.Tensor) -> torch.Tensor:
        result = kernel(*inputs)
        return result if result.dtype == result_dtype else result.to(result_dtype)

    return run


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    """cuBLASLt's GELU epilogue: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
