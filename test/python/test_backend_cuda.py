"""The backend on CUDA: cuBLASLt calls replayed as one CUDA graph, weights bound in place."""

from __future__ import annotations

import pytest
import torch

from lumir.backend import stats
from lumir.runtime.cuda_cublaslt import cublaslt_available
from lumir.testing.hf import cache_argument

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cublaslt_available(), reason="needs a GPU with cuBLASLt (nvmath)"),
]

transformers = pytest.importorskip("transformers")


def _tiny_llama():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    return transformers.LlamaForCausalLM(config).eval().cuda(), config


@torch.no_grad()
def test_llama_f32_on_cuda_matches_eager():
    torch._dynamo.reset()
    torch.backends.cuda.matmul.allow_tf32 = False
    model, _ = _tiny_llama()
    ids = torch.randint(0, 128, (1, 6), device="cuda")
    expected = model(ids, use_cache=False).logits
    got = torch.compile(model, backend="lumir")(ids, use_cache=False).logits
    assert got.device.type == "cuda"
    assert (got - expected).abs().max().item() <= 1e-3


@torch.no_grad()
def test_weight_updated_in_place_is_seen_by_the_captured_graph():
    torch._dynamo.reset()
    stats.reset()
    linear = torch.nn.Linear(64, 64).cuda()
    x = torch.randn(8, 64, device="cuda")
    compiled = torch.compile(linear, backend="lumir")
    torch.testing.assert_close(compiled(x), linear(x), atol=1e-4, rtol=1e-4)
    linear.weight.mul_(0.5)
    torch.testing.assert_close(compiled(x), linear(x), atol=1e-4, rtol=1e-4)
    assert stats.GRAPHS[0].partitions[0].loads == 1  # bound once, never copied or rebound


@torch.no_grad()
def test_greedy_decoding_on_cuda_matches_eager():
    torch._dynamo.reset()
    model, config = _tiny_llama()
    ids = torch.randint(0, 128, (1, 6), device="cuda")

    def greedy(m):
        cache = transformers.DynamicCache(config=config)
        step, out = ids, []
        for _ in range(16):
            logits = m(step, **cache_argument(m, cache), use_cache=True).logits
            step = logits[:, -1].argmax(-1, keepdim=True)
            out.append(int(step))
        return out

    assert greedy(torch.compile(model, backend="lumir")) == greedy(model)


@torch.no_grad()
def test_greedy_decoding_with_a_static_cache_on_cuda_matches_eager_and_updates_in_place():
    """The StaticCache is bound by address and written in place by the captured graph;
    the call that captures it must update it exactly once (no warm-up on stale inputs)."""
    torch._dynamo.reset()
    stats.reset()
    model, config = _tiny_llama()
    ids = torch.randint(0, 128, (1, 6), device="cuda")

    def greedy(m):
        cache = transformers.StaticCache(config=config, max_cache_len=ids.shape[1] + 16)
        step, out, position = ids, [], 0
        for _ in range(16):
            positions = torch.arange(position, position + step.shape[1], device="cuda")
            logits = m(step, **cache_argument(m, cache), cache_position=positions).logits
            position += step.shape[1]
            step = logits[:, -1].argmax(-1, keepdim=True)
            out.append(int(step))
        return out

    expected = greedy(model)
    assert greedy(torch.compile(model, backend="lumir")) == expected
    decode = stats.GRAPHS[-1].partitions[0]
    assert decode.in_place_updates >= 2 * config.num_hidden_layers


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@torch.no_grad()
def test_vector_products_on_cuda_are_cublaslt_calls(dtype):
    """mv (a linear layer on a 1-D input), addmv and dot as one-column cuBLASLt
    products, with 13 rows (not a whole 16-byte vector) among them."""
    torch._dynamo.reset()
    stats.reset()
    torch.manual_seed(0)
    linear = torch.nn.Linear(64, 13).to("cuda", dtype)
    matrix = torch.randn(13, 13, device="cuda", dtype=dtype)
    offset = torch.randn(13, device="cuda", dtype=dtype)

    def products(x):
        h = torch.relu(linear(x))
        h = torch.addmv(offset, matrix, h, beta=0.5, alpha=2.0)
        return h, torch.dot(h, h)

    x = torch.randn(64, device="cuda", dtype=dtype)
    tolerance = 1e-4 if dtype == torch.float32 else 5e-2
    for got, want in zip(torch.compile(products, backend="lumir")(x), products(x), strict=True):
        assert got.device.type == "cuda" and got.dtype == want.dtype
        torch.testing.assert_close(got, want, atol=tolerance, rtol=tolerance)
    (graph,) = stats.GRAPHS
    assert graph.fallback_ops == []
    assert sum(p.fused["matmuls"] for p in graph.partitions) == 3


@torch.no_grad()
def test_dynamic_true_python_float_first_stays_a_cuda_graph():
    """A Python float passed first is a CPU 0-d f64 input under dynamic=True: the graph
    still runs on the GPU (its output too), with the float imported already cast."""

    def scaled_norm(eps, x, scale):
        return x / (x.abs().mean(-1, keepdim=True) + eps) * scale

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(scaled_norm, backend="lumir", dynamic=True)
    reference = torch.compile(scaled_norm, backend="aot_eager", dynamic=True)
    for eps, scale in ((1e-6, 0.3), (0.1, 1.7)):
        x = torch.randn(4, 64, device="cuda", dtype=torch.bfloat16)
        got = compiled(eps, x, scale)
        assert got.is_cuda
        torch.testing.assert_close(got, reference(eps, x, scale), atol=2e-2, rtol=2e-2)
    assert all(graph.fallback_ops == [] for graph in stats.GRAPHS)


@torch.no_grad()
@pytest.mark.parametrize("where", ["cpu", "cuda"])
def test_a_0d_f32_tensor_times_a_half_tensor_gives_cuda_eagers_bits(where):
    """ATen reads a 0-d CPU f32 tensor (a CPU scalar) of a half mul or div at f32, and
    casts a 0-d CUDA one to the half type like any operand; lumir does the same."""
    x = torch.randn(64, 96, device="cuda").bfloat16()
    scale = torch.tensor(0.1, device=where)
    for fn in (lambda a, s: a * s, lambda a, s: a / s):
        torch._dynamo.reset()
        assert torch.equal(torch.compile(fn, backend="lumir")(x, scale), fn(x, scale))


def _tiny_gemma():
    torch.manual_seed(0)
    config = transformers.GemmaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=512,
    )
    return transformers.GemmaForCausalLM(config).eval().cuda(), config


@torch.no_grad()
@pytest.mark.parametrize("family", ["llama", "gemma"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_mlps_in_row_chunks_on_cuda_match_the_whole_mlps(tmp_path, dtype, family):
    """chunk-rows on CUDA, inside the captured graph: gate's call writes the whole MLP
    output, then each chunk's up GEMM and product kernel (SiLU·mul for Llama, the bare
    product after gate's GELU epilogue for Gemma) rewrite its rows in place through
    views. The logits match the unchunked program's and eager's as closely as those
    match each other (a 128-row GEMM may run another cuBLASLt kernel than a 512-row
    one)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    model, _ = _tiny_llama() if family == "llama" else _tiny_gemma()
    model = model.to(dtype)
    ids = torch.randint(0, 128, (2, 256), device="cuda", generator=None)
    expected = model(ids, use_cache=False).logits.float()

    def run(chunk_bytes: int, directory):
        torch._dynamo.reset()
        options = {"chunk_bytes": chunk_bytes, "dump_ir": str(directory)}
        compiled = torch.compile(model, backend="lumir", options=options)
        compiled(ids, use_cache=False)  # the first call captures; the second replays
        logits = compiled(ids, use_cache=False).logits.float()
        (program,) = directory.glob("*share-buffers.mlir")
        return logits, program.read_text()

    width = torch.tensor([], dtype=dtype).element_size()
    chunked, chunked_ir = run(2 * 256 * 128 * width // 4, tmp_path / "chunked")
    whole, whole_ir = run(0, tmp_path / "whole")
    assert chunked_ir.count("_rows") > 0 and "_rows" not in whole_ir
    tolerance = 1e-3 if dtype == torch.float32 else 5e-2
    assert (chunked - whole).abs().max().item() <= tolerance
    assert (chunked - expected).abs().max().item() <= max(
        tolerance, 2 * (whole - expected).abs().max().item()
    )
