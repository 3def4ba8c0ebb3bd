"""torch.compile(backend="lumir") on a tiny random-weight Llama, against eager."""

from __future__ import annotations

import copy

import pytest
import torch

transformers = pytest.importorskip("transformers")

from lumir.backend import stats  # noqa: E402  (importing it registers "lumir")
from lumir.testing.hf import cache_argument  # noqa: E402


def tiny_llama(dtype: torch.dtype = torch.float32, attention: str = "sdpa"):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        attn_implementation=attention,
    )
    return transformers.LlamaForCausalLM(config).eval().to(dtype), config


def decode_config():
    """Two layers wide enough that a decode step's projections run as GEMV groups with
    their SiLU·mul epilogues (and norm prologues, with `gemv_prologue` on)."""
    return transformers.LlamaConfig(
        vocab_size=128,
        hidden_size=256,
        intermediate_size=512,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )


def _ids(length: int = 6) -> torch.Tensor:
    return torch.randint(0, 128, (1, length), generator=torch.Generator().manual_seed(1))


def _compiled_calls() -> int:
    return sum(p.fused["cublaslt_calls"] for g in stats.GRAPHS for p in g.partitions)


@torch.no_grad()
def test_f32_logits_match_eager():
    torch._dynamo.reset()
    stats.reset()
    model, _ = tiny_llama()
    expected = model(_ids(), use_cache=False).logits
    got = torch.compile(model, backend="lumir")(_ids(), use_cache=False).logits
    assert (got - expected).abs().max().item() <= 1e-4
    assert _compiled_calls() >= 15  # every projection ran as a cuBLASLt call


@torch.no_grad()
def test_bf16_argmax_agrees_and_error_stays_within_eager_bf16():
    torch._dynamo.reset()
    model, _ = tiny_llama()
    reference = model(_ids(), use_cache=False).logits
    half = copy.deepcopy(model).to(torch.bfloat16)
    eager = half(_ids(), use_cache=False).logits
    got = torch.compile(half, backend="lumir")(_ids(), use_cache=False).logits
    assert torch.equal(got.argmax(-1), eager.argmax(-1))
    eager_error = (eager.float() - reference).abs().mean().item()
    lumir_error = (got.float() - reference).abs().mean().item()
    assert lumir_error <= 1.5 * eager_error


def greedy(model, config, ids: torch.Tensor, tokens: int = 16) -> list[int]:
    cache = transformers.DynamicCache(config=config)
    step, out = ids, []
    for _ in range(tokens):
        logits = model(step, **cache_argument(model, cache), use_cache=True).logits
        step = logits[:, -1].argmax(-1, keepdim=True)
        out.append(int(step))
    return out


@torch.no_grad()
def test_greedy_decoding_with_kv_cache_matches_eager_and_fuses_once_per_graph():
    torch._dynamo.reset()
    stats.reset()
    model, config = tiny_llama()
    expected = greedy(model, config, _ids())
    got = greedy(torch.compile(model, backend="lumir"), config, _ids())
    assert got == expected
    partitions = [p for g in stats.GRAPHS for p in g.partitions]
    assert partitions
    assert max(p.fuse_runs for p in partitions) <= 2
    # The dynamic decode graph serves every later length. Its key length sizes no
    # matrix product, only the cache's cat and the attention, which run in eager: each
    # partition compiles once for all tokens (lumir.backend.cache_lengths).
    decode = stats.GRAPHS[-1]
    assert decode.cache_lengths and decode.partitions
    assert all(p.specialisations == 1 for p in decode.partitions)
    assert not decode.fallback_ops  # a placement, not a fallback: no warning names them


@torch.no_grad()
def test_decoding_with_attention_written_as_products_compiles_once():
    """With `attn_implementation="eager"` the key length sizes q @ k^T and p @ v,
    products of activations, not of weights: those run in eager with the cache, and the
    decode graph's partitions compile once (lumir.backend.cache_lengths)."""
    torch._dynamo.reset()
    stats.reset()
    model, config = tiny_llama(attention="eager")
    expected = greedy(model, config, _ids())
    assert greedy(torch.compile(model, backend="lumir"), config, _ids()) == expected
    decode = stats.GRAPHS[-1]
    assert decode.cache_lengths and decode.partitions
    assert all((p.fuse_runs, p.specialisations) == (1, 1) for p in decode.partitions)


def greedy_static(model, config, ids: torch.Tensor, tokens: int = 8) -> list[int]:
    """Greedy decoding over a StaticCache made fresh here: it is initialised inside the
    first compiled call, so Dynamo never marks its tensors static."""
    cache = transformers.StaticCache(config=config, max_cache_len=ids.shape[1] + tokens)
    step, out, position = ids, [], 0
    for _ in range(tokens):
        positions = torch.arange(position, position + step.shape[1])
        logits = model(step, **cache_argument(model, cache), cache_position=positions).logits
        position += step.shape[1]
        step = logits[:, -1].argmax(-1, keepdim=True)
        out.append(int(step))
    return out


@torch.no_grad()
def test_a_static_cache_built_inside_the_compiled_call_is_updated_in_place():
    torch._dynamo.reset()
    stats.reset()
    model, config = tiny_llama(torch.bfloat16)
    expected = greedy_static(model, config, _ids())
    compiled = torch.compile(model, backend="lumir")
    assert greedy_static(compiled, config, _ids()) == expected
    decode = stats.GRAPHS[-1].partitions[0]
    # every layer's keys and values (and the cache's length counter) written where they live
    assert decode.in_place_updates >= 2 * config.num_hidden_layers
    assert decode.loads == 1
    # a second generation brings a new cache: one reload, and still in place
    assert greedy_static(compiled, config, _ids()) == expected
    assert decode.in_place_updates >= 2 * config.num_hidden_layers
    assert decode.loads <= 2


@torch.no_grad()
def test_whole_llama_is_one_partition_without_fallback(capsys):
    torch._dynamo.reset()
    stats.reset()
    model, _ = tiny_llama()
    expected = model(_ids(), use_cache=False).logits
    compiled = torch.compile(model, backend="lumir", options={"report": True})
    got = compiled(_ids(), use_cache=False).logits
    report = capsys.readouterr().err
    assert "fallback_ops=0 " in report and "partitions=1 " in report, report
    assert (got - expected).abs().max().item() <= 1e-4


@torch.no_grad()
def test_grouped_gemv_decode_step_gives_the_ungrouped_logits_and_is_reported(capsys):
    """A bf16 decode step (one token over a DynamicCache) runs every projection as the
    GEMV; group-gemv runs each layer's q, k, v and its gate, up as one launch each. On
    the CPU the members run as before, so the logits are the ungrouped ones bit for bit,
    and the report counts the groups (and, with gemv-epilogue, the SiLU(gate) * up each
    gate/up group runs as its epilogue)."""
    model, config = tiny_llama(torch.bfloat16)

    def decode(options: dict) -> tuple[torch.Tensor, str]:
        torch._dynamo.reset()
        stats.reset()
        compiled = torch.compile(model, backend="lumir", options={"report": True, **options})
        cache = transformers.DynamicCache(config=config)
        prefill = compiled(_ids(), **cache_argument(compiled, cache), use_cache=True).logits
        step = prefill[:, -1].argmax(-1, keepdim=True)
        logits = compiled(step, **cache_argument(compiled, cache), use_cache=True).logits
        return logits, capsys.readouterr().err.strip().splitlines()[-1]

    grouped, report = decode({})
    alone, report_off = decode({"group_gemv": False})
    assert torch.equal(grouped, alone)
    layers = config.num_hidden_layers
    assert f"gemv_groups={2 * layers} " in report and "gemv_calls=15 " in report, report
    assert "gemv_groups=0 " in report_off and "gemv_calls=15 " in report_off, report_off
    assert f"gemv_epilogues={layers} " in report, report  # SiLU(gate) * up in each MLP
    plain, report_plain = decode({"gemv_epilogue": False})
    assert torch.equal(grouped, plain) and "gemv_epilogues=0 " in report_plain, report_plain
    # group-fused is off by default; on, each layer's q and k rotaries run as one group
    assert "fused_groups=0 " in report, report
    together, report_together = decode({"group_fused": True})
    groups = int(report_together.split("fused_groups=")[1].split()[0])
    assert torch.equal(grouped, together) and groups >= layers, report_together


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_chunk_bytes_runs_the_mlps_in_row_chunks_with_the_same_logits(tmp_path, dtype):
    """With `chunk_bytes` under one MLP's up projection (2 x 20 tokens x 128 features),
    each layer's gate/up/SiLU·mul runs in row chunks: the logits are bit for bit those
    of the whole MLP, and the arena of intermediates is smaller."""
    model, _ = tiny_llama(dtype)
    ids = torch.randint(0, 128, (2, 20), generator=torch.Generator().manual_seed(2))
    width = torch.tensor([], dtype=dtype).element_size()

    def run(chunk_bytes: int, directory):
        torch._dynamo.reset()
        options = {"chunk_bytes": chunk_bytes, "dump_ir": str(directory)}
        logits = torch.compile(model, backend="lumir", options=options)(ids, use_cache=False)
        (program,) = directory.glob("*share-buffers.mlir")
        return logits.logits, program.read_text()

    chunked, chunked_ir = run(2 * 20 * 128 * width // 3, tmp_path / "chunked")
    whole, whole_ir = run(0, tmp_path / "whole")
    assert torch.equal(chunked, whole)
    assert chunked_ir.count("_rows") > 0 and "_rows" not in whole_ir
    assert not list((tmp_path / "whole").glob("*chunk-rows.mlir"))

    def arena(text: str) -> int:
        return int(text.split("%arena = cublaslt_rt.alloc : memref<", 1)[1].split("x", 1)[0])

    assert arena(chunked_ir) < arena(whole_ir)


def test_the_cache_goes_by_the_name_the_forward_takes():
    class Renamed(torch.nn.Module):
        def forward(self, x, cache=None):
            return x

    class Older(torch.nn.Module):
        def forward(self, x, past_key_values=None):
            return x

    assert cache_argument(Renamed(), "kv") == {"cache": "kv"}
    assert cache_argument(Older(), "kv") == {"past_key_values": "kv"}
    compiled = torch.compile(Renamed(), backend="lumir")
    assert cache_argument(compiled, "kv") == {"cache": "kv"}
