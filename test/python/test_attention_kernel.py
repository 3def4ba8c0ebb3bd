"""lumir's attention kernels: which calls they take, and their numbers.

On CUDA an `hl.sdpa` with at most 16 query rows runs as `lumir.runtime.attention`'s
few-query Triton kernel, and a prompt's as its prefill kernel, written into the
launch's buffer. On the CPU the executor runs torch's
SDPA, so the kernel itself is checked under Triton's CPU interpreter
(`lumir.testing.attention_check`, in a child process): against torch's f32 SDPA within
the rounding of f16, with the same bits on a second run, for decode and short-prompt
shapes, grouped and plain heads, boolean, additive and broadcast masks, causal calls,
strided operands and a strided destination.
"""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F
from xdsl.dialects.builtin import ModuleOp, UnitAttr

from lumir.parsing import parse_module_text
from lumir.runtime import hl_torch, load
from lumir.runtime.attention import (
    MAX_KEYS,
    MAX_PREFILL_KEYS,
    MAX_QUERY_ROWS,
    few_query_attention,
    few_query_attention_problems,
    prefill_attention,
    prefill_attention_problems,
)
from lumir.runtime.cuda_cublaslt import cublaslt_available
from lumir.testing.attention_check import CASES, TOLERANCE, run_in_interpreter
from lumir.testing.fused_check import triton_interpreter_available
from lumir.testing.programs import compile_text

GQA = {"enable_gqa": UnitAttr()}
"""The properties of a grouped-query `hl.sdpa`."""


def _operands(rows: int, keys: int, dim: int = 64, dtype=torch.bfloat16, heads=8, kv_heads=2):
    generator = torch.Generator().manual_seed(rows * 1000 + keys)
    shapes = [(1, heads, rows, dim), (1, kv_heads, keys, dim), (1, kv_heads, keys, dim)]
    return [torch.randn(shape, generator=generator).to(dtype) for shape in shapes]


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
def test_kernel_matches_torch_within_rounding_under_the_interpreter() -> None:
    result = run_in_interpreter()
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["case"] for line in lines] == [case.name for case in CASES]
    for line in lines:
        assert line["ok"] and line["same_bits_again"], line
        assert line["max_abs_diff"] <= TOLERANCE


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_matches_torch_on_random_calls_under_the_interpreter(seed: int) -> None:
    """Shapes, masks and layouts drawn from the kernel's whole domain, not just CASES."""
    result = run_in_interpreter("--random", "10", "--seed", str(seed))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 10
    assert all(line["ok"] and line["same_bits_again"] for line in lines), lines


def test_a_decode_step_is_taken() -> None:
    q, k, v = _operands(1, 512)
    assert few_query_attention_problems(q, k, v, None, enable_gqa=True) == []
    mask = torch.ones(1, 1, 1, 512, dtype=torch.bool)
    assert few_query_attention_problems(q, k, v, mask, enable_gqa=True) == []


@pytest.mark.parametrize(
    ("operands", "mask", "enable_gqa", "reason"),
    [
        (_operands(MAX_QUERY_ROWS + 1, 64), None, True, "query rows"),
        (_operands(1, MAX_KEYS + 1), None, True, "keys, more than"),
        (_operands(1, 64, dtype=torch.float32), None, True, "not all f16"),
        (_operands(1, 64, dim=48), None, True, "head size 48"),
        (_operands(1, 64), None, False, "8 query heads over 2"),
        (_operands(1, 64), torch.ones(1, 1, 1, 63, dtype=torch.bool), True, "does not broadcast"),
        (_operands(1, 64), torch.ones(1, 1, 1, 64, dtype=torch.int32), True, "mask type"),
        (_operands(0, 64), None, True, "empty"),
    ],
)
def test_calls_it_does_not_take_say_why(operands, mask, enable_gqa, reason) -> None:
    problems = few_query_attention_problems(*operands, mask, enable_gqa=enable_gqa)
    assert any(reason in problem for problem in problems), problems


def test_lumir_attention_torch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LUMIR_ATTENTION", "torch")
    assert few_query_attention_problems(*_operands(1, 64), None, enable_gqa=True) == [
        "LUMIR_ATTENTION=torch"
    ]
    assert prefill_attention_problems(*_operands(100, 100), None, enable_gqa=True) == [
        "LUMIR_ATTENTION=torch"
    ]


def test_a_prompt_is_the_prefill_kernels_up_to_its_key_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompt = _operands(1024, 1024, dim=128)
    assert few_query_attention_problems(*prompt, None, enable_gqa=True) != []
    assert prefill_attention_problems(*prompt, None, enable_gqa=True) == []
    too_long = _operands(4, MAX_PREFILL_KEYS + 1, dim=16)
    problems = prefill_attention_problems(*too_long, None, enable_gqa=True)
    assert any("keys, more than" in problem for problem in problems), problems
    assert prefill_attention_problems(*_operands(64, 64, dim=48), None, True) != []
    monkeypatch.setenv("LUMIR_PREFILL_ATTENTION", "torch")
    assert prefill_attention_problems(*prompt, None, enable_gqa=True) == [
        "LUMIR_PREFILL_ATTENTION=torch"
    ]


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
@pytest.mark.parametrize("causal", [True, False])
def test_the_prefill_kernel_compiles_for_hopper(causal: bool) -> None:
    """Triton's interpreter runs Python, not the compiler: a kernel it runs may still not
    compile (a global that is not a constexpr did not). Compile it for an H100/H200
    target here, on the CPU, as the GPU would at its first launch."""
    from lumir.runtime.attention_kernel import attention_prefill_kernel

    constants = {"BLOCK_M": 64, "BLOCK_N": 64, "HAS_MASK": not causal}
    constants |= {"MASK_IS_BOOL": not causal, "IS_CAUSAL": causal}
    _compile_for_hopper(attention_prefill_kernel, constants)


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
@pytest.mark.parametrize("splits", [1, 4])
def test_the_few_query_kernels_compile_for_hopper(splits: int) -> None:
    """The split kernel (writing the output itself with one split, partials with
    several) and the launch that merges the partials."""
    from lumir.runtime.attention_kernel import attention_combine_kernel, attention_split_kernel

    constants = {"BLOCK_M": 16, "BLOCK_N": 64, "HAS_MASK": True, "MASK_IS_BOOL": True}
    constants |= {"IS_CAUSAL": False, "SPLITS": splits}
    _compile_for_hopper(attention_split_kernel, constants)
    if splits > 1:
        _compile_for_hopper(attention_combine_kernel, {"BLOCK_M": 16, "SPLITS": splits})


def _compile_for_hopper(kernel: object, constants: dict[str, object]) -> None:
    """Compile `kernel` (bf16 operands, a boolean mask, f32 partials) for an sm_90
    target with `constants` and a head size of 64, as its first launch would."""
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from lumir.runtime.triton_launch import FP_FUSION

    constants = {"HEAD_DIM": 64, "PDL": False, **constants}
    pointers = {"q_ptr": "*bf16", "k_ptr": "*bf16", "v_ptr": "*bf16", "out_ptr": "*bf16"}
    pointers |= {"mask_ptr": "*i1", "part_ptr": "*fp32", "lse_ptr": "*fp32"}
    signature = {
        name: pointers.get(name)
        or ("constexpr" if name in constants else "fp32" if name == "scale" else "i32")
        for name in kernel.arg_names
    }
    source = ASTSource(
        fn=kernel,
        signature=signature,
        constexprs={(kernel.arg_names.index(name),): value for name, value in constants.items()},
    )
    try:
        options = {"enable_fp_fusion": FP_FUSION}
        compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options)
    except RuntimeError as error:  # no ptxas on this machine: the front end still ran
        if "ptxas" not in str(error).lower():
            raise
        return
    assert compiled.asm["ttir"]


def _sdpa_text(rows: int, keys: int, dim: int = 64) -> str:
    q, kv = f"tensor<1x8x{rows}x{dim}xbf16>", f"tensor<1x2x{keys}x{dim}xbf16>"
    return f"""
func.func @attention(%q: {q}, %k: {kv}, %v: {kv}) -> {q} {{
  %o = hl.sdpa %q, %k, %v {{enable_gqa}} : {q}, {kv}, {kv} -> {q}
  func.return %o : {q}
}}"""


def _compiled(rows: int, keys: int) -> ModuleOp:
    return parse_module_text(compile_text(_sdpa_text(rows, keys), fuse_kernels=False), "<sdpa>")


def test_the_cpu_executor_keeps_torchs_sdpa() -> None:
    """On CPU tensors the launch is torch's SDPA copied in (bit for bit eager's), never
    the Triton kernel, even for a call the kernel would take on CUDA."""
    q, k, v = _operands(1, 100)
    out = torch.empty_like(q)
    _, direct = hl_torch.bind_into_kernel("hl.sdpa", GQA, [q, k, v], out)
    assert not direct
    got = load(_compiled(1, 100))(q, k, v)
    assert torch.equal(got, F.scaled_dot_product_attention(q, k, v, enable_gqa=True))


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
@pytest.mark.parametrize(
    ("rows", "keys"), [(1, 1), (1, 512), (6, 6), (16, 700), (17, 40), (128, 128), (300, 1000)]
)
def test_on_cuda_a_compiled_sdpa_runs_the_kernel_close_to_torch(rows: int, keys: int) -> None:
    """The launch writes its buffer with a kernel of lumir's (few-query up to 16 rows,
    prefill beyond: no copy either way), agrees with torch's f32
    SDPA as closely as torch's own bf16 kernel does (within one bf16 rounding step of
    the output), and gives the same bits on every replay."""
    q, k, v = (x.cuda() for x in _operands(rows, keys))
    _, direct = hl_torch.bind_into_kernel("hl.sdpa", GQA, [q, k, v], torch.empty_like(q))
    assert direct
    exact = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), enable_gqa=True)
    eager = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    program = load(_compiled(rows, keys), device="cuda")
    results = [program(q, k, v).clone() for _ in range(3)]
    program.close()
    assert all(torch.equal(result, results[0]) for result in results)
    eager_error = (eager.float() - exact).abs().max().item()
    assert (results[0].float() - exact).abs().max().item() <= eager_error + 2**-8


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
def test_on_cuda_masked_and_strided_calls_agree_with_torch() -> None:
    q, k, v = (x.cuda() for x in _operands(3, 300))
    q, k, v = (x.transpose(1, 2).contiguous().transpose(1, 2) for x in (q, k, v))
    mask = torch.rand(1, 1, 3, 300, generator=torch.Generator().manual_seed(1)) > 0.3
    mask = mask.cuda()
    exact = F.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), attn_mask=mask, enable_gqa=True
    )
    out = torch.empty(1, 3, 8, 64, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    few_query_attention(out, q, k, v, mask)
    assert (out.float() - exact).abs().max().item() <= 2**-6


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
@pytest.mark.parametrize("dim", [64, 128])
def test_on_cuda_a_causal_prompt_through_strided_views_agrees_with_torch(dim: int) -> None:
    """A Llama layer's prompt: q, k, v read through transposed views, causal, the result
    written through the output projection's transposed view."""
    q, k, v = (x.cuda() for x in _operands(200, 200, dim=dim))
    q, k, v = (x.transpose(1, 2).contiguous().transpose(1, 2) for x in (q, k, v))
    exact = F.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=True, enable_gqa=True
    )
    eager = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    out = torch.empty(1, 200, 8, dim, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    prefill_attention(out, q, k, v, is_causal=True)
    eager_error = (eager.float() - exact).abs().max().item()
    assert (out.float() - exact).abs().max().item() <= eager_error + 2**-8
