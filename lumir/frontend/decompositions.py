"""The decomposition table aot_autograd applies before lumir imports a graph.

A subset of torch's own decompositions (`torch._decomp`), chosen for what `hl` has:
layer and group norm and their statistics (var, std and their `_mean` forms) become
reductions and elementwise ops (through the `prims` torch writes them with:
lumir.frontend.prims), `masked_fill` becomes `where`, the `*_like` / `new_*`
constructors become `full`, `stack` and `repeat` become the views and `cat` they are
made of, `clamp` and the hard activations become `where` over comparisons that keep a
NaN (`isnan`), softplus, ELU (SELU is one) and mish become `log1p`/`expm1` under a
`where`, `log_softmax`, `logsumexp` and vector norms become reductions, whole-tensor
`sum`/`mean` reduce over every dimension, `tril`/`triu` become a `where` over two
ranges, `nan_to_num` a `where` over `isnan`/`isposinf`/`isneginf`, `rot90` a flip and a
transpose, and the losses (`nll_loss`, so `cross_entropy`; MSE, smooth L1, Huber, binary
cross-entropy with or without logits, `logsigmoid`) the gathers, reductions and
elementwise ops they are made of. `roll` is lumir's own decomposition (`_roll`: slices
and a `cat`), and so is a convolution whose stride is its kernel (`_patch_convolution`:
a vision transformer's patch embedding, or a 1x1 convolution, as patches times a
matrix).
`linear` reaches the graph as `t` + `mm`; `addmm` and `baddbmm` are not decomposed here
but imported as a product plus an add (lumir.frontend.structured.convert_addmm), so the
bias, residual and alpha rules see them and half-precision products stay half precision
(torch's decomposition computes them in f32 on CPU). Scaled-dot-product
attention is deliberately absent: it stays one fused-attention node, imported as
`hl.sdpa`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

import torch
from torch._decomp import get_decompositions

aten = torch.ops.aten

DECOMPOSED: tuple[object, ...] = (
    aten.native_layer_norm.default,
    aten.native_group_norm.default,
    aten.var_mean.correction,
    aten.var.correction,
    aten.std.correction,
    aten.std_mean.correction,
    aten.masked_fill.Scalar,
    aten.masked_fill.Tensor,
    aten.rsub.Scalar,
    aten.rsub.Tensor,
    aten.addcmul.default,
    aten.zeros_like.default,
    aten.ones_like.default,
    aten.new_zeros.default,
    aten.new_ones.default,
    aten.new_full.default,
    aten.zeros.default,
    aten.ones.default,
    aten.hardtanh.default,
    aten.leaky_relu.default,
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
    aten.tril.default,
    aten.triu.default,
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
)
"""The overloads lumir asks aot_autograd to decompose (each has a torch decomposition)."""


def _roll(x: torch.Tensor, shifts: list[int], dims: list[int] | None = None) -> torch.Tensor:
    """aten.roll as the `cat` of two slices per rolled dimension: position i reads
    position (i - shift) mod n, so the last `shift mod n` positions come first. torch's
    own decomposition indexes with the `fmod` of an integer range, which `hl` has no op
    for; `narrow` and `cat` are views and a copy lumir imports. With no `dims` the
    flattened tensor rolls."""
    if not dims:
        return _roll(x.reshape(-1), shifts, [0]).reshape(x.shape)
    result = x
    for shift, dim in zip(shifts, dims, strict=True):
        size = result.shape[dim]
        cut = size - shift % size if size else size
        if cut != size:
            tail, head = result.narrow(dim, cut, size - cut), result.narrow(dim, 0, cut)
            result = torch.cat([tail, head], dim)
    return result if result is not x else x.clone()


def _patch_convolution(
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
    """A 1-d or 2-d convolution whose stride is its kernel (a vision transformer's patch
    embedding; a 1x1 convolution is the case of kernel 1) as the matrix product it is:
    the input cut into non-overlapping patches, each patch a row of channels x kernel
    values, times the weight as an [out, channels x kernel] matrix, plus the bias, back
    to [batch, out, positions...]. The patches are views and the product an `mm` that
    cuBLASLt runs with the bias fused. Any other convolution (padding, dilation,
    overlapping windows, groups, transposed) is declined and stays in eager."""
    kernel = list(weight.shape[2:])
    rank = len(kernel)
    if (
        transposed
        or groups != 1
        or rank not in (1, 2)
        or x.dim() != rank + 2
        or list(stride) != kernel
        or any(padding)
        or any(d != 1 for d in dilation)
    ):
        return NotImplemented
    batch, channels = x.shape[0], x.shape[1]
    counts = [size // k for size, k in zip(x.shape[2:], kernel, strict=True)]
    for axis, (count, k) in enumerate(zip(counts, kernel, strict=True)):
        x = x.narrow(2 + axis, 0, count * k)  # a convolution drops a ragged last patch
    if rank == 2:
        (rows, columns), (kh, kw) = counts, kernel
        split = x.reshape(batch, channels, rows, kh, columns, kw).permute(0, 2, 4, 1, 3, 5)
    else:
        (rows,), (kh,) = counts, kernel
        split = x.reshape(batch, channels, rows, kh).permute(0, 2, 1, 3)
    patches = split.reshape(-1, channels * math.prod(kernel))
    product = torch.mm(patches, weight.reshape(weight.shape[0], -1).t())
    if bias is not None:
        product = product + bias
    positions = product.reshape(batch, *counts, weight.shape[0])
    return positions.permute(0, rank + 1, *range(1, rank + 1)).contiguous()


OWN_DECOMPOSITIONS: dict[object, Callable[..., object]] = {
    aten.roll.default: _roll,
    aten.convolution.default: _patch_convolution,
}
"""Overloads lumir decomposes itself, where torch's decomposition needs an op `hl` lacks."""


@cache
def lumir_decompositions() -> dict[object, Callable[..., object]]:
    """Overload -> decomposition: torch's for `DECOMPOSED`, lumir's own for the rest."""
    return {**get_decompositions(list(DECOMPOSED)), **OWN_DECOMPOSITIONS}
