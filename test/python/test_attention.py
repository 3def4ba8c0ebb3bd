"""Attention without copy kernels: grouped-query `hl.sdpa` against torch eager SDPA.

A Llama layer's attention reaches lumir as `hl.sdpa` over HF's `repeat_kv` of key and
value (unsqueeze, expand, reshape). `hl-canonicalize` folds that into `enable_gqa`, so the
lowered program has no `hl.expand` launch; these tests compile such functions through the
whole pipeline, run them on the CPU executor and compare with torch's own
`F.scaled_dot_product_attention` on the repeated key and value: bit for bit, since
torch's grouped-query path and the repeated one do the same arithmetic on CPU.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from lumir.context import lumir_context
from lumir.dialects.cublaslt_rt import LaunchOp
from lumir.parsing import LocatedParser
from lumir.passes import available_passes
from lumir.runtime import hl_torch, interpret, load
from lumir.runtime.cuda_cublaslt import cublaslt_available

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}


def _parse(text: str) -> ModuleOp:
    return LocatedParser(lumir_context(), text, "<attention>").parse_module()


def _compiled(text: str, fuse_kernels: bool = False) -> ModuleOp:
    module = _parse(text)
    pipeline = available_passes()["lumir-pipeline"]()(fuse_kernels=fuse_kernels)
    PassPipeline((pipeline,)).apply(lumir_context(), module)
    return module


def _launches(module: ModuleOp) -> list[LaunchOp]:
    return [op for op in module.walk() if isinstance(op, LaunchOp)]


def _tensor(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{'x'.join(str(d) for d in shape)}x{element}>"


def repeat_kv_attention(heads: int, kv_heads: int, length: int, causal: bool, element: str) -> str:
    """An hl function: sdpa(q, repeat_kv(k), repeat_kv(v)) as the importer writes HF's."""
    group, seq, width = heads // kv_heads, 5, 16
    q, kv = _tensor((1, heads, length, width), element), _tensor((1, kv_heads, seq, width), element)
    split = _tensor((1, kv_heads, 1, seq, width), element)
    grown = _tensor((1, kv_heads, group, seq, width), element)
    merged = _tensor((1, heads, seq, width), element)
    out = _tensor((1, heads, length, width), element)
    flags = "{is_causal, scale = 2.500000e-01 : f64}" if causal else "{scale = 2.500000e-01 : f64}"
    lines = [f"func.func @attention(%q: {q}, %k: {kv}, %v: {kv}) -> {out} {{"]
    for name in ("k", "v"):
        lines += [
            f"  %{name}5 = hl.reshape %{name} : {kv} -> {split}",
            f"  %{name}e = hl.expand %{name}5 : {split} -> {grown}",
            f"  %{name}r = hl.reshape %{name}e : {grown} -> {merged}",
        ]
    lines += [
        f"  %o = hl.sdpa %q, %kr, %vr {flags} : {q}, {merged}, {merged} -> {out}",
        f"  func.return %o : {out}",
        "}",
    ]
    return "\n".join(lines)


def _inputs(heads: int, kv_heads: int, length: int, dtype: torch.dtype) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(heads * 100 + kv_heads * 10 + length)
    shapes = [(1, heads, length, 16), (1, kv_heads, 5, 16), (1, kv_heads, 5, 16)]
    return [torch.randn(shape, generator=generator).to(dtype) for shape in shapes]


def _eager(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> torch.Tensor:
    """torch eager SDPA on key and value repeated to the query's heads (HF's repeat_kv)."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=0.25)


GQA_CASES = [
    (heads, kv_heads, length, causal, element)
    for heads, kv_heads in ((4, 4), (4, 2), (8, 2))
    for length in (1, 5)
    for causal in (False, True)
    for element in ("f32", "bf16")
]


@pytest.mark.parametrize(("heads", "kv_heads", "length", "causal", "element"), GQA_CASES)
def test_repeat_kv_attention_matches_torch_bit_for_bit(
    heads: int, kv_heads: int, length: int, causal: bool, element: str
) -> None:
    text = repeat_kv_attention(heads, kv_heads, length, causal, element)
    inputs = _inputs(heads, kv_heads, length, DTYPES[element])
    expected = _eager(*inputs, causal=causal)
    (reference,) = interpret(_parse(text), inputs)
    assert torch.equal(reference, expected)
    compiled = _compiled(text)
    kernels = [launch.kernel.data for launch in _launches(compiled)]
    assert kernels == ["hl.sdpa"]  # no expand, no copy of k or v
    if heads != kv_heads:
        assert "enable_gqa" in _launches(compiled)[0].kernel_params()
    got = load(compiled)(*inputs)
    assert isinstance(got, torch.Tensor)
    assert torch.equal(got, expected)


def strided_attention(heads: int, kv_heads: int, length: int, causal: bool, element: str) -> str:
    """Llama's layout: q [1, L, H, D], k and v [1, S, KV, D] each transposed to heads-major
    for hl.sdpa, and the [1, H, L, D] result transposed back to [1, L, H, D]."""
    seq, width = 5, 16
    q_in, kv_in = (
        _tensor((1, length, heads, width), element),
        _tensor((1, seq, kv_heads, width), element),
    )
    q, kv = _tensor((1, heads, length, width), element), _tensor((1, kv_heads, seq, width), element)
    flags = ["scale = 2.500000e-01 : f64"] + (["is_causal"] if causal else [])
    if heads != kv_heads:
        flags.append("enable_gqa")
    swap = "{permutation = array<i64: 0, 2, 1, 3>}"
    return "\n".join(
        [
            f"func.func @attention(%q: {q_in}, %k: {kv_in}, %v: {kv_in}) -> {q_in} {{",
            f"  %qt = hl.transpose %q {swap} : {q_in} -> {q}",
            f"  %kt = hl.transpose %k {swap} : {kv_in} -> {kv}",
            f"  %vt = hl.transpose %v {swap} : {kv_in} -> {kv}",
            f"  %o = hl.sdpa %qt, %kt, %vt {{{', '.join(flags)}}} : {q}, {kv}, {kv} -> {q}",
            f"  %ot = hl.transpose %o {swap} : {q} -> {q_in}",
            f"  func.return %ot : {q_in}",
            "}",
        ]
    )


@pytest.mark.parametrize(("heads", "kv_heads", "length", "causal", "element"), GQA_CASES)
def test_strided_attention_matches_torch_bit_for_bit(
    heads: int, kv_heads: int, length: int, causal: bool, element: str
) -> None:
    """The transposes around sdpa are permuted views of the launch, not copies."""
    text = strided_attention(heads, kv_heads, length, causal, element)
    q, k, v = _inputs(heads, kv_heads, length, DTYPES[element])
    q, k, v = (x.transpose(1, 2).contiguous() for x in (q, k, v))  # [1, L or S, heads, D]
    expected = _eager(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal)
    expected = expected.transpose(1, 2)
    compiled = _compiled(text)
    (launch,) = _launches(compiled)
    assert launch.kernel.data == "hl.sdpa"
    views = [*launch.read_permutations(), launch.write_permutation()]
    moved = (0, 2, 1, 3)
    # A transpose that only moves a unit dimension (one query) is a plain view instead.
    assert views == [
        moved if length > 1 else (0, 1, 2, 3),
        moved,
        moved,
        moved if length > 1 else (0, 1, 2, 3),
    ]
    got = load(compiled)(q, k, v)
    assert isinstance(got, torch.Tensor)
    assert torch.equal(got, expected)


@pytest.mark.parametrize("element", ["f32", "bf16"])
def test_masked_repeat_kv_attention_matches_torch(element: str) -> None:
    """A boolean mask broadcast over the heads stays with the grouped sdpa."""
    text = repeat_kv_attention(8, 2, 5, False, element)
    mask_type = "tensor<1x1x5x5xi1>"
    text = text.replace(") -> tensor<1x8x5x16", f", %m: {mask_type}) -> tensor<1x8x5x16", 1)
    text = text.replace("%kr, %vr {scale", f"%kr, %vr mask(%m : {mask_type}) {{scale")
    q, k, v = _inputs(8, 2, 5, DTYPES[element])
    mask = torch.rand(1, 1, 5, 5, generator=torch.Generator().manual_seed(3)) > 0.4
    mask[..., 0] = True  # every query sees a key
    group_k, group_v = k.repeat_interleave(4, dim=1), v.repeat_interleave(4, dim=1)
    expected = F.scaled_dot_product_attention(q, group_k, group_v, attn_mask=mask, scale=0.25)
    compiled = _compiled(text)
    assert [launch.kernel.data for launch in _launches(compiled)] == ["hl.sdpa"]
    got = load(compiled)(q, k, v, mask)
    assert isinstance(got, torch.Tensor)
    assert torch.equal(got, expected)


def test_grouped_sdpa_without_gqa_flag_is_refused() -> None:
    """4 query heads over 2 key/value heads do not broadcast: only enable_gqa reads them."""
    text = repeat_kv_attention(4, 2, 5, False, "f32")
    text = text.replace("%kr, %vr {scale", "%k, %v {scale").replace(
        "tensor<1x4x5x16xf32>, tensor<1x4x5x16xf32> -> tensor<1x4x5x16xf32>",
        "tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32> -> tensor<1x4x5x16xf32>",
    )
    with pytest.raises(Exception, match="shapes disagree"):
        _parse(text).verify()


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
@pytest.mark.parametrize(
    ("heads", "kv_heads", "length", "causal"), [(4, 2, 1, True), (8, 2, 5, True)]
)
def test_grouped_attention_on_cuda_matches_eager_bit_for_bit(
    heads: int, kv_heads: int, length: int, causal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On CUDA, with lumir's few-query kernel turned off (`LUMIR_ATTENTION=torch`; its
    own tests are test_attention_kernel.py), the grouped sdpa runs torch's fused kernel
    on the grouped heads where torch has one, and repeats the key/value heads itself
    where it has not (so torch does not fall back to its math path): the same bits as
    eager's kernel on eager's repeated heads either way."""
    monkeypatch.setenv("LUMIR_ATTENTION", "torch")
    text = repeat_kv_attention(heads, kv_heads, length, causal, "bf16")
    inputs = _inputs(heads, kv_heads, length, torch.bfloat16)
    expected = _eager(*[x.cuda() for x in inputs], causal=causal)
    program = load(_compiled(text), device="cuda")
    for _ in range(2):  # the first call captures the graph, the second replays it
        got = program(*[x.cuda() for x in inputs])
        assert isinstance(got, torch.Tensor)
        assert torch.equal(got, expected)
    program.close()


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
def test_masked_grouped_attention_on_cuda_matches_eager_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LUMIR_ATTENTION", "torch")
    text = repeat_kv_attention(8, 2, 5, False, "bf16")
    mask_type = "tensor<1x1x5x5xi1>"
    text = text.replace(") -> tensor<1x8x5x16", f", %m: {mask_type}) -> tensor<1x8x5x16", 1)
    text = text.replace("%kr, %vr {scale", f"%kr, %vr mask(%m : {mask_type}) {{scale")
    q, k, v = (x.cuda() for x in _inputs(8, 2, 5, torch.bfloat16))
    mask = torch.rand(1, 1, 5, 5, generator=torch.Generator().manual_seed(3)) > 0.4
    mask[..., 0] = True
    mask = mask.cuda()
    group_k, group_v = k.repeat_interleave(4, dim=1), v.repeat_interleave(4, dim=1)
    expected = F.scaled_dot_product_attention(q, group_k, group_v, attn_mask=mask, scale=0.25)
    program = load(_compiled(text), device="cuda")
    for _ in range(2):
        assert torch.equal(program(q, k, v, mask), expected)
    program.close()


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
def test_grouped_attention_on_cuda_copies_no_heads_where_torch_takes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A causal, unmasked grouped call (a prefill) is one that torch's flash attention
    takes as it is: the launch must not repeat the key/value heads (two copies a layer)."""
    repeats: list[int] = []
    real = hl_torch._repeat_heads

    def counting(kv: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        repeats.append(kv.shape[-3])
        return real(kv, query)

    monkeypatch.setattr(hl_torch, "_repeat_heads", counting)
    text = repeat_kv_attention(8, 2, 64, True, "bf16")
    inputs = [x.cuda() for x in _inputs(8, 2, 64, torch.bfloat16)]
    expected = _eager(*inputs, causal=True)
    program = load(_compiled(text), device="cuda")
    for _ in range(2):
        assert torch.equal(program(*inputs), expected)
    program.close()
    assert repeats == []
