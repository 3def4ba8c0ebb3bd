"""Decoders with local attention or recurrence, and sequence-to-sequence models, compile
whole and decode as eager does.

Gemma 2 (sliding-window layers beside global ones, tanh soft-capped logits),
RecurrentGemma (a gated linear recurrence beside local attention), RWKV (its time-mix
recurrence written as a loop over positions), LFM2 (short causal convolutions beside
attention) and BART (an encoder-decoder with learned positions and cross-attention)
each reach lumir as graphs with no op it lacks: no fallback warning, and the output
eager gives. Greedy decoding through `generate` with the compiled forward gives
eager's tokens, cache and all.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.backend import LumirFallbackWarning
from lumir.testing.devices import ON_CUDA

transformers = pytest.importorskip("transformers")

_SMALL = dict(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    vocab_size=256,
)

_SEQ2SEQ = dict(
    d_model=64,
    encoder_layers=1,
    decoder_layers=1,
    encoder_attention_heads=4,
    decoder_attention_heads=4,
    encoder_ffn_dim=128,
    decoder_ffn_dim=128,
    vocab_size=256,
    max_position_embeddings=64,
    pad_token_id=0,
    bos_token_id=1,
    eos_token_id=2,
    decoder_start_token_id=1,
)

MODELS = {
    "gemma2": lambda: transformers.Gemma2ForCausalLM(
        transformers.Gemma2Config(**_SMALL, head_dim=16, sliding_window=4)
    ),
    "recurrent_gemma": lambda: transformers.RecurrentGemmaForCausalLM(
        transformers.RecurrentGemmaConfig(
            **{**_SMALL, "num_key_value_heads": 1}, lru_width=64, attention_window_size=4
        )
    ),
    "rwkv": lambda: transformers.RwkvForCausalLM(
        transformers.RwkvConfig(
            hidden_size=64,
            num_hidden_layers=2,
            vocab_size=256,
            attention_hidden_size=64,
            intermediate_size=128,
        )
    ),
    "lfm2": lambda: transformers.Lfm2ForCausalLM(
        transformers.Lfm2Config(**_SMALL, layer_types=["conv", "full_attention"])
    ),
    "bart": lambda: transformers.BartForConditionalGeneration(transformers.BartConfig(**_SEQ2SEQ)),
}


def _inputs(name: str) -> dict[str, torch.Tensor]:
    ids = torch.randint(3, 256, (2, 9), generator=torch.Generator().manual_seed(5))
    if name == "bart":
        return {"input_ids": ids, "decoder_input_ids": ids[:, :5], "use_cache": False}
    return {"input_ids": ids, "use_cache": False}


def _fallback_messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]


@torch.no_grad()
@pytest.mark.parametrize("device", ["cpu", ON_CUDA])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_compiles_whole_and_matches_eager(name: str, device: str) -> None:
    """Logits against eager f32 on the CPU, on either device (lumir's products on
    cuBLASLt compute in f32; eager's CUDA ones may take TF32)."""
    torch.manual_seed(0)
    model = MODELS[name]().eval()
    arguments = _inputs(name)
    want = model(**arguments).logits
    model = model.to(device)
    arguments = {
        k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in arguments.items()
    }
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(model, backend="lumir")(**arguments).logits
    assert _fallback_messages(caught) == []
    torch.testing.assert_close(got.cpu(), want, atol=1e-4, rtol=1e-4)


@torch.no_grad()
@pytest.mark.parametrize("name", ["gemma2", "bart"])
def test_greedy_generation_with_the_compiled_forward_gives_eagers_tokens(name: str) -> None:
    """`generate` with the model's cache (Gemma 2's sliding-window layers keep a window
    of it; BART's decoder keeps self- and cross-attention caches) and the compiled
    forward: ten tokens, each eager's, with no fallback along the way."""
    torch.manual_seed(0)
    model = MODELS[name]().eval()
    prompt = torch.randint(3, 256, (1, 6), generator=torch.Generator().manual_seed(6))
    settings = dict(max_new_tokens=10, min_new_tokens=10, do_sample=False)
    want = model.generate(prompt, **settings)
    torch._dynamo.reset()
    model.forward = torch.compile(model.forward, backend="lumir")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = model.generate(prompt, **settings)
    assert _fallback_messages(caught) == []
    assert torch.equal(got, want)
