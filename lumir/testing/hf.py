"""Calling Hugging Face models the same way across transformers releases.

transformers renamed the KV-cache argument of its models' `forward` from
`past_key_values` to `cache` (the old name is deprecated, with a FutureWarning on every
call, and goes in 5.40); lumir supports transformers from 4.45 on. The tests, the
benchmarks and the demo pass the cache through `cache_argument`, which names it the way
the model's own `forward` does.
"""

from __future__ import annotations

import inspect

import torch


def cache_argument(model: torch.nn.Module, cache: object) -> dict[str, object]:
    """`{name: cache}` with the keyword `model.forward` takes its KV cache by; `model`
    may be a `torch.compile`d module (its original module's forward is read)."""
    module = getattr(model, "_orig_mod", model)
    parameters = inspect.signature(module.forward).parameters
    return {"cache" if "cache" in parameters else "past_key_values": cache}


__all__ = ["cache_argument"]
