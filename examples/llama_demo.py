"""A random-weight Llama through torch.compile(backend="lumir"), next to eager.

    python3 examples/llama_demo.py

Builds a small LlamaForCausalLM from a LlamaConfig (seeded, nothing downloaded),
compiles it with the lumir backend on CPU (the reference executor), prints the report
line of each compiled graph, the largest logit difference against eager, and greedily
decoded tokens (with a KV cache) from both.
"""

from __future__ import annotations

import os
import sys
import time

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

import lumir.backend  # noqa: F401  (registers "lumir" when lumir is not pip-installed)
from lumir.testing.hf import cache_argument


def greedy(model, config, prompt: torch.Tensor, tokens: int) -> list[int]:
    cache = DynamicCache(config=config)
    step, out = prompt, []
    for _ in range(tokens):
        logits = model(step, **cache_argument(model, cache), use_cache=True).logits
        step = logits[:, -1].argmax(-1, keepdim=True)
        out.append(int(step))
    return out


def main() -> None:
    os.environ.setdefault("LUMIR_REPORT", "1")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=256,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
    )
    model = LlamaForCausalLM(config).eval()
    prompt = torch.randint(0, config.vocab_size, (1, 8), generator=torch.Generator().manual_seed(1))
    compiled = torch.compile(model, backend="lumir")
    start = time.perf_counter()
    with torch.no_grad():
        eager_logits = model(prompt, use_cache=False).logits
        lumir_logits = compiled(prompt, use_cache=False).logits
        error = (lumir_logits - eager_logits).abs().max().item()
        eager_tokens = greedy(model, config, prompt, 8)
        lumir_tokens = greedy(compiled, config, prompt, 8)
    print(f"max |lumir - eager| logit difference: {error:.3e}")
    print(f"eager tokens: {eager_tokens}")
    print(f"lumir tokens: {lumir_tokens}")
    print(f"tokens match: {eager_tokens == lumir_tokens}  ({time.perf_counter() - start:.1f} s)")
    sys.exit(0 if eager_tokens == lumir_tokens and error < 1e-4 else 1)


if __name__ == "__main__":
    main()
