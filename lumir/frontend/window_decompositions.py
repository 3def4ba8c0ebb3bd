"""Decompositions of the windowed ops: convolutions and pools, by their definition.

A convolution or a pool reads, for each output position, a window of input positions:
for each offset in the kernel, a strided slice of the (padded) input holds that
offset's value for every output position (`windows`). Stacked along a last axis of
kernel offsets, they turn the op into what `hl` has: a matrix product (a convolution),
a multiply and a sum (a depthwise convolution), a maximum (a max pool) or a sum (an
average pool). Each op so stays in the lumir program instead of splitting the graph
around an eager kernel; the price is the gathered windows, kernel-size times the
input, which a dedicated convolution kernel never materialises.

A transposed convolution becomes an ordinary one over its input spread apart by the
stride (zeros between the values) with the kernel flipped. `F.fold` (col2im), the
adjoint of gathering windows, adds each kernel offset's block spread apart by the
stride and padded into place (`fold`).
"""

from __future__ import annotations

import itertools
import math

import torch

from lumir.frontend.dtypes import opmath_dtype

aten = torch.ops.aten

MAX_WINDOW_OFFSETS = 1024
"""The most kernel offsets a decomposed convolution or pool gathers. Each offset is a
slice of the input in the program, so a larger window (an average pool whose kernel is
a whole 32 x 32 feature map and more) stays in eager, as ATen's own kernel, rather than
growing the program by thousands of ops."""


def output_sizes(
    sizes: list[int],
    kernel: list[int],
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    ceil_mode: bool,
) -> list[int]:
    """The output length along each windowed dimension, as ATen's pooling shape rule
    gives it: with `ceil_mode` a last partial window counts when it starts inside the
    input or its left padding."""
    counts = []
    for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation, strict=True):
        span = size + 2 * p - d * (k - 1) - 1
        count = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (count - 1) * s >= size + p:
            count -= 1
        counts.append(count)
    return counts


def input_offsets(size: int, k: int, s: int, p: int, d: int, count: int) -> list[int]:
    """The kernel offsets along one axis that meet the input at some output position.

    The others read padding at every position, which a pool may skip: a sum adds 0 and
    a maximum meets -inf there. An EfficientNet's `AvgPool2d(2560, ceil_mode=True)`
    over a 1 x 1 map keeps one offset of 2560 per axis. A symbolic size keeps every
    offset, since comparing it would specialise a dynamic length."""
    if not isinstance(size, int):
        return list(range(k))
    kept = []
    for offset in range(k):
        start = offset * d
        first = max(0, -(-(p - start) // s))  # the first position past the left padding
        if first < count and start + first * s < p + size:
            kept.append(offset)
    return kept


def kept_offsets(
    sizes: list[int],
    kernel: list[int],
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    counts: list[int],
) -> list[list[int]] | None:
    """`input_offsets` along each windowed axis, or None when they are more than
    `MAX_WINDOW_OFFSETS` in all (the pool then stays in eager)."""
    kept = [
        input_offsets(*axis)
        for axis in zip(sizes, kernel, stride, padding, dilation, counts, strict=True)
    ]
    return kept if math.prod(len(axis) for axis in kept) <= MAX_WINDOW_OFFSETS else None


def windows(
    x: torch.Tensor,
    kernel: list[int],
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    counts: list[int],
    fill: float,
    ceil_mode: bool = False,
    offsets: list[list[int]] | None = None,
) -> torch.Tensor:
    """[batch, channels, counts..., kernel offsets]: for each offset of the kernel (in
    row-major order; only `offsets` along each axis when given), the input value it
    meets at each output position; positions in the padding (and past it, for a
    `ceil_mode` window) read `fill`.

    Without `ceil_mode` every window ends inside the padded input, so the padding is
    `padding` on both sides and nothing compares a symbolic size (which would
    specialise a dynamic length)."""
    taken_offsets = offsets if offsets is not None else [list(range(k)) for k in kernel]
    pads: list[int] = []
    for size, kept, s, p, d, count in zip(
        x.shape[2:], taken_offsets, stride, padding, dilation, counts, strict=True
    ):
        right = max(p, (count - 1) * s + d * kept[-1] + 1 - size - p) if ceil_mode else p
        pads = [p, right, *pads]  # constant_pad_nd pads the last dimension first
    if any(pads):
        x = torch.constant_pad_nd(x, pads, fill)
    if not all(isinstance(size, int) for size in x.shape):
        return _windows_by_axis(x, taken_offsets, stride, dilation, counts)
    taken = []
    for offsets in itertools.product(*taken_offsets):
        window = x
        for axis, (offset, count, s, d) in enumerate(
            zip(offsets, counts, stride, dilation, strict=True)
        ):
            start = offset * d
            window = aten.slice.Tensor(window, 2 + axis, start, start + (count - 1) * s + 1, s)
        taken.append(window)
    return torch.stack(taken, dim=-1)


def _windows_by_axis(
    x: torch.Tensor,
    taken_offsets: list[list[int]],
    stride: list[int],
    dilation: list[int],
    counts: list[int],
) -> torch.Tensor:
    """`windows` of the padded `x` gathered one axis at a time: the offsets along the
    first windowed axis stacked on a new last axis, then those along the next, and the
    trailing offset axes flattened (row-major, the order of the one-step form).

    Under dynamic shapes every slice and every stacked piece costs symbolic reasoning
    while aot_autograd traces (torch's slice and cat metas compare the symbolic sizes
    with sympy), about 10 ms each on the CPU. The one-step form takes two slices per
    offset of a k x k kernel and stacks k² pieces: 1.1 CPU seconds per 7x7 depthwise
    convolution, paid twice per graph (Dynamo traces the frame again after
    aot_autograd specialises a module's float). This form takes k slices and stacks k
    pieces per axis: 0.47 s. With static sizes the one-step form stays: it writes the
    windows once, where this form also writes the first axis's stack (k times the
    input)."""
    rank = len(counts)
    for axis, (offsets, count, s, d) in enumerate(
        zip(taken_offsets, counts, stride, dilation, strict=True)
    ):
        pieces = [
            aten.slice.Tensor(x, 2 + axis, o * d, o * d + (count - 1) * s + 1, s) for o in offsets
        ]
        x = torch.stack(pieces, dim=-1)
    return x.flatten(-rank) if rank > 1 else x


def convolution(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    transposed: bool,
    output_padding: list[int],
    groups: int,
) -> torch.Tensor:
    """A 1-d, 2-d or 3-d convolution as the products and sums lumir imports.

    A convolution whose windows tile the input (`_patch_convolution`) is one matrix
    product over views. Any other (padding, overlapping or dilated windows, groups) is
    `_windowed_convolution`: the windows gathered with strided slices, then a matrix
    product (a batched one per group) or, for a depthwise convolution, a multiply and a
    sum. A transposed convolution is the convolution it is the adjoint of
    (`_transposed_convolution`).
    """
    rank = weight.dim() - 2
    if rank not in (1, 2, 3) or x.dim() != rank + 2:
        return NotImplemented
    # One value stands for every dimension, as in ATen: `padding="valid"` reaches the
    # graph as `padding=[0]` (EfficientNet's strided depthwise convolutions).
    stride, padding, dilation, output_padding = (
        _expand(values, rank) for values in (stride, padding, dilation, output_padding)
    )
    kernel = list(weight.shape[2:])
    patch = list(stride) == kernel and not any(padding) and set(dilation) == {1}
    if (transposed or groups != 1 or not patch) and math.prod(kernel) > MAX_WINDOW_OFFSETS:
        return NotImplemented
    if transposed:
        return _transposed_convolution(
            x, weight, bias, stride, padding, dilation, output_padding, groups
        )
    if groups == 1 and patch:
        return _patch_convolution(x, weight, bias, kernel)
    return _windowed_convolution(x, weight, bias, stride, padding, dilation, groups)


def _patch_convolution(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, kernel: list[int]
) -> torch.Tensor:
    """A convolution whose stride is its kernel, unpadded and undilated (a vision
    transformer's patch embedding; a 1x1 convolution is the case of kernel 1), as the
    matrix product it is: the input cut into non-overlapping patches, each patch a row
    of channels x kernel values, times the weight as an [out, channels x kernel] matrix,
    plus the bias, back to [batch, out, positions...]. The patches are views and the
    product an `mm` that cuBLASLt runs with the bias fused."""
    rank = len(kernel)
    batch, channels = x.shape[0], x.shape[1]
    counts = [size // k for size, k in zip(x.shape[2:], kernel, strict=True)]
    split_shape = [batch, channels]
    for axis, (count, k) in enumerate(zip(counts, kernel, strict=True)):
        x = x.narrow(2 + axis, 0, count * k)  # a convolution drops a ragged last patch
        split_shape += [count, k]
    # [batch, channels, count0, k0, count1, k1, ...] -> [batch, counts..., channels, ks...]
    order = [0, *(2 + 2 * a for a in range(rank)), 1, *(3 + 2 * a for a in range(rank))]
    patches = x.reshape(split_shape).permute(order).reshape(-1, channels * math.prod(kernel))
    product = torch.mm(patches, weight.reshape(weight.shape[0], -1).t())
    if bias is not None:
        product = product + bias
    positions = product.reshape(batch, *counts, weight.shape[0])
    return positions.permute(0, rank + 1, *range(1, rank + 1)).contiguous()


def _windowed_convolution(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
) -> torch.Tensor:
    """Any (non-transposed) convolution, by its definition: for each offset of the
    kernel, the input positions it meets (a strided slice of the zero-padded input),
    gathered along a last axis of kernel offsets, then contracted with the weight.

    - groups == 1: one matrix product, [positions, channels x kernel] times the weight
      as [channels x kernel, out] (cuBLASLt, bias fused);
    - depthwise (one input channel per group, such as Mamba's causal convolution or
      ConvNeXt's 7x7): a multiply by the weight and a sum over the kernel offsets, in
      f32 for half-precision inputs, as the convolution accumulates;
    - other groups: a batched matrix product, one batch per group.

    The gathered windows hold kernel-size times the input; what a convolution kernel
    saves by not materialising them is traded for keeping the model in one program.
    """
    kernel = list(weight.shape[2:])
    rank = len(kernel)
    batch, channels = x.shape[0], x.shape[1]
    counts = output_sizes(list(x.shape[2:]), kernel, stride, padding, dilation, ceil_mode=False)
    gathered = windows(x, kernel, stride, padding, dilation, counts, 0.0)
    out_channels, taps = weight.shape[0], math.prod(kernel)
    per_group = channels // groups
    if groups == 1:
        rows = gathered.permute(0, *range(2, rank + 2), 1, rank + 2).reshape(-1, channels * taps)
        product = torch.mm(rows, weight.reshape(out_channels, -1).t())
        if bias is not None:
            product = product + bias
        positions = product.reshape(batch, *counts, out_channels)
        return positions.permute(0, rank + 1, *range(1, rank + 1)).contiguous()
    if per_group == 1:
        return _depthwise(gathered, weight, bias, groups, counts)
    grouped = gathered.reshape(batch, groups, per_group, *counts, taps)
    rows = grouped.permute(1, 0, *range(3, rank + 3), 2, rank + 3)
    rows = rows.reshape(groups, -1, per_group * taps)
    columns = weight.reshape(groups, out_channels // groups, per_group * taps).transpose(1, 2)
    product = torch.bmm(rows, columns)  # [groups, batch x positions, out per group]
    product = product.reshape(groups, batch, *counts, out_channels // groups)
    result = product.permute(1, 0, rank + 2, *range(2, rank + 2)).reshape(
        batch, out_channels, *counts
    )
    if bias is not None:
        result = result + bias.reshape(out_channels, *[1] * rank)
    return result


def _depthwise(
    gathered: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    groups: int,
    counts: list[int],
) -> torch.Tensor:
    """A convolution with one input channel per group (`multiplier` outputs each): each
    output is its channel's windows times its kernel, summed over the kernel offsets."""
    batch, rank = gathered.shape[0], len(counts)
    multiplier = weight.shape[0] // groups
    compute = opmath_dtype(gathered.dtype)
    windows = gathered.unsqueeze(2).to(compute)  # [batch, channels, 1, counts..., taps]
    taps = weight.reshape(groups, multiplier, *[1] * rank, -1).to(compute)
    result = (windows * taps).sum(-1).reshape(batch, groups * multiplier, *counts)
    if bias is not None:
        result = result + bias.reshape(-1, *[1] * rank).to(result.dtype)
    return result.to(gathered.dtype)


def _expand(values: list[int] | int, rank: int, default: list[int] | None = None) -> list[int]:
    """A pool's size argument as `rank` values: one value stands for every dimension,
    none (an empty stride) for `default`."""
    values = [values] if isinstance(values, int) else list(values)
    if not values and default is not None:
        return default
    return values * rank if len(values) == 1 else values


def _batched(x: torch.Tensor, rank: int) -> tuple[torch.Tensor, bool]:
    """`x` with a batch dimension, and whether one was added (an unbatched input)."""
    return (x.unsqueeze(0), True) if x.dim() == rank + 1 else (x, False)


def max_pool_with_indices(
    rank: int,
    x: torch.Tensor,
    kernel_size: list[int],
    stride: list[int] | None = None,
    padding: list[int] | int = 0,
    dilation: list[int] | int = 1,
    ceil_mode: bool = False,
) -> tuple[torch.Tensor, torch.Tensor] | object:
    """aten.max_pool{1,2,3}d_with_indices: the maximum over each window, and the index of
    the value it took in its plane of the input (h * width + w in 2-d), as ATen's CPU
    kernel picks it: the first maximum in the window, the last NaN where the window
    holds one (NaN wins), and in a window of nothing but -inf its first input position.
    Padding never wins: it reads -inf and is excluded from the index."""
    kernel = _expand(kernel_size, rank)
    strides = _expand(stride or [], rank, kernel)
    pads, dilations = _expand(padding, rank), _expand(dilation, rank)
    if x.dim() not in (rank + 1, rank + 2) or not x.dtype.is_floating_point:
        return NotImplemented
    x, unbatched = _batched(x, rank)
    sizes = list(x.shape[2:])
    counts = output_sizes(sizes, kernel, strides, pads, dilations, ceil_mode)
    kept = kept_offsets(sizes, kernel, strides, pads, dilations, counts)
    if kept is None:
        return NotImplemented
    args = (kernel, strides, pads, dilations, counts)
    gathered = windows(x, *args, float("-inf"), ceil_mode, kept)
    values = gathered.amax(-1)
    plane = torch.arange(math.prod(sizes), device=x.device).reshape(1, 1, *sizes)
    positions = windows(plane, *args, -1, ceil_mode, kept)
    valid = positions >= 0
    last_nan = torch.where(valid & gathered.isnan(), positions, -1).amax(-1)
    is_max = valid & (gathered == values.unsqueeze(-1))
    first_max = torch.where(is_max, positions, math.prod(sizes)).amin(-1)
    indices = torch.where(last_nan >= 0, last_nan, first_max).expand_as(values)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return values, indices.contiguous()


def avg_pool(
    rank: int,
    x: torch.Tensor,
    kernel_size: list[int],
    stride: list[int] | None = None,
    padding: list[int] | int = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> torch.Tensor | object:
    """aten.avg_pool{1,2,3}d: each window's sum over a divisor, accumulated in f32 for
    half-precision inputs: `divisor_override` when given, else the window's positions
    inside the padded input (`count_include_pad`: the kernel's size, but for a
    `ceil_mode` window cut by the padded input's end) or inside the input itself, as
    ATen's kernels count them."""
    kernel = _expand(kernel_size, rank)
    strides = _expand(stride or [], rank, kernel)
    pads = _expand(padding, rank)
    if x.dim() not in (rank + 1, rank + 2) or not x.dtype.is_floating_point:
        return NotImplemented
    x, unbatched = _batched(x, rank)
    sizes, ones = list(x.shape[2:]), [1] * rank
    counts = output_sizes(sizes, kernel, strides, pads, ones, ceil_mode)
    partial = ceil_mode and counts != output_sizes(sizes, kernel, strides, pads, ones, False)
    kept = kept_offsets(sizes, kernel, strides, pads, ones, counts)
    # ones where a position counts: the input, and its padding when that counts
    inside_sizes, around = list(sizes), list(pads)
    if count_include_pad:
        inside_sizes, around = [n + 2 * p for n, p in zip(sizes, pads, strict=True)], [0] * rank
    divides_by_count = not divisor_override and (partial or not count_include_pad)
    counted = kept_offsets(inside_sizes, kernel, strides, around, ones, counts)
    if kept is None or (divides_by_count and counted is None):
        return NotImplemented
    compute = opmath_dtype(x.dtype)
    total = windows(x.to(compute), kernel, strides, pads, ones, counts, 0.0, partial, kept)
    total = total.sum(-1)
    if divisor_override:
        result = total / divisor_override
    elif not divides_by_count:
        result = total / math.prod(kernel)
    else:
        inside = torch.ones(1, 1, *sizes, dtype=compute, device=x.device)
        if count_include_pad:
            inside = torch.constant_pad_nd(inside, [p for p in reversed(pads) for _ in (0, 1)], 1.0)
        taken = windows(inside, kernel, strides, around, ones, counts, 0.0, partial, counted)
        result = total / taken.sum(-1)
    result = result.to(x.dtype)
    return result.squeeze(0) if unbatched else result


def _transposed_convolution(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    output_padding: list[int],
    groups: int,
) -> torch.Tensor:
    """A transposed convolution as the ordinary convolution it equals: the input spread
    apart by the stride (stride - 1 zeros between neighbours: each value and its zeros
    stacked along a new last axis, flattened, the trailing zeros cut), padded by
    dilation x (kernel - 1) - padding on each side (plus `output_padding` on the right;
    a negative amount cuts), convolved at stride 1 with the kernel flipped and its
    in/out channels swapped within each group."""
    rank = weight.dim() - 2
    kernel = list(weight.shape[2:])
    for axis, s in enumerate(stride):
        x = _spread(x, 2 + axis, s)
    for axis in range(rank):
        dim = 2 + axis
        edge = dilation[axis] * (kernel[axis] - 1) - padding[axis]
        left, right = edge, edge + output_padding[axis]
        if left < 0:
            x = x.narrow(dim, -left, x.shape[dim] + left)
        if right < 0:
            x = x.narrow(dim, 0, x.shape[dim] + right)
        pads = [0, 0] * (rank - 1 - axis) + [max(left, 0), max(right, 0)]
        if any(pads):
            x = torch.constant_pad_nd(x, pads)
    in_channels, out_per_group = weight.shape[0], weight.shape[1]
    flipped = weight.flip(list(range(2, rank + 2)))
    swapped = flipped.reshape(groups, in_channels // groups, out_per_group, *kernel)
    swapped = swapped.transpose(1, 2).reshape(
        groups * out_per_group, in_channels // groups, *kernel
    )
    ones, zeros = [1] * rank, [0] * rank
    return convolution(x, swapped, bias, ones, zeros, list(dilation), False, zeros, groups)


def _spread(x: torch.Tensor, dim: int, s: int) -> torch.Tensor:
    """`x` spread apart along `dim` by the stride `s`: s - 1 zeros between neighbours
    (each value and its zeros stacked along a new axis, flattened, the trailing zeros
    cut), so that value i lands at position i * s."""
    if s == 1:
        return x
    length = x.shape[dim]
    spread = torch.stack([x, *[torch.zeros_like(x)] * (s - 1)], dim=dim + 1)
    return spread.flatten(dim, dim + 1).narrow(dim, 0, (length - 1) * s + 1)


def fold(
    x: torch.Tensor,
    output_size: list[int],
    kernel_size: list[int],
    dilation: list[int],
    padding: list[int],
    stride: list[int],
) -> torch.Tensor:
    """aten.col2im (`F.fold`, `nn.Fold`; MobileViT V2 folds its patches back into a
    map) as the sum of its kernel offsets' blocks: block (i, j) of every column holds
    the values that offset adds at each window position, so it is spread apart by the
    stride (`_spread`), padded to land at i * dilation, j * dilation of the padded
    output, and added; the padding is cut at the end. torch's decomposition sums with
    an `index_put(accumulate=True)`, which lumir keeps in eager.

    Eager's bits on the CPU: ATen's kernel zeroes the output and adds each column's
    values in the input's dtype, offsets in row-major order (`data_im += data_col`,
    Im2Col.h), and so does this (a block's padding adds +0, which changes nothing:
    a sum that starts at +0 is never -0). ATen's CUDA kernel sums in f32 from the last
    offset and rounds once, so there a half result can differ in the last bit."""
    if x.dim() not in (2, 3) or not x.dtype.is_floating_point:
        return NotImplemented
    kernel_h, kernel_w = kernel_size
    if kernel_h * kernel_w > MAX_WINDOW_OFFSETS:
        return NotImplemented
    unbatched = x.dim() == 2
    blocks = x.unsqueeze(0) if unbatched else x
    counts = output_sizes(
        list(output_size), list(kernel_size), list(stride), list(padding), list(dilation), False
    )
    padded = [size + 2 * p for size, p in zip(output_size, padding, strict=True)]
    batch, channels = blocks.shape[0], blocks.shape[1] // (kernel_h * kernel_w)
    blocks = blocks.reshape(batch, channels, kernel_h, kernel_w, *counts)
    total = blocks.new_zeros([batch, channels, *padded])
    for i, j in itertools.product(range(kernel_h), range(kernel_w)):
        placed = blocks[:, :, i, j]
        pads: list[int] = []
        for axis, offset in enumerate((i, j)):
            placed = _spread(placed, 2 + axis, stride[axis])
            left = offset * dilation[axis]
            pads = [left, padded[axis] - left - placed.shape[2 + axis], *pads]
        total = total + torch.constant_pad_nd(placed, pads)
    if any(padding):
        total = total[:, :, padding[0] : padding[0] + output_size[0]]
        total = total[:, :, :, padding[1] : padding[1] + output_size[1]]
        total = total.clone(memory_format=torch.contiguous_format)
    return total.squeeze(0) if unbatched else total
