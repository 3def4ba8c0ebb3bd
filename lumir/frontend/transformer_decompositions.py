"""`nn.TransformerEncoderLayer`'s inference fast path, written as the ops it is made of.

In eval mode with gradients off (what inference under `torch.compile` is), a batch-first
`nn.TransformerEncoderLayer` (and so every layer of an `nn.TransformerEncoder`) does not
run its Python modules: it calls one ATen op, `aten._transformer_encoder_layer_fwd`,
with the layer's weights as arguments. Without a decomposition that op reaches lumir
whole, lumir has no row for it, and the layer's four GEMMs run in eager. Written out,
they are `linear` calls the fusion rules see (bias epilogues, the residual into beta·C,
a ReLU into the first feed-forward GEMM; the layer's GELU is the exact one, which
cuBLASLt's tanh-form epilogue is not, so it stays a kernel), attention is one `hl.sdpa`,
and the norms are reductions the fused-kernel pass can take.

What ATen's kernel computes (aten/src/ATen/native/transformers/transformer.cpp), for
`src` of shape [batch, tokens, embed_dim]:

    x = src, or layer_norm_1(src) when norm_first
    x = self_attention(x) + src;   x = layer_norm_1(x) unless norm_first
    y = x, or layer_norm_2(x) when norm_first
    y = linear_2(relu or gelu(linear_1(y))) + x;   y = layer_norm_2(y) unless norm_first

where self_attention is the packed q/k/v projection, softmax(q kᵀ / sqrt(head_dim)) v per
head, and the output projection. The layer hands its masks over merged
(`nn.MultiheadAttention.merge_masks`): a key-padding mask [batch, tokens] is mask type 1,
an attention mask [tokens, tokens] type 0, and both together (or a 3-D attention mask)
[batch, heads, tokens, tokens] type 2. ATen's kernel turns a float mask into booleans
(any nonzero value masks its key, whatever its size: `F._canonical_mask` has already
made a boolean mask 0 / -inf), and its masked softmax gives NaN for a query row whose
keys are all masked (a sequence that is padding throughout), where SDPA gives zeros.
Both are written out here as ATen's kernel has them. A nested `src` (an
`nn.TransformerEncoder` given a padding mask outside `torch.compile`) and an unknown
mask type keep the op, which then runs in eager.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
import torch.nn.functional as F

MASK_TYPES = (0, 1, 2)
"""`merge_masks`' mask types: [tokens, tokens], [batch, tokens] key padding, and
[batch, heads or 1, tokens, tokens]."""


def masked_keys(mask: torch.Tensor, mask_type: int, batch: int, tokens: int) -> torch.Tensor:
    """The merged mask as booleans that broadcast over [batch, heads, queries, keys],
    True where a key is left out (ATen's `masked_softmax` reads any nonzero as True)."""
    masked = mask if mask.dtype == torch.bool else mask != 0
    return masked.view(batch, 1, 1, tokens) if mask_type == 1 else masked


class AttentionWeights(NamedTuple):
    """The packed [3 * embed_dim, embed_dim] q/k/v projection and the output projection."""

    qkv_weight: torch.Tensor
    qkv_bias: torch.Tensor
    proj_weight: torch.Tensor
    proj_bias: torch.Tensor


def self_attention(
    x: torch.Tensor,
    num_heads: int,
    weights: AttentionWeights,
    masked: torch.Tensor | None = None,
) -> torch.Tensor:
    """Multi-head self-attention of a [batch, tokens, embed_dim] tensor, as
    `aten._native_multi_head_attention` computes it; `masked` (from `masked_keys`)
    leaves keys out, and a query row left with no key is NaN, as ATen's masked softmax
    makes it."""
    batch, tokens, embed_dim = x.shape
    head_dim = embed_dim // num_heads
    qkv = F.linear(x, weights.qkv_weight, weights.qkv_bias)
    qkv = qkv.view(batch, tokens, 3, num_heads, head_dim)
    q, k, v = (qkv.select(2, index).transpose(1, 2) for index in range(3))
    if masked is None:
        attended = F.scaled_dot_product_attention(q, k, v)
    else:
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=~masked)
        no_key = masked.all(dim=-1, keepdim=True)
        attended = torch.where(no_key, torch.full_like(attended, math.nan), attended)
    merged = attended.transpose(1, 2).reshape(batch, tokens, embed_dim)
    return F.linear(merged, weights.proj_weight, weights.proj_bias)


def transformer_encoder_layer(
    src: torch.Tensor,
    embed_dim: int,
    num_heads: int,
    qkv_weight: torch.Tensor,
    qkv_bias: torch.Tensor,
    proj_weight: torch.Tensor,
    proj_bias: torch.Tensor,
    use_gelu: bool,
    norm_first: bool,
    eps: float,
    norm_weight_1: torch.Tensor,
    norm_bias_1: torch.Tensor,
    norm_weight_2: torch.Tensor,
    norm_bias_2: torch.Tensor,
    ffn_weight_1: torch.Tensor,
    ffn_bias_1: torch.Tensor,
    ffn_weight_2: torch.Tensor,
    ffn_bias_2: torch.Tensor,
    mask: torch.Tensor | None = None,
    mask_type: int | None = None,
) -> torch.Tensor:
    """aten._transformer_encoder_layer_fwd (see the module docstring); NotImplemented,
    which keeps the op as it is, for a nested `src` or a mask of no known type."""
    if src.is_nested or src.dim() != 3:
        return NotImplemented  # type: ignore[return-value]
    if mask is not None and mask_type not in MASK_TYPES:
        return NotImplemented  # type: ignore[return-value]
    if src.numel() == 0:
        return src.clone()
    batch, tokens, _ = src.shape
    masked = None if mask is None else masked_keys(mask, mask_type, batch, tokens)  # type: ignore[arg-type]

    def norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, (embed_dim,), weight, bias, eps)

    weights = AttentionWeights(qkv_weight, qkv_bias, proj_weight, proj_bias)
    x = norm(src, norm_weight_1, norm_bias_1) if norm_first else src
    x = self_attention(x, num_heads, weights, masked) + src
    if not norm_first:
        x = norm(x, norm_weight_1, norm_bias_1)
    y = norm(x, norm_weight_2, norm_bias_2) if norm_first else x
    hidden = F.linear(y, ffn_weight_1, ffn_bias_1)
    hidden = F.gelu(hidden) if use_gelu else F.relu(hidden)
    y = F.linear(hidden, ffn_weight_2, ffn_bias_2) + x
    return y if norm_first else norm(y, norm_weight_2, norm_bias_2)


__all__ = [
    "MASK_TYPES",
    "AttentionWeights",
    "masked_keys",
    "self_attention",
    "transformer_encoder_layer",
]
