"""`nn.TransformerEncoder` in inference: its layers' fast-path op is compiled, not skipped.

In eval mode with gradients off, each batch-first `nn.TransformerEncoderLayer` calls one
ATen op, `aten._transformer_encoder_layer_fwd`. lumir writes it out as its projections,
attention and norms (lumir.frontend.transformer_decompositions), so the layer's GEMMs
become cuBLASLt calls; before, the whole encoder ran in eager. The decomposition must
compute what the op computes, masks and all, including NaN for a sequence that is
padding throughout.
"""

from __future__ import annotations

import itertools
import warnings

import pytest
import torch
from torch import nn

import lumir.backend  # noqa: F401  (registers "lumir")
from lumir.backend import LumirFallbackWarning, stats
from lumir.frontend.transformer_decompositions import transformer_encoder_layer

EMBED, HEADS, FEEDFORWARD, BATCH, TOKENS = 16, 4, 24, 3, 6


def _layer_arguments(generator: torch.Generator, use_gelu: bool, norm_first: bool) -> list:
    def weight(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator) * 0.3

    attention = [weight(3 * EMBED, EMBED), weight(3 * EMBED), weight(EMBED, EMBED), weight(EMBED)]
    norms = [weight(EMBED) + 1, weight(EMBED), weight(EMBED) + 1, weight(EMBED)]
    feedforward = [weight(FEEDFORWARD, EMBED), weight(FEEDFORWARD)]
    feedforward += [weight(EMBED, FEEDFORWARD), weight(EMBED)]
    src = torch.randn(BATCH, TOKENS, EMBED, generator=generator)
    return [src, EMBED, HEADS, *attention, use_gelu, norm_first, 1e-5, *norms, *feedforward]


def _mask(kind: int | None, generator: torch.Generator) -> torch.Tensor | None:
    """A merged mask of `merge_masks`' type `kind`, 0 / -inf as `F._canonical_mask`
    leaves it; the padding masks leave the last sequence no key at all."""
    causal = torch.triu(torch.full((TOKENS, TOKENS), float("-inf")), 1)
    padding = torch.zeros(BATCH, TOKENS)
    padding[1, 4:] = float("-inf")
    padding[2, :] = float("-inf")
    if kind == 0:
        return causal
    if kind == 1:
        return padding
    if kind == 2:
        random_keys = torch.rand(BATCH, 1, 1, TOKENS, generator=generator) < 0.3
        dropped = torch.where(random_keys, float("-inf"), 0.0)
        return causal.expand(BATCH, HEADS, -1, -1) + dropped
    return None


@pytest.mark.parametrize(
    ("use_gelu", "norm_first", "mask_type"),
    list(itertools.product([False, True], [False, True], [None, 0, 1, 2])),
)
def test_decomposition_computes_the_aten_op(use_gelu, norm_first, mask_type):
    generator = torch.Generator().manual_seed(7)
    arguments = _layer_arguments(generator, use_gelu, norm_first)
    mask = _mask(mask_type, generator)
    expected = torch.ops.aten._transformer_encoder_layer_fwd(*arguments, mask, mask_type)
    got = transformer_encoder_layer(*arguments, mask, mask_type)
    torch.testing.assert_close(got, expected, atol=2e-6, rtol=2e-6, equal_nan=True)
    if mask_type in (1, 2):
        assert torch.isnan(expected).any(), "the case must hold a sequence with no key"


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_decomposition_leaves_a_nested_input_to_the_op():
    generator = torch.Generator().manual_seed(0)
    arguments = _layer_arguments(generator, False, False)
    nested = torch.nested.nested_tensor([torch.randn(4, EMBED), torch.randn(2, EMBED)])
    assert transformer_encoder_layer(nested, *arguments[1:]) is NotImplemented
    assert transformer_encoder_layer(*arguments, torch.zeros(TOKENS), 5) is NotImplemented


def _encoder(activation: str, norm_first: bool, dtype: torch.dtype) -> nn.Module:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
    )
    encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    return encoder.eval().to(dtype)


def _compiled(encoder: nn.Module, x: torch.Tensor, **kwargs: torch.Tensor):
    torch._dynamo.reset()
    stats.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(encoder, backend="lumir")(x, **kwargs)
    fallbacks = [w for w in caught if issubclass(w.category, LumirFallbackWarning)]
    return got, fallbacks


@torch.no_grad()
@pytest.mark.parametrize(
    ("activation", "norm_first", "padded"),
    [("relu", False, False), ("gelu", True, False), ("relu", False, True), ("gelu", False, True)],
)
def test_encoder_runs_compiled_and_matches_eager(activation, norm_first, padded):
    encoder = _encoder(activation, norm_first, torch.float32)
    x = torch.randn(3, 7, 32, generator=torch.Generator().manual_seed(1))
    kwargs = {}
    if padded:
        padding = torch.zeros(3, 7, dtype=torch.bool)
        padding[1, 5:] = True
        kwargs["src_key_padding_mask"] = padding
    got, fallbacks = _compiled(encoder, x, **kwargs)
    torch.testing.assert_close(got, encoder(x, **kwargs), atol=1e-5, rtol=1e-5)
    assert not fallbacks, [str(w.message) for w in fallbacks]
    (graph,) = stats.GRAPHS
    (partition,) = graph.partitions
    assert partition.fused["matmuls"] == 8  # q/k/v, output and two feed-forward, per layer
    assert partition.fused["fused_bias"] == 8
    assert partition.fused["fused_act"] == (2 if activation == "relu" else 0)


@torch.no_grad()
def test_bf16_encoder_is_as_close_to_f32_as_eager_bf16():
    x = torch.randn(2, 9, 32, generator=torch.Generator().manual_seed(2))
    reference = _encoder("relu", False, torch.float32)(x)
    encoder = _encoder("relu", False, torch.bfloat16)
    eager = encoder(x.bfloat16()).float()
    got, fallbacks = _compiled(encoder, x.bfloat16())
    assert not fallbacks
    assert got.dtype == torch.bfloat16
    lumir_error = (got.float() - reference).abs().mean()
    eager_error = (eager - reference).abs().mean()
    assert lumir_error <= 1.5 * eager_error
