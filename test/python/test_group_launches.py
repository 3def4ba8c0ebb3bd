"""Grouped launches: a decode layer's KV-cache writes and its counters' adds as one launch.

group-launches puts independent launches of `hl.index_copy` (in place, one index) or of
an integer `hl.add` into a `cublaslt_rt.launch_group`. On the CPU the members run one
by one, so a grouped program's bytes are the ungrouped program's; on CUDA the group is
one Triton launch, which must write each member's bytes exactly: checked here under
Triton's CPU interpreter (`lumir.testing.launch_group_check`, in a child process) and,
marked `cuda`, on a GPU through the backend's decode step.
"""

from __future__ import annotations

import json

import pytest
import torch
import transformers

from lumir.backend import stats
from lumir.dialects.cublaslt_rt import LaunchGroupOp
from lumir.parsing import parse_module_text
from lumir.passes.group_launches import group_module, has_groupable_launches
from lumir.runtime import load
from lumir.runtime.launch_group import LaunchGroupError, Member, grouped_launch
from lumir.testing.fused_check import triton_interpreter_available
from lumir.testing.hf import cache_argument
from lumir.testing.launch_group_check import run_in_interpreter

LAYER = """
func.func @decode(%kc: memref<1x2x8x4xbf16>, %vc: memref<1x2x8x4xbf16>, %c0: memref<i64>,
                  %c1: memref<i64>, %pos: memref<1xi64>, %knew: memref<1x2x1x4xbf16>,
                  %vnew: memref<1x2x1x4xbf16>)
    -> (memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<i64>, memref<i64>, memref<1xi64>) {
  %one = cublaslt_rt.constant {value = dense<1> : tensor<i64>} : memref<i64>
  %idx = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.add" ins(%pos, %c0 : memref<1xi64>, memref<i64>) outs(%idx : memref<1xi64>)
  %kpos = cublaslt_rt.alloc : memref<1x2x1x4xbf16>
  cublaslt_rt.launch "hl.neg" ins(%knew : memref<1x2x1x4xbf16>) outs(%kpos : memref<1x2x1x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64}
      ins(%kc, %idx, %kpos : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>)
      outs(%kc : memref<1x2x8x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64}
      ins(%vc, %idx, %vnew : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>)
      outs(%vc : memref<1x2x8x4xbf16>)
  cublaslt_rt.launch "hl.add" ins(%c0, %one : memref<i64>, memref<i64>) outs(%c0 : memref<i64>)
  cublaslt_rt.launch "hl.add" ins(%c1, %one : memref<i64>, memref<i64>) outs(%c1 : memref<i64>)
  func.return %kc, %vc, %c0, %c1, %idx
      : memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<i64>, memref<i64>, memref<1xi64>
}"""
"""A decode layer's cache updates as the backend loads them: caches and counters
written where they live (lumir.backend.in_place), the index computed from a counter."""


def _layer_inputs(seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    bf16 = torch.bfloat16
    return [
        torch.randn(1, 2, 8, 4, generator=generator).to(bf16),
        torch.randn(1, 2, 8, 4, generator=generator).to(bf16),
        torch.tensor(3 + seed),
        torch.tensor(40),
        torch.zeros(1, dtype=torch.int64),
        torch.randn(1, 2, 1, 4, generator=generator).to(bf16),
        torch.randn(1, 2, 1, 4, generator=generator).to(bf16),
    ]


def _grouped(text: str):
    module = parse_module_text(text, "<test>")
    made = group_module(module)
    module.verify()
    return module, made


def test_a_grouped_layer_on_the_cpu_is_the_ungrouped_layer_bit_for_bit() -> None:
    module, made = _grouped(LAYER)
    groups = [op for op in module.walk() if isinstance(op, LaunchGroupOp)]
    assert made == 2 and [g.kernel() for g in groups] == ["hl.add", "hl.index_copy"]
    grouped, plain = load(module), load(LAYER)
    assert len(grouped.launches) == len(plain.launches) - 2
    for seed in (0, 1):
        got, want = grouped(*_layer_inputs(seed)), plain(*_layer_inputs(seed))
        for after, before in zip(got, want, strict=True):
            assert after.dtype == before.dtype and torch.equal(after, before)
        assert int(got[4]) == 3 + seed and int(got[2]) == 4 + seed and int(got[3]) == 41


def test_the_pass_leaves_a_module_without_two_groupable_launches_as_it_is() -> None:
    lone = LAYER.replace("ins(%vc, %idx, %vnew", "ins(%vc, %pos, %vnew")
    module = parse_module_text(lone, "<test>")
    assert has_groupable_launches(module)  # the adds still group
    _, made = _grouped(lone)
    assert made == 1
    single = parse_module_text(
        """func.func @f(%c: memref<i64>, %one: memref<i64>) -> memref<i64> {
  cublaslt_rt.launch "hl.add" ins(%c, %one : memref<i64>, memref<i64>) outs(%c : memref<i64>)
  func.return %c : memref<i64>
}""",
        "<test>",
    )
    assert not has_groupable_launches(single) and group_module(single) == 0


def test_the_grouped_launch_refuses_tensors_its_kernel_cannot_run_as_torch_would() -> None:
    cache, other = torch.zeros(2, 8), torch.zeros(2, 8)
    index, source = torch.zeros(1, dtype=torch.int64), torch.zeros(2, 1)
    with pytest.raises(LaunchGroupError, match="member 0 does not update its cache in place"):
        grouped_launch("hl.index_copy", [Member(other, (cache, index, source))], dim=1)
    with pytest.raises(LaunchGroupError, match="member 1 reads another index than member 0"):
        members = [
            Member(cache, (cache, index, source)),
            Member(other, (other, index.clone(), source)),
        ]
        grouped_launch("hl.index_copy", members, dim=1)
    with pytest.raises(LaunchGroupError, match=r"adds torch\.float32; groups add integers"):
        grouped_launch("hl.add", [Member(cache, (cache, cache))])
    with pytest.raises(LaunchGroupError, match="member 0 has a strided tensor"):
        grouped_launch("hl.add", [Member(cache.t(), (cache.t(), cache.t()))])


@pytest.mark.skipif(
    triton_interpreter_available() is not None, reason=str(triton_interpreter_available())
)
def test_grouped_kernels_write_torchs_bytes_under_the_interpreter() -> None:
    done = run_in_interpreter()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 4 and all(line["bit_identical"] for line in lines), lines


def _tiny_llama() -> transformers.LlamaForCausalLM:
    from test_backend_llama import tiny_llama  # the backend tests' model, in bf16

    return tiny_llama(torch.bfloat16)[0]


def _decode_steps(model, device: str, options: dict, steps: int = 3):
    """Greedy steps over a StaticCache, compiled with `options`: (logits, cache tensors)."""
    model = model.to(device)
    compiled = torch.compile(model, backend="lumir", options=options)
    cache = transformers.StaticCache(config=model.config, max_cache_len=4 + steps)
    ids = torch.randint(0, 128, (1, 4), generator=torch.Generator().manual_seed(1)).to(device)
    model(ids, **cache_argument(model, cache), cache_position=torch.arange(4, device=device))
    logits, token = [], ids[:, -1:]
    for position in range(4, 4 + steps):
        at = torch.tensor([position], device=device)
        out = compiled(token, **cache_argument(compiled, cache), cache_position=at).logits
        token = out[:, -1].argmax(-1, keepdim=True)
        logits.append(out.clone())
    tensors = [t.clone() for layer in cache.layers for t in (layer.keys, layer.values)]
    return logits, tensors


@torch.no_grad()
def _compare_grouping(device: str) -> None:
    torch._dynamo.reset()
    stats.reset()
    model = _tiny_llama()
    grouped = _decode_steps(model, device, {})
    decode = stats.GRAPHS[-1].partitions[0]
    layers = model.config.num_hidden_layers
    assert decode.in_place_updates >= 3 * layers  # keys, values and counters in place
    # each layer's k/v writes, and at least one group of the counters' integer adds
    assert decode.launch_groups >= layers + 1
    torch._dynamo.reset()
    stats.reset()
    alone = _decode_steps(model, device, {"group_launches": False})
    assert stats.GRAPHS[-1].partitions[0].launch_groups == 0
    for got, want in zip(grouped[0] + grouped[1], alone[0] + alone[1], strict=True):
        assert torch.equal(got, want)


def test_a_decode_step_gives_the_same_bytes_with_and_without_grouped_launches() -> None:
    _compare_grouping("cpu")


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_on_cuda_grouped_launches_write_the_bytes_of_separate_launches() -> None:
    from lumir.runtime.cuda_cublaslt import cublaslt_available

    if not cublaslt_available():
        pytest.skip("needs nvmath-python")
    pytest.importorskip("triton")
    module, _ = _grouped(LAYER)
    on_gpu, on_cpu = load(module, device="cuda"), load(LAYER)
    for seed in (0, 1):  # the first call captures the CUDA graph, the second replays it
        inputs = _layer_inputs(seed)
        got = on_gpu(*[t.cuda() for t in inputs])
        for after, before in zip(got, on_cpu(*inputs), strict=True):
            assert torch.equal(after.cpu(), before)
    on_gpu.close()
    _compare_grouping("cuda")
