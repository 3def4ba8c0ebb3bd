"""A decode step's index arithmetic: known values filled at load, the rest run together.

Over a `StaticCache` every layer computes where its keys go (`arange(1) + counter`) and
advances its counter. lower-to-cublaslt-rt makes the `arange` a constant
(`fold_known_integers`), hoist-index-math moves each layer's index add up to the first
launch before share-buffers places the arena, and group-launches (at load) then runs
the index adds as one launch and the counter adds as another, where ~one launch a
layer ran before. Checked on the program the backend loads, with the step's logits and
caches equal to eager's.
"""

from __future__ import annotations

import torch
import transformers
from xdsl.dialects.builtin import IntegerType, MemRefType, ModuleOp

import lumir.backend.partition as partition
from lumir.dialects.cublaslt_rt import LaunchGroupOp, LaunchOp
from lumir.runtime.interpreter import find_function
from lumir.testing.hf import cache_argument

LAYERS = 4


def _integer_adds(op: object) -> int:
    """How many integer `hl.add` launches `op` runs (a group counts its members)."""
    if isinstance(op, LaunchGroupOp):
        return sum(_integer_adds(member) for member in op.body.block.ops)
    if not isinstance(op, LaunchOp) or op.kernel.data != "hl.add":
        return 0
    output = op.output.type
    assert isinstance(output, MemRefType)
    return int(isinstance(output.element_type, IntegerType))


@torch.no_grad()
def test_a_decode_steps_index_and_counter_adds_run_as_two_launches(monkeypatch) -> None:
    loaded: list[ModuleOp] = []
    load = partition.load

    def keep(module: ModuleOp, *args, **kwargs):
        loaded.append(module.clone())
        return load(module, *args, **kwargs)

    monkeypatch.setattr(partition, "load", keep)
    torch._dynamo.reset()
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=LAYERS,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    model = transformers.LlamaForCausalLM(config).eval().to(torch.bfloat16)
    compiled = torch.compile(model, backend="lumir")
    caches = [transformers.StaticCache(config=config, max_cache_len=8) for _ in range(2)]
    prompt = torch.tensor([[3, 14, 15, 92]])
    for cache in caches:
        model(prompt, **cache_argument(model, cache), cache_position=torch.arange(4))
    for position in (4, 5):  # the second step replays what the first loaded
        token, at = torch.tensor([[position]]), torch.tensor([position])
        got = compiled(token, **cache_argument(compiled, caches[0]), cache_position=at).logits
        want = model(token, **cache_argument(model, caches[1]), cache_position=at).logits
        torch.testing.assert_close(got, want, atol=2e-2, rtol=2e-2)
    for mine, eager in zip(caches[0].layers, caches[1].layers, strict=True):
        for written, expected in ((mine.keys, eager.keys), (mine.values, eager.values)):
            torch.testing.assert_close(written, expected, atol=2e-2, rtol=2e-2)
    body = list(find_function(loaded[-1]).body.block.ops)
    runs = [adds for adds in map(_integer_adds, body) if adds]
    # an index and a counter add per layer: two launches in all, each of LAYERS members
    assert runs == [LAYERS, LAYERS], runs
