"""The decomposition table aot_autograd applies before lumir imports a graph.

A subset of torch's own decompositions (`torch._decomp`), chosen for what `hl` has:
layer and group norm and their statistics (var, std and their `_mean` forms) become
reductions and elementwise ops (through the `prims` torch writes them with:
lumir.frontend.prims), `masked_fill` becomes `where`, the `*_like` / `new_*`
constructors and `zero` (a functional `zero_`: Swin V2 zeroes a third of its qkv bias)
become `full`, `stack` and `repeat` become the views and `cat` they are made of,
`clamp`, the hard activations and `_prelu_kernel` (`nn.PReLU`) become `where` over
comparisons that keep a NaN (`isnan`), softplus, ELU (SELU is one) and mish become
`log1p`/`expm1` under a `where`, `log_softmax`, `logsumexp` and vector norms become
reductions, whole-tensor `sum`/`mean` reduce over every dimension (`tril`/`triu` are
imported, not decomposed: lumir.frontend.generators.triangle), `nan_to_num` a `where` over
`isnan`/`isposinf`/`isneginf`, `rot90` a flip and a transpose, and the losses
(`nll_loss`, so `cross_entropy`; MSE, smooth L1, Huber, binary cross-entropy with or
without logits, `logsigmoid`) the gathers, reductions and elementwise ops they are
made of; weight norm, GLU, pixel (un)shuffle, channel shuffle, adaptive
average pooling, nearest and (bi/tri)linear upsampling, reflection and replication
padding, `im2col` (`F.unfold`) and `Tensor.unfold` become gathers (`index` with whole
leading dimensions, `as_strided`) and arithmetic. `diagonal` an `as_strided`,
`diag_embed` and `nansum` a `where` and a sum; `isinf` a comparison of `abs` with
infinity, `aminmax` an `amin` and an `amax`, `count_nonzero` a sum of `!= 0`,
`heaviside` a `where`, and `aten.norm` with a `p` (`F.pairwise_distance`) a vector
norm. `roll` is lumir's own decomposition (`_roll`: slices and a `cat`), and so are
`eye`, integer `fmod` and `round` with `decimals` (lumir.frontend.exact_decompositions),
a strided `slice_scatter` (`_slice_scatter`: a `where` over the positions it writes),
`scatter` of a tensor or a number (`_scatter`: the `index_put` it is), `masked_scatter`
(`_masked_scatter`: a gather at the running count of the mask, and a `where`),
`var_mean` (`_var_mean`: the mean corrected by a second pass, so that a row of one
value normalises to exactly 0 as in ATen),
eval-mode batch norm (`_batch_norm_inference`:
torch's goes through the training overload, which mutates the running statistics;
a batch norm in training mode, whose functional overload returns the new running
statistics, and instance norm, a batch norm without them, are torch's: batch
statistics from `var_mean`; in a training graph the backward kernels of layer, group
and batch norm are torch's decompositions too: under autocast the decomposed forwards
save half-precision statistics of an f32 norm, which the fused backward kernels refuse),
every convolution, transposed ones included, max and average pooling
(lumir.frontend.window_decompositions: the windows gathered with strided slices, then
a product or a reduction) and `col2im` (`F.fold`: its kernel offsets' blocks spread
and padded into place and added; torch's decomposition accumulates with `index_put`).
`linear` reaches the graph as `t` + `mm`; `addmm` and `baddbmm` are not decomposed here
but imported as a product plus an add (lumir.frontend.structured.convert_addmm), so the
bias, residual and alpha rules see them and half-precision products stay half precision
(torch's decomposition computes them in f32 on CPU). `nn.TransformerEncoderLayer`'s
inference fast path, one op with the layer's weights as arguments, is written out as
its projections, attention and norms (lumir.frontend.transformer_decompositions).
Scaled-dot-product
attention is deliberately absent: it stays one fused-attention node, imported as
`hl.sdpa`.

Upsampling and `max_pool1d` are decomposed by torch itself while tracing, before this
table is asked, at strides unlike eager's, and an out-of-place rrelu (contiguous in
ATen) reaches the table as the functional op an in-place one (in its tensor's layout)
also becomes: `with_eager_layouts` makes the graph Dynamo hands the backend call them
with their result laid out as ATen's kernels lay it out. An eval-mode rrelu is a leaky
ReLU (`_rrelu_with_noise`). `softshrink` is also decomposed while tracing, to a value
unlike ATen's (-0 for +0): `with_eager_layouts` calls lumir's decomposition instead
(lumir.frontend.kernel_decompositions.softshrink).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable

import torch
from torch._decomp import get_decompositions
from torch._prims_common import suggest_memory_format
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing

from lumir.frontend.dtypes import opmath_dtype
from lumir.frontend.exact_decompositions import EXACT_DECOMPOSITIONS
from lumir.frontend.kernel_decompositions import KERNEL_DECOMPOSITIONS, softshrink
from lumir.frontend.transformer_decompositions import transformer_encoder_layer
from lumir.frontend.window_decompositions import (
    avg_pool,
    convolution,
    fold,
    max_pool_with_indices,
)

aten = torch.ops.aten

DECOMPOSED: tuple[object, ...] = (
    aten.native_layer_norm.default,
    aten.native_layer_norm_backward.default,
    aten.native_group_norm.default,
    aten.native_group_norm_backward.default,
    aten.native_batch_norm_backward.default,
    aten.var.correction,
    aten.std.correction,
    aten.std_mean.correction,
    aten.masked_fill.Scalar,
    aten.masked_fill.Tensor,
    aten.rsub.Scalar,
    aten.rsub.Tensor,
    aten.addcmul.default,
    aten.addcdiv.default,
    aten.lerp.Scalar,
    aten.lerp.Tensor,
    aten.threshold.default,
    aten.celu.default,
    aten.frac.default,
    aten.logaddexp.default,
    aten.zeros_like.default,
    aten.ones_like.default,
    aten.new_zeros.default,
    aten.new_ones.default,
    aten.new_full.default,
    aten.zeros.default,
    aten.ones.default,
    aten.zero.default,
    aten._native_batch_norm_legit.no_stats,
    aten._native_batch_norm_legit_functional.default,
    aten.hardtanh.default,
    aten.leaky_relu.default,
    aten._prelu_kernel.default,
    aten.stack.default,
    aten.repeat.default,
    aten.clamp.default,
    aten.clamp.Tensor,
    aten.clamp_min.default,
    aten.clamp_min.Tensor,
    aten.clamp_max.default,
    aten.clamp_max.Tensor,
    aten.hardsigmoid.default,
    aten.hardswish.default,
    aten.softplus.default,
    aten.elu.default,
    aten.mish.default,
    aten._log_softmax.default,
    aten.logsumexp.default,
    aten.linalg_vector_norm.default,
    aten.sum.default,
    aten.mean.default,
    aten.nan_to_num.default,
    aten.rot90.default,
    aten.nll_loss_forward.default,
    aten.nll_loss2d_forward.default,
    aten.mse_loss.default,
    aten.smooth_l1_loss.default,
    aten.huber_loss.default,
    aten.binary_cross_entropy_with_logits.default,
    aten.binary_cross_entropy.default,
    aten.log_sigmoid_forward.default,
    aten._weight_norm_interface.default,
    aten.glu.default,
    aten.pixel_shuffle.default,
    aten.pixel_unshuffle.default,
    aten.channel_shuffle.default,
    aten._adaptive_avg_pool2d.default,
    aten.upsample_nearest1d.default,
    aten.upsample_nearest2d.default,
    aten.upsample_nearest3d.default,
    aten.upsample_nearest1d.vec,
    aten.upsample_nearest2d.vec,
    aten.upsample_nearest3d.vec,
    aten.upsample_linear1d.default,
    aten.upsample_bilinear2d.default,
    aten.upsample_trilinear3d.default,
    aten.upsample_bilinear2d.vec,
    aten.upsample_trilinear3d.vec,
    aten.reflection_pad1d.default,
    aten.reflection_pad2d.default,
    aten.reflection_pad3d.default,
    aten.replication_pad1d.default,
    aten.replication_pad2d.default,
    aten.replication_pad3d.default,
    aten.im2col.default,
    aten.unfold.default,
    aten.nansum.default,
    aten.diagonal.default,
    aten.diag_embed.default,
    aten.isinf.default,
    aten.aminmax.default,
    aten.count_nonzero.default,
    aten.count_nonzero.dim_IntList,
    aten.heaviside.default,
    aten.norm.Scalar,
    aten.norm.ScalarOpt_dim,
)
"""The overloads lumir asks aot_autograd to decompose (each has a torch decomposition)."""


def _roll(x: torch.Tensor, shifts: list[int], dims: list[int] | None = None) -> torch.Tensor:
    """aten.roll as the `cat` of two slices per rolled dimension: position i reads
    position (i - shift) mod n, so the last `shift mod n` positions come first. torch's
    own decomposition indexes with the `fmod` of an integer range, which `hl` has no op
    for; `narrow` and `cat` are views and a copy lumir imports. With no `dims` the
    flattened tensor rolls. A roll that moves nothing (every shift a multiple of its
    size) is a contiguous copy, as ATen's is, whatever the input's layout."""
    if not dims:
        return _roll(x.reshape(-1), shifts, [0]).reshape(x.shape)
    result = x
    for shift, dim in zip(shifts, dims, strict=True):
        size = result.shape[dim]
        cut = size - shift % size if size else size
        if cut != size:
            tail, head = result.narrow(dim, cut, size - cut), result.narrow(dim, 0, cut)
            result = torch.cat([tail, head], dim)
    return result if result is not x else x.clone(memory_format=torch.contiguous_format)


def _slice_scatter(
    x: torch.Tensor,
    src: torch.Tensor,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> object:
    """aten.slice_scatter with a step above 1 as a `where` over a mask of the positions
    it writes, reading `src` through an `index` of one dimension (torch's decomposition
    reads it with `_unsafe_masked_index`, which `hl` has no op for). A unit step is
    left to the importer's own rule (NotImplemented: the op is traced as it is). The
    result has `x`'s dtype and strides, as ATen's copy of `src` into a clone of `x` that
    preserves its strides has (`aten.copy`, which clones `x` so: a slice of a bigger
    tensor keeps its gaps, an expanded one becomes dense)."""
    if step == 1:
        return NotImplemented
    dim = dim % x.dim()
    size = x.shape[dim]
    first = 0 if start is None else (start + size if start < 0 else start)
    first = torch.sym_min(torch.sym_max(first, 0), size)
    last = size if end is None else (end + size if end < 0 else end)
    last = torch.sym_min(torch.sym_max(last, first), size)
    count = src.shape[dim]
    if count == 0:
        return aten.copy.default(x, x)
    idx = torch.arange(size, device=x.device)
    offset = idx - first
    mask = (idx >= first) & (idx < last) & (offset % step == 0)
    position = torch.clamp(offset // step, 0, count - 1)
    gathered = aten.index.Tensor(src, [None] * dim + [position])
    shape = [1] * x.dim()
    shape[dim] = -1
    return aten.copy.default(x, torch.where(mask.view(shape), gathered.to(x.dtype), x))


def _scatter(x: torch.Tensor, dim: int, index: torch.Tensor, src: object) -> object:
    """aten.scatter (`.src` and `.value`: no reduction) as the `index_put` it is: element
    p of `index` writes `src[p]` (or the number) at x's position p with its `dim`
    coordinate replaced by `index[p]`; the other coordinates are `arange`s of the
    index's sizes, which may be smaller than x's. torch has no decomposition of the
    functional op; lumir imports this `index_put` as one `hl.index_copy` (GroupViT's
    hard softmax writes 1.0 at each argmax, DeepSeek-V3's router marks its groups,
    Reformer undoes its sort). A negative position, which ATen refuses (it does not
    count from the end, as indexing does), is made `x.size(dim)`, out of range as
    well, so the call fails as eager's does. Among duplicate positions the last one
    wins, as in ATen's CPU loop (torch leaves it unspecified). A 0-d tensor, or an
    index of another rank than x (ATen refuses it), is left alone. ATen's result is
    contiguous whatever x's layout (its meta allocates it so; `index_put` keeps x's):
    OWN_DECOMPOSITIONS lays it out so."""
    if x.dim() == 0 or index.dim() != x.dim():
        return NotImplemented
    dim = dim % x.dim()
    positions = []
    for d, size in enumerate(index.shape):
        if d == dim:
            positions.append(torch.where(index < 0, x.shape[dim], index))
            continue
        shape = [1] * x.dim()
        shape[d] = size
        positions.append(torch.arange(size, device=x.device).view(shape))
    if isinstance(src, torch.Tensor):
        values = src
        for d, size in enumerate(index.shape):
            values = values.narrow(d, 0, size)
    else:
        values = torch.full(index.shape, src, dtype=x.dtype, device=x.device)
    return aten.index_put.default(x, positions, values)


def _masked_scatter(x: torch.Tensor, mask: torch.Tensor, source: torch.Tensor) -> object:
    """aten.masked_scatter (a vision-language model puts its image features into the
    text embeddings so) as a gather and a `where`: over x and the mask broadcast
    together and read row-major, the k-th true position takes the source's k-th
    element, k being the running count of true positions (`cumsum`) less one. torch
    has no decomposition of it. A source with fewer elements than the mask has true
    positions makes the gather read out of range, so the call fails as eager's does;
    an empty source, from which eager takes nothing when the mask is all false, is
    left alone (the gather would have nothing to read). The result is contiguous, as
    ATen's (it scatters into a contiguous clone)."""
    empty = isinstance(source.numel(), int) and source.numel() == 0
    if mask.dtype != torch.bool or source.dtype != x.dtype or empty:
        return NotImplemented
    shape = torch.broadcast_shapes(x.shape, mask.shape)
    flat = mask.expand(shape).reshape(-1)
    taken = torch.clamp(flat.to(torch.int64).cumsum(0) - 1, min=0)
    gathered = aten.index.Tensor(source.reshape(-1), [taken])
    return torch.where(flat, gathered, x.expand(shape).reshape(-1)).reshape(shape)


def _rrelu_with_noise(
    x: torch.Tensor,
    noise: torch.Tensor,
    lower: float = 0.125,
    upper: float = 1.0 / 3.0,
    training: bool = False,
    generator: object = None,
) -> object:
    """aten.rrelu_with_noise_functional (`F.rrelu`, `nn.RReLU`) in eval mode: a leaky
    ReLU of slope (lower + upper) / 2, the noise untouched, in the input's layout as
    the op's fake tensor has it (the functional op also stands for the in-place
    `rrelu_`, which keeps its tensor's; `_contiguous_rrelu` lays out an out-of-place
    call's result). In training the slopes are random: the op stays (in eager)."""
    if training:
        return NotImplemented
    return aten.leaky_relu.default(x, (lower + upper) / 2), noise.clone()


def _batch_norm_inference(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running_mean: torch.Tensor,
    running_var: torch.Tensor,
    momentum: float,
    eps: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """aten._native_batch_norm_legit_no_training: a batch norm in eval mode is an affine
    map per channel, (x - mean) / sqrt(var + eps) * weight + bias, in f32 for
    half-precision inputs as ATen computes it. torch's decomposition goes through the
    training overload, whose schema mutates the running statistics, which aot_autograd
    refuses in a functional graph. The two statistics outputs are empty, as ATen's are
    in eval mode."""
    compute = opmath_dtype(x.dtype)
    shape = [1, -1] + [1] * (x.dim() - 2)
    scale = torch.rsqrt(running_var.to(compute) + eps)
    result = (x.to(compute) - running_mean.to(compute).reshape(shape)) * scale.reshape(shape)
    if weight is not None:
        result = result * weight.to(compute).reshape(shape)
    if bias is not None:
        result = result + bias.to(compute).reshape(shape)
    empty = x.new_zeros((0,), dtype=compute)
    return result.to(x.dtype), empty, empty.clone()


def _var_mean(
    x: torch.Tensor,
    dim: list[int] | None = None,
    *,
    correction: float | None = None,
    keepdim: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """aten.var_mean (so layer and group norm's statistics) with a corrected mean: the
    mean of the sum, plus the mean of what is left over (x - mean). torch's
    decomposition divides the sum once, which is an ulp off for a row whose every
    element is the same value (3x rounds where x does not); a LayerNorm then multiplies
    that ulp by 1/sqrt(eps) (2.4e-4 at eps 1e-6) where ATen's Welford mean, and
    inductor's, leave exactly 0. The correction is exact there (x - mean is exact for
    nearby values) and otherwise makes the mean as accurate as a second pass can.
    Half-precision inputs are reduced in f32 and the statistics rounded, as ATen does."""
    compute = opmath_dtype(x.dtype)
    wide = x.to(compute)
    dims = list(range(x.dim())) if not dim else [d % max(x.dim(), 1) for d in dim]
    count = 1
    for d in dims:
        count = count * x.shape[d]
    mean = wide.mean(dims, keepdim=True)
    mean = mean + (wide - mean).mean(dims, keepdim=True)
    deviation = wide - mean
    # ATen divides by max(0, N - correction): an empty row's variance is 0 / 0 = NaN.
    divisor = torch.sym_max(0, count - (1 if correction is None else correction))
    variance = (deviation * deviation).sum(dims, keepdim=True) / divisor
    if not keepdim:
        variance, mean = variance.squeeze(dims), mean.squeeze(dims)
    return variance.to(x.dtype), mean.to(x.dtype)


def _suggested_format(tensor: object) -> torch.memory_format | None:
    """ATen's `Tensor::suggest_memory_format` of a 4-D or 5-D tensor when it is channels
    last, else None. ATen's rule reads the strides in channels-last order with its own
    choices for size-1 dimensions (a (1, 4, 1, 8) tensor with strides (1, 1, 32, 4) is
    contiguous to it although `is_contiguous(channels_last)` holds), and it also
    names channels last a tensor that is only strided like it (a sliced one)."""
    if not isinstance(tensor, torch.Tensor) or tensor.dim() not in (4, 5):
        return None
    layout = suggest_memory_format(tensor)
    return None if layout == torch.contiguous_format else layout


def _in_layout(result: object, layout: torch.memory_format | None) -> object:
    """`result` at the strides of a fresh tensor in `layout` (contiguous for None), as
    ATen's kernels allocate their results: every dimension's stride, a size-1
    dimension's too (`contiguous()` keeps a tensor whose only odd strides are those)."""
    if result is NotImplemented:
        return result
    if isinstance(result, tuple):
        return tuple(_in_layout(part, layout) for part in result)
    assert isinstance(result, torch.Tensor)
    return result.clone(memory_format=layout or torch.contiguous_format)


def _with_aten_strides(decomposition: Callable[..., object], follows_input: bool = True):
    """`decomposition` with its result laid out as ATen's kernel lays it out: channels
    last when `follows_input` and the input suggests it (`_suggested_format`), contiguous
    otherwise. The strides are what user code after the op sees while aot_autograd
    traces it: torch's `repeat` keeps a permuted input's order, so WavLM's `.view` of
    its repeated position bias failed the trace where eager's contiguous result views.
    In `hl` the layout is free (`clone` is the value itself)."""

    @functools.wraps(decomposition)
    def decompose(*args: object, **kwargs: object) -> object:
        layout = _suggested_format(args[0]) if follows_input and args else None
        return _in_layout(decomposition(*args, **kwargs), layout)

    return decompose


def _convolution_format(
    input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, *params: object
) -> torch.memory_format:
    """The memory format of ATen's convolution result, asked of ATen itself: the backend
    `_select_conv_backend` picks for these tensors (mkldnn, the slow kernels, cuDNN,
    depthwise: each has its own rule, and the dtype, device and sizes choose among
    them) and that backend's `_conv_determine_backend_memory_format`. A 1-d
    convolution runs as a 2-d one over `input.contiguous().unsqueeze(2)` and
    `weight.unsqueeze(2)`, so an input whose only non-contiguous stride is that of a
    size-1 dimension (channels 1, as in (2, 1, 4) with strides (4, 1, 1)) can come
    back channels last, squeezed. torch's fake convolution asks the same functions
    (torch._subclasses.fake_impls); sizes they cannot read get the input's or the
    weight's suggested format, mkldnn's and cuDNN's rule."""
    with disable_proxy_modes_tracing():
        if input.dim() == 3:
            flat = input if input.is_contiguous() else input.contiguous()
            input4, weight4 = flat.unsqueeze(2), weight.unsqueeze(2)
        else:
            input4, weight4 = input, weight
        try:
            backend = torch._C._select_conv_backend(input, weight, bias, *params, None)
            return torch._C._conv_determine_backend_memory_format(input4, weight4, backend)
        except Exception:  # a size without a hint (unbacked): the suggested formats
            layout = _suggested_format(input4) or _suggested_format(weight4)
            return layout or torch.contiguous_format


def _convolution_in_aten_layout(
    input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, *params: object
) -> object:
    """lumir's convolution (window_decompositions; `params` are aten.convolution's
    stride, padding, dilation, transposed, output_padding and groups) at ATen's result
    strides (`_convolution_format`; a 1-d result is the squeezed 2-d one)."""
    result = convolution(input, weight, bias, *params)  # type: ignore[arg-type]
    if result is NotImplemented or not isinstance(result, torch.Tensor):
        return result
    layout = _convolution_format(input, weight, bias, *params)
    if result.dim() == 3:
        return result.unsqueeze(2).clone(memory_format=layout).squeeze(2)
    return result.clone(memory_format=layout)


_CONTIGUOUS_RESULTS = (aten.repeat.default, aten._weight_norm_interface.default)
"""Overloads whose torch decomposition keeps an input's permuted layout where ATen's
kernel returns a contiguous tensor."""

_CONTIGUOUS_ON_CPU = (aten.log_sigmoid_forward.default,)
"""Overloads whose CPU kernel returns a contiguous tensor where torch's elementwise
decomposition (and ATen's CUDA kernel, `empty_like`) keeps the input's layout."""


def _contiguous_on_cpu(decomposition: Callable[..., object]) -> Callable[..., object]:
    """`decomposition` with its result contiguous when its input is on the CPU."""

    @functools.wraps(decomposition)
    def decompose(x: torch.Tensor, *args: object, **kwargs: object) -> object:
        result = decomposition(x, *args, **kwargs)
        return _in_layout(result, None) if x.device.type == "cpu" else result

    return decompose


_LAYOUT_FOLLOWS_INPUT = (aten._adaptive_avg_pool2d.default, aten.channel_shuffle.default)
"""Overloads whose torch decomposition returns a contiguous tensor where ATen's kernel
lays its result out as the input suggests (`_suggested_format`)."""

OWN_DECOMPOSITIONS: dict[object, Callable[..., object]] = {
    aten.roll.default: _roll,
    aten.slice_scatter.default: _slice_scatter,
    aten.scatter.src: _with_aten_strides(_scatter, follows_input=False),
    aten.masked_scatter.default: _with_aten_strides(_masked_scatter, follows_input=False),
    aten.scatter.value: _with_aten_strides(_scatter, follows_input=False),
    aten.convolution.default: _convolution_in_aten_layout,
    aten.max_pool2d_with_indices.default: _with_aten_strides(
        functools.partial(max_pool_with_indices, 2)
    ),
    aten.max_pool3d_with_indices.default: _with_aten_strides(
        functools.partial(max_pool_with_indices, 3)
    ),
    aten.avg_pool2d.default: _with_aten_strides(functools.partial(avg_pool, 2)),
    aten.avg_pool3d.default: _with_aten_strides(functools.partial(avg_pool, 3)),
    aten.col2im.default: fold,
    aten._native_batch_norm_legit_no_training.default: _batch_norm_inference,
    aten.rrelu_with_noise_functional.default: _rrelu_with_noise,
    aten._transformer_encoder_layer_fwd.default: transformer_encoder_layer,
    aten.var_mean.correction: _var_mean,
    **EXACT_DECOMPOSITIONS,
    **KERNEL_DECOMPOSITIONS,
}
"""Overloads lumir decomposes itself, where torch's decomposition needs an op `hl` lacks."""


def _upsampled(call: Callable[..., object], mode: Callable[..., str] | None = None):
    """`call` (an upsampling: `F.interpolate`, `torch._C._nn.upsample_bilinear2d`,
    `aten.upsample_nearest1d.vec`, ...) with its result at ATen's strides: those of a
    fresh tensor in the input's suggested memory format for a 2-d or 3-d upsampling
    (`_suggested_format`; ATen's UpSample*.cpp metas), contiguous for a 1-d one, on the
    devices of `_UPSAMPLED_DEVICES`. torch's decompositions of these overloads
    (torch._decomp, registered as their Autograd kernels, so they run before
    aot_autograd's table is asked) keep a 3-d input's permutation and odd strides of
    size-1 dimensions. `mode` reads the mode from the call's arguments after the input:
    an "area" interpolation is an adaptive average pool, which lumir's table lays out
    itself."""

    def upsample(*args: object, **kwargs: object) -> object:
        result = call(*args, **kwargs)
        input = _first_tensor(args, kwargs)
        if mode is not None and mode(*args[1:], **kwargs) == "area":
            return result
        if not isinstance(result, torch.Tensor) or input is None:
            return result
        if input.device.type not in _UPSAMPLED_DEVICES:
            return result
        return _in_layout(result, _suggested_format(input))

    return _named(upsample, call)


def _interpolation_mode(
    size: object = None,
    scale_factor: object = None,
    mode: str = "nearest",
    *_: object,
    **__: object,
) -> str:
    """The `mode` of `F.interpolate` (or `F.upsample`) from its arguments after the input
    (a keyword `input` is not among them)."""
    return mode


def _first_tensor(args: tuple[object, ...], kwargs: dict[str, object]) -> torch.Tensor | None:
    """A call's input: its first positional argument, or its `input` (`self`) keyword."""
    first = args[0] if args else kwargs.get("input", kwargs.get("self"))
    return first if isinstance(first, torch.Tensor) else None


_UPSAMPLED_DEVICES = ("cpu",)
"""The devices where `_upsampled` lays results out as ATen does, those checked against
eager. ATen's CUDA kernels allocate through the same metas (UpSampleNearest2d.cu and
UpSampleBilinear2d.cu write a channels-last output through a contiguous buffer and copy
back where their channels-last path is not taken: fewer than 4 / 16 channels), so
eager's CUDA layout is the same rule, but it has not been checked on a GPU; torch's
decompositions there give a contiguous result for those channel counts."""


def _max_pool1d(call: Callable[..., object]):
    """`call` (`F.max_pool1d`, `torch.max_pool1d`, `aten.max_pool1d`) with its result
    contiguous where ATen's is: ATen's max_pool1d (MaxPooling.cpp, CompositeImplicit)
    runs its own CPU kernel into a fresh contiguous tensor when no gradient is needed,
    but under tracing (a FakeTensor is subclass-like) always takes the
    max_pool1d_with_indices path (a 2-d pool of the unsqueezed input, channels last
    for a transposed one). With a gradient, or off the CPU, eager takes that path too.
    A call that returns the indices (`return_indices=True`) is that path."""

    def pool(*args: object, **kwargs: object) -> object:
        result = call(*args, **kwargs)
        input = _first_tensor(args, kwargs)
        if (
            isinstance(result, torch.Tensor)
            and input is not None
            and input.device.type == "cpu"
            and not (input.requires_grad and torch.is_grad_enabled())
        ):
            return _in_layout(result, None)
        return result

    return _named(pool, call)


def _contiguous_rrelu(call: Callable[..., object], functional: bool) -> Callable[..., object]:
    """`call` (`F.rrelu` when `functional`, else `torch.rrelu`) with its result
    contiguous, as ATen's rrelu_with_noise allocates it (LEGACY_CONTIGUOUS_MEMORY_FORMAT,
    in eval and in training), where the traced op keeps the input's layout (its meta
    is `empty_like`). An in-place `F.rrelu` (`inplace=True`, its fifth argument) keeps
    its tensor's layout in eager and is left as it is: functionalization makes it the
    same functional op as an out-of-place one, so the table cannot tell them apart."""

    def rrelu(*args: object, **kwargs: object) -> object:
        result = call(*args, **kwargs)
        inplace = functional and kwargs.get("inplace", len(args) > 4 and args[4])
        if not isinstance(result, torch.Tensor) or inplace:
            return result
        return _in_layout(result, None)

    return _named(rrelu, call)


def _contiguous_power_of_a_number(call: Callable[..., object]) -> Callable[..., object]:
    """`call` (`torch.pow`, `operator.pow`) with its result contiguous when the base is
    a number and the exponent a tensor (`2.0 ** x`, `torch.pow(2, x)`): ATen's
    pow.Scalar meta allocates its output contiguous on every device, where the traced
    op keeps the exponent's layout, so a transposed x gave a transposed result (and
    every op after it followed). A tensor base is pow.Tensor_*, whose result follows
    its inputs' layout in eager as in the trace: left as it is."""

    def power(*args: object, **kwargs: object) -> object:
        result = call(*args, **kwargs)
        base = args[0] if args else kwargs.get("self", kwargs.get("input"))
        if isinstance(result, torch.Tensor) and not isinstance(base, torch.Tensor):
            return _in_layout(result, None)
        return result

    return _named(power, call)


def _reflected_power(x: object, base: object) -> object:
    """`x.__rpow__(base)` (a number to the power of a tensor) laid out as eager does."""
    return _contiguous_power_of_a_number(torch.pow)(base, x)


def _named(wrapper: Callable[..., object], call: object) -> Callable[..., object]:
    """`wrapper` named after `call` but in this module: not `functools.wraps`, whose
    module (torch's) would make the generated code of a graph calling it name
    `call` itself (torch.fx writes a function of a torch module by its path)."""
    name = str(getattr(call, "__name__", None) or call).replace(".", "_")
    wrapper.__name__ = wrapper.__qualname__ = f"eager_layout_{name}"
    return wrapper


_UPSAMPLINGS = (
    "upsample_nearest1d",
    "upsample_nearest2d",
    "upsample_nearest3d",
    "_upsample_nearest_exact1d",
    "_upsample_nearest_exact2d",
    "_upsample_nearest_exact3d",
    "upsample_linear1d",
    "upsample_bilinear2d",
    "upsample_bicubic2d",
    "upsample_trilinear3d",
    "_upsample_bilinear2d_aa",
    "_upsample_bicubic2d_aa",
)
"""The ATen upsampling functions (each the `torch._C._nn` builtin and the `aten` packet
and overloads of that name)."""


@functools.cache
def _eager_layout_calls() -> dict[object, Callable[..., object]]:
    """Dynamo-level call target -> the same call with eager's result strides, for the
    calls whose result torch lays out otherwise while tracing, before any entry of the
    decomposition table is asked (see `with_eager_layouts`)."""
    functional = torch.nn.functional
    calls: dict[object, Callable[..., object]] = {
        functional.interpolate: _upsampled(functional.interpolate, _interpolation_mode),
        functional.upsample: _upsampled(functional.upsample, _interpolation_mode),
        functional.upsample_nearest: _upsampled(functional.upsample_nearest),
        functional.upsample_bilinear: _upsampled(functional.upsample_bilinear),
    }
    for name in _UPSAMPLINGS:
        packet = getattr(aten, name)
        targets = [packet, *(getattr(packet, o) for o in packet.overloads() if o != "out")]
        builtin = getattr(torch._C._nn, name, None)
        for target in [*targets, *([builtin] if builtin is not None else [])]:
            calls[target] = _upsampled(target)
    for target in (
        functional.max_pool1d,
        torch.max_pool1d,
        aten.max_pool1d,
        aten.max_pool1d.default,
    ):
        calls[target] = _max_pool1d(target)
    for target in (torch.pow, operator.pow, aten.pow.Scalar):
        calls[target] = _contiguous_power_of_a_number(target)
    for target in (torch._C._nn.softshrink, aten.softshrink, aten.softshrink.default):
        calls[target] = softshrink
    calls[functional.rrelu] = _contiguous_rrelu(functional.rrelu, functional=True)
    calls[torch.rrelu] = _contiguous_rrelu(torch.rrelu, functional=False)
    return calls


def with_eager_layouts(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """`gm` (the graph Dynamo hands the backend) with its upsamplings, its
    `max_pool1d`s, its out-of-place rrelus and its powers of a number (`2.0 ** x`,
    also as `x.__rpow__(2.0)`) calling `_eager_layout_calls`' versions,
    so that aot_autograd traces their results at eager's strides and every op after
    them (an output's layout follows its inputs') sees those, and its softshrinks
    calling lumir.frontend.kernel_decompositions.softshrink, eager's value (torch's
    own decomposition while tracing gives -0 where ATen gives +0). torch decomposes the
    first two while tracing through kernels of its own (torch._decomp's `py_impl`s,
    ATen's max_pool1d), not through the table, and an rrelu reaches the table as the
    functional op an in-place one also becomes: the table cannot lay them out. A
    `clone` in the traced graph is the value itself in `hl`. `gm` is changed in place
    (its calls do in eager what they did, copied once) and returned; one without such
    calls is left alone."""
    calls = _eager_layout_calls()
    changed = False
    for node in gm.graph.nodes:
        if node.op == "call_method" and node.target == "__rpow__":
            node.op, node.target = "call_function", _reflected_power
            changed = True
        if node.op != "call_function":
            continue
        try:
            replacement = calls.get(node.target)
        except TypeError:  # an unhashable target
            continue
        if replacement is not None:
            node.target = replacement
            changed = True
    if changed:
        gm.recompile()
    return gm


def _torch_decompositions() -> dict[object, Callable[..., object]]:
    table = get_decompositions(list(DECOMPOSED))
    for overload in _CONTIGUOUS_RESULTS:
        table[overload] = _with_aten_strides(table[overload], follows_input=False)
    for overload in _LAYOUT_FOLLOWS_INPUT:
        table[overload] = _with_aten_strides(table[overload])
    for overload in _CONTIGUOUS_ON_CPU:
        table[overload] = _contiguous_on_cpu(table[overload])
    return table


@functools.cache
def lumir_decompositions() -> dict[object, Callable[..., object]]:
    """Overload -> decomposition: torch's for `DECOMPOSED`, lumir's own for the rest."""
    return {**_torch_decompositions(), **OWN_DECOMPOSITIONS}
