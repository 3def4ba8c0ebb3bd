"""Each `hl` op as the torch call it came from.

`hl` ops are ATen operations (see `lumir.dialects.hl`), so running one is calling torch.
`bind_kernel` turns an op name and its properties into a plain function over torch
tensors, decoding the properties once: the reference interpreter calls it on values, the
program executors on typed views of buffers (`cublaslt_rt.launch`), and on CUDA those
calls are what a CUDA graph captures. One table serves all three, so the unfused
reference and the compiled program cannot disagree about what an `hl` op means.

The program executors write each result straight into its output buffer:
`bind_into_kernel` gives the same torch call in its `out=` form (the overload that the
functional call itself runs, so the bytes are the same), and falls back to computing a
fresh tensor and copying it only where torch has no such form or the `out=` form would
compute in another dtype than the functional call (decided once, at load time, on `meta`
tensors).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute

from lumir.runtime.attention import (
    few_query_attention,
    few_query_attention_problems,
    prefill_attention,
    prefill_attention_problems,
)
from lumir.runtime.cpu_math import settle_cpu_math
from lumir.runtime.pdl import NO_PDL, PdlMode

settle_cpu_math()  # before anything here computes on a CPU tensor: see its module

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


def _arg_reduction(fn: Callable[..., torch.Tensor]) -> _Binder:
    """aten.argmax/argmin along the one dimension in `dims`, or over the flattened
    input when it is empty (`dim=None`)."""

    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
        dims = _ints(params, "dims")
        keepdim = _flag(params, "keepdim")
        return lambda x: fn(x, dims[0] if dims else None, keepdim)

    return bind


def _bind_softmax(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    dim = _int(params, "dim")
    return lambda x: torch.softmax(x, dim)


def _bind_linear(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    return lambda x, weight, bias=None: F.linear(x, weight, bias)


def _sdpa_flags(params: Params) -> tuple[bool, bool, float | None]:
    """An `hl.sdpa`'s (is_causal, enable_gqa, scale)."""
    scale_attr = params.get("scale")
    scale = scale_attr.value.data if isinstance(scale_attr, FloatAttr) else None
    return _flag(params, "is_causal"), _flag(params, "enable_gqa"), scale


def _bind_sdpa(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    is_causal, enable_gqa, scale = _sdpa_flags(params)

    def sdpa(
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        grouped = enable_gqa
        if query.is_cuda:
            choice = _sdp_choice(query, key, value, mask, is_causal, scale, grouped)
            if choice not in _READS_STRIDED:
                query, key, value = (_dense_on_cuda(t) for t in (query, key, value))
                choice = _sdp_choice(query, key, value, mask, is_causal, scale, grouped)
            if grouped and choice not in _FUSED_ATTENTION:
                key, value = _repeat_heads(key, query), _repeat_heads(value, query)
                grouped = False
        result = F.scaled_dot_product_attention(
            query,
            key,
            value,
            attn_mask=mask,
            is_causal=is_causal,
            scale=scale,
            enable_gqa=grouped,
        )
        if result.numel() == 0 and tuple(result.shape) != shape:
            # torch does not broadcast the batch of an empty query ([1, h, 0, d] against
            # keys of batch 2 gives [1, h, 0, d]); hl.sdpa's result type does
            return result.new_empty(shape)
        return result

    return sdpa


def _dense_on_cuda(tensor: torch.Tensor) -> torch.Tensor:
    """A strided SDPA operand made dense before a CUDA attention kernel that cannot be
    trusted with strides reads it.

    torch's memory-efficient CUDA attention kernel returns wrong values for non-contiguous
    inputs (pytorch/pytorch#112577, open), and on the H200 a tiny Llama layer whose value
    was read through a permuted view (an absorbed transpose) differed from the CPU
    executor at seq 6 by up to 0.44. So on CUDA a permuted operand is copied here, inside
    the launch (the copy its transpose launch used to make), unless torch runs flash or
    cuDNN attention on it (`_READS_STRIDED`); the CPU executor reads it strided, which
    torch computes bit-identically.
    """
    return tensor if tensor.is_contiguous() else tensor.contiguous()


def _backends(*backends: SDPBackend) -> frozenset[int]:
    return frozenset(int(backend.value) for backend in backends)


_FUSED_ATTENTION = _backends(
    SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION
)
"""torch's fused CUDA attention kernels (anything else is its math path)."""

_READS_STRIDED = _backends(SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION)
"""The kernels that read permuted operands (last dimension dense) as they are. On the
H200 (`bench/attention_sweep.py --backends`, 32 query over 8 key/value heads) cuDNN gave
the same bits on the transposed views as on dense copies at every shape of a 1B model
(one to 1024 query rows, caches of 512 and 1024), flash at the shapes torch picks it for;
at seq 1024 the value's copy cost ~16 launches of a few µs per forward."""


def _sdp_choice(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None,
    is_causal: bool,
    scale: float | None,
    enable_gqa: bool,
) -> int | None:
    """The attention kernel torch runs on these operands (an `SDPBackend` value), asked
    of torch's own kernel selection; None when that private entry point fails.

    Flash attention and cuDNN take grouped heads (without a mask, and cuDNN with one at
    most sizes); where they do, repeating the key/value heads only adds two copies per
    call: on the H200 (`bench/attention_sweep.py`) a 1B decode step's attention over 512
    cached positions took 11.0 µs grouped against 18.4 µs repeated, an unmasked
    call over 128 positions 5.8 against 10.9 µs, with bit-identical results. Where torch
    would fall back to its math path instead (the memory-efficient kernel has no
    `enable_gqa`; a one-position masked call), the heads are repeated
    (`_repeat_heads`).
    """
    try:
        choice = torch._fused_sdp_choice(
            query,
            key,
            value,
            attn_mask=mask,
            dropout_p=0.0,
            is_causal=is_causal,
            scale=scale,
            enable_gqa=enable_gqa,
        )
    except (RuntimeError, TypeError):  # a private entry point: never let it fail a launch
        return None
    return int(choice)


def _repeat_heads(kv: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
    """`kv` [..., Hkv, S, D] with each head repeated for its group of query heads.

    On CUDA a grouped-query SDPA that torch would not run in a fused kernel as it is
    (`_sdp_choice`) is run on repeated heads: otherwise torch would pick its
    math path — eight kernels a call (scale, masked fill, bmm, safe softmax with its
    all-masked-row check, bmm), which on the H200 cost the 1B model ~15 µs a layer at
    seq 1 against ~6 µs for the memory-efficient kernel. The repeat is the copy eager's
    `repeat_kv` makes, so the kernel and its rounding are eager's.
    """
    heads, groups = kv.shape[-3], query.shape[-3] // kv.shape[-3]
    if groups == 1:
        return kv
    *lead, _, seq, dim = kv.shape
    expanded = kv.unsqueeze(-3).expand(*lead, heads, groups, seq, dim)
    return expanded.reshape(*lead, heads * groups, seq, dim)


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


def _bind_arange(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    start, end, step = (_int(params, name) for name in ("start", "end", "step"))
    return lambda: torch.arange(start, end, step, dtype=dtype)


def _cumulative(function: Callable[..., torch.Tensor]) -> _Binder:
    """hl.cumsum / hl.cumprod: torch's running reduction along the op's `dim`."""

    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
        dim = _int(params, "dim")
        return lambda x: function(x, dim)

    return bind


def _bind_index(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    return lambda x, *indices: torch.ops.aten.index.Tensor(x, list(indices))


def _bind_index_copy(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    dim = _int(params, "dim")
    return lambda x, index, source: torch.index_copy(x, dim, index, source)


def _bind_pad(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    pad = list(_ints(params, "pad"))
    value_attr = params["value"]
    assert isinstance(value_attr, FloatAttr), "value must be a float attribute"
    value = value_attr.value.data
    return lambda x: torch.ops.aten.constant_pad_nd(x, pad, value)


KERNELS: dict[str, _Binder] = {
    "hl.add": _no_params(torch.add),
    "hl.sub": _no_params(torch.sub),
    "hl.mul": _no_params(torch.mul),
    "hl.div": _no_params(torch.div),
    "hl.pow": _no_params(torch.pow),
    "hl.maximum": _no_params(torch.maximum),
    "hl.minimum": _no_params(torch.minimum),
    "hl.floor_divide": _no_params(torch.floor_divide),
    "hl.remainder": _no_params(torch.remainder),
    "hl.fmod": _no_params(torch.fmod),
    "hl.abs": _no_params(torch.abs),
    "hl.log": _no_params(torch.log),
    "hl.log1p": _no_params(torch.log1p),
    "hl.expm1": _no_params(torch.expm1),
    "hl.erf": _no_params(torch.erf),
    "hl.floor": _no_params(torch.floor),
    "hl.ceil": _no_params(torch.ceil),
    "hl.round": _no_params(torch.round),
    "hl.trunc": _no_params(torch.trunc),
    "hl.sign": _no_params(torch.sign),
    "hl.atan": _no_params(torch.atan),
    "hl.tan": _no_params(torch.tan),
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
    "hl.amin": _reduction(torch.amin),
    "hl.argmax": _arg_reduction(torch.argmax),
    "hl.argmin": _arg_reduction(torch.argmin),
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
    "hl.cos": _no_params(torch.cos),
    "hl.sin": _no_params(torch.sin),
    "hl.bitwise_and": _no_params(torch.bitwise_and),
    "hl.arange": _bind_arange,
    "hl.cumsum": _cumulative(torch.cumsum),
    "hl.cumprod": _cumulative(torch.cumprod),
    "hl.index": _bind_index,
    "hl.index_copy": _bind_index_copy,
    "hl.pad": _bind_pad,
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


# --- kernels that write into their output buffer ---------------------------------------

IntoKernel = Callable[..., object]
"""A bound kernel in destination-passing form: `kernel(out, *inputs)` fills `out`."""

_IntoBinder = Callable[[Params, Shape, torch.dtype], IntoKernel]


def _into(fn: Callable[..., object]) -> _IntoBinder:
    """A binder for ops without properties whose torch function takes `out=`."""

    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
        return lambda out, *xs: fn(*xs, out=out)

    return bind


def _copy_into(view: Callable[[Params, Shape, torch.dtype], Kernel]) -> _IntoBinder:
    """Shape ops and casts: the copy of the (viewed or converted) input is the kernel."""

    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
        kernel = view(params, shape, dtype)
        return lambda out, x: out.copy_(kernel(x))

    return bind


def _bind_cast_view(params: Params, shape: Shape, dtype: torch.dtype) -> Kernel:
    # `copy_` converts as `Tensor.to` does (`to` is a copy_ into a new tensor).
    return lambda x: x


def _bind_gelu_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    approximate = _string(params, "approximate")
    return lambda out, x: torch.ops.aten.gelu.out(x, approximate=approximate, out=out)


def _bind_relu_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    # ATen's relu is clamp_min(x, 0) on CPU and CUDA; relu itself has no out= overload.
    return lambda out, x: torch.clamp_min(x, 0, out=out)


def _reduction_into(fn: Callable[..., object]) -> _IntoBinder:
    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
        dims = _ints(params, "dims")
        keepdim = _flag(params, "keepdim")

        def reduce(out: torch.Tensor, x: torch.Tensor) -> object:
            return fn(x, dim=dims or tuple(range(x.dim())), keepdim=keepdim, out=out)

        return reduce

    return bind


def _arg_reduction_into(fn: Callable[..., object]) -> _IntoBinder:
    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
        dims = _ints(params, "dims")
        keepdim = _flag(params, "keepdim")
        return lambda out, x: fn(x, dims[0] if dims else None, keepdim, out=out)

    return bind


def _bind_softmax_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    dim = _int(params, "dim")
    # torch.softmax(x, dim) is aten._softmax(x, dim, half_to_float=False).
    return lambda out, x: torch.ops.aten._softmax.out(x, dim, False, out=out)


def _bind_cat_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    dim = _int(params, "dim")
    return lambda out, *xs: torch.cat(xs, dim, out=out)


def _bind_embedding_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    # F.embedding without padding or renormalisation gathers rows: index_select on dim 0.
    def gather(out: torch.Tensor, weight: torch.Tensor, indices: torch.Tensor) -> object:
        rows = out.view(-1, weight.shape[-1])
        return torch.index_select(weight, 0, indices.reshape(-1), out=rows)

    return gather


def _bind_compare_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    predicate = _PREDICATES[_string(params, "predicate")]
    return lambda out, a, b: predicate(a, b, out=out)


def _bind_arange_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    # Written on the output's own device, so a CUDA graph captures it (no host copy).
    start, end, step = (_int(params, name) for name in ("start", "end", "step"))
    return lambda out: torch.arange(start, end, step, out=out)


def _cumulative_into(function: Callable[..., torch.Tensor]) -> _IntoBinder:
    """hl.cumsum / hl.cumprod written into the output buffer."""

    def bind(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
        dim = _int(params, "dim")
        return lambda out, x: function(x, dim, out=out)

    return bind


def _bind_index_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    return lambda out, x, *indices: torch.ops.aten.index.Tensor_out(x, list(indices), out=out)


def _bind_index_copy_into(params: Params, shape: Shape, dtype: torch.dtype) -> IntoKernel:
    dim = _int(params, "dim")

    def run(out: torch.Tensor, x: torch.Tensor, index: torch.Tensor, source: torch.Tensor):
        out.copy_(x)  # no work when the launch updates x in place (torch skips a self-copy)
        out.index_copy_(dim, index, source)

    return run


INTO_KERNELS: dict[str, _IntoBinder] = {
    "hl.add": _into(torch.add),
    "hl.sub": _into(torch.sub),
    "hl.mul": _into(torch.mul),
    "hl.div": _into(torch.div),
    "hl.pow": _into(torch.pow),
    "hl.maximum": _into(torch.maximum),
    "hl.minimum": _into(torch.minimum),
    "hl.floor_divide": _into(torch.floor_divide),
    "hl.remainder": _into(torch.remainder),
    "hl.fmod": _into(torch.fmod),
    "hl.abs": _into(torch.abs),
    "hl.log": _into(torch.log),
    "hl.log1p": _into(torch.log1p),
    "hl.expm1": _into(torch.expm1),
    "hl.erf": _into(torch.erf),
    "hl.floor": _into(torch.floor),
    "hl.ceil": _into(torch.ceil),
    "hl.round": _into(torch.round),
    "hl.trunc": _into(torch.trunc),
    "hl.sign": _into(torch.sign),
    "hl.atan": _into(torch.atan),
    "hl.tan": _into(torch.tan),
    "hl.neg": _into(torch.neg),
    "hl.rsqrt": _into(torch.rsqrt),
    "hl.sqrt": _into(torch.sqrt),
    "hl.exp": _into(torch.exp),
    "hl.relu": _bind_relu_into,
    "hl.silu": _into(torch.ops.aten.silu.out),
    "hl.sigmoid": _into(torch.sigmoid),
    "hl.tanh": _into(torch.tanh),
    "hl.gelu": _bind_gelu_into,
    "hl.cast": _copy_into(_bind_cast_view),
    "hl.sum": _reduction_into(torch.sum),
    "hl.mean": _reduction_into(torch.mean),
    "hl.amax": _reduction_into(torch.amax),
    "hl.amin": _reduction_into(torch.amin),
    "hl.argmax": _arg_reduction_into(torch.argmax),
    "hl.argmin": _arg_reduction_into(torch.argmin),
    "hl.softmax": _bind_softmax_into,
    "hl.matmul": _into(torch.matmul),
    "hl.addmm": _into(torch.addmm),
    "hl.transpose": _copy_into(_bind_transpose),
    "hl.reshape": _copy_into(_bind_reshape),
    "hl.expand": _copy_into(_bind_expand),
    "hl.slice": _copy_into(_bind_slice),
    "hl.cat": _bind_cat_into,
    "hl.embedding": _bind_embedding_into,
    "hl.compare": _bind_compare_into,
    "hl.where": _into(torch.where),
    "hl.cos": _into(torch.cos),
    "hl.sin": _into(torch.sin),
    "hl.bitwise_and": _into(torch.bitwise_and),
    "hl.arange": _bind_arange_into,
    "hl.cumsum": _cumulative_into(torch.cumsum),
    "hl.cumprod": _cumulative_into(torch.cumprod),
    "hl.index": _bind_index_into,
    "hl.index_copy": _bind_index_copy_into,
    "hl.pad": _copy_into(_bind_pad),
}
"""Op name -> destination-passing binder, for every op whose functional torch call has an
`out=` form computing the same bytes. `hl.linear` (whose out= overload takes another path
than F.linear for inputs of rank 3) and `hl.sdpa` (none) are missing on purpose."""


def bind_into_kernel(
    name: str,
    params: Params,
    inputs: Sequence[torch.Tensor],
    output: torch.Tensor,
    pdl: PdlMode = NO_PDL,
) -> tuple[IntoKernel, bool]:
    """The kernel that runs op `name` on `inputs` and writes its result into `output`.

    Returns `(kernel, direct)`, to be called as `kernel(output, *inputs)`. `direct` is True
    when the kernel writes `output` itself (its `out=` form); False when it computes a
    fresh tensor and copies it in, which happens for ops without an `out=` form and when
    the functional call's result dtype differs from `output`'s (an `out=` of another
    dtype would compute in that dtype, not convert afterwards as `bind_kernel` does).

    The choice is made here, once, by running the functional call on `meta` tensors of
    the inputs' shapes and dtypes. An `hl.sdpa` on CUDA that one of lumir's attention
    kernels takes runs that kernel instead, writing `output` itself and launched as
    `pdl` says (`lumir.runtime.attention`).

    Raises:
        UnknownKernelError: `name` is not an op of the kernel table.
    """
    shape, dtype = tuple(output.shape), output.dtype
    kernel = bind_kernel(name, params, shape, dtype)
    if name == "hl.sdpa" and (attention := _lumir_sdpa(params, inputs, output, pdl)):
        return attention, True
    binder = INTO_KERNELS.get(name)
    if binder is not None and _natural_result_matches(name, params, inputs, output):
        return binder(params, shape, dtype), True
    return (lambda out, *xs: out.copy_(kernel(*xs))), False


def _lumir_sdpa(
    params: Params, inputs: Sequence[torch.Tensor], output: torch.Tensor, pdl: PdlMode
) -> IntoKernel | None:
    """An `hl.sdpa` on CUDA as one of lumir's attention kernels, writing the launch's
    buffer itself (`lumir.runtime.attention`): the few-query kernel where it takes the
    call, else the prefill kernel where it does; None where neither does (torch's SDPA
    then runs, its result copied in)."""
    query, key, value, *rest = inputs
    mask = rest[0] if rest else None
    is_causal, enable_gqa, scale = _sdpa_flags(params)
    if not query.is_cuda or output.dtype != query.dtype or output.shape != query.shape:
        return None
    if not few_query_attention_problems(query, key, value, mask, enable_gqa):
        return _LumirAttention(few_query_attention, is_causal, scale, pdl)
    if not prefill_attention_problems(query, key, value, mask, enable_gqa):
        return _LumirAttention(prefill_attention, is_causal, scale, pdl)
    return None


@dataclass(frozen=True)
class _LumirAttention:
    """The `IntoKernel` of an `hl.sdpa` that one of lumir's attention kernels runs
    (`run`: `few_query_attention` or `prefill_attention`), with the `warm_up` the
    loader compiles ahead (`lumir.runtime.triton_launch`)."""

    run: Callable[..., torch.Tensor]
    is_causal: bool
    scale: float | None
    pdl: PdlMode

    def __call__(self, out: torch.Tensor, *operands: torch.Tensor) -> object:
        return self.run(out, *operands, is_causal=self.is_causal, scale=self.scale, pdl=self.pdl)

    def warm_up(self, out: torch.Tensor, *operands: torch.Tensor) -> None:
        self.run(
            out, *operands, is_causal=self.is_causal, scale=self.scale, pdl=self.pdl, warm_up=True
        )


def _natural_result_matches(
    name: str, params: Params, inputs: Sequence[torch.Tensor], output: torch.Tensor
) -> bool:
    """Whether the functional call gives `output`'s shape and dtype before any conversion."""
    if name == "hl.cast":  # the conversion is the op
        return True
    raw = KERNELS[name](params, tuple(output.shape), output.dtype)
    metas = [torch.empty(x.shape, dtype=x.dtype, device="meta") for x in inputs]
    try:
        result = raw(*metas)
    except (RuntimeError, NotImplementedError, TypeError, ValueError):
        return False  # torch reports the problem when the launch runs, as before
    return result.dtype == output.dtype and tuple(result.shape) == tuple(output.shape)
