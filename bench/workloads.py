"""The benchmark's workloads: the residual-chain module, the Llama-3.2-1B-shaped model and
a GPT-2-medium-shaped model (LayerNorm, fused-qkv split, GELU: an architecture beside
Llama's).

Each workload is a torch module plus the arguments of one call, built once per run with
seeded random weights (no downloads). The residual-chain module is also written as `hl`
text with the same arithmetic, so lumir's direct path (hl -> lumir-pipeline ->
`lumir.runtime.load`) runs on the module's own weights and can be checked against it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

CHAIN_BLOCKS = 2
RMS_EPS = 1e-5


class RMSNorm(nn.Module):
    """Llama's RMSNorm: the statistics in f32, the scale applied in the input dtype."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + RMS_EPS)
        return self.weight * x32.to(x.dtype)


class ResidualBlock(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.norm = RMSNorm(hidden)
        self.linear = nn.Linear(hidden, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.linear(self.norm(x))


class ResidualChain(nn.Module):
    """The motivating block of issue 11: blocks x [RMSNorm -> Linear -> residual add]."""

    def __init__(self, hidden: int, blocks: int = CHAIN_BLOCKS) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(ResidualBlock(hidden) for _ in range(blocks))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def chain_hl(seq: int, hidden: int, blocks: int = CHAIN_BLOCKS) -> str:
    """`ResidualChain` as an hl function `@chain(%x, %g0, %w0, %g1, %w1, ...)` in bf16.

    The same ops in the same order as the module's forward: cast to f32, square, mean,
    add eps, rsqrt, scale, cast back, times the norm weight, Linear (x W^T), residual add.
    """
    act, act32 = f"tensor<{seq}x{hidden}xbf16>", f"tensor<{seq}x{hidden}xf32>"
    stat, weight = f"tensor<{seq}x1xf32>", f"tensor<{hidden}x{hidden}xbf16>"
    args = ["%h0: " + act]
    body = [f"%eps = hl.constant {{value = dense<{RMS_EPS:.1e}> : tensor<f32>}} : tensor<f32>"]
    for i in range(blocks):
        h, nxt = f"%h{i}", f"%h{i + 1}"
        args += [f"%g{i}: tensor<{hidden}xbf16>", f"%w{i}: {weight}"]
        body += [
            f"%xf{i} = hl.cast {h} : {act} -> {act32}",
            f"%sq{i} = hl.mul %xf{i}, %xf{i} : ({act32}, {act32}) -> {act32}",
            f"%ms{i} = hl.mean %sq{i} {{dims = array<i64: -1>, keepdim}} : {act32} -> {stat}",
            f"%v{i} = hl.add %ms{i}, %eps : ({stat}, tensor<f32>) -> {stat}",
            f"%inv{i} = hl.rsqrt %v{i} : {stat} -> {stat}",
            f"%nf{i} = hl.mul %xf{i}, %inv{i} : ({act32}, {stat}) -> {act32}",
            f"%n{i} = hl.cast %nf{i} : {act32} -> {act}",
            f"%s{i} = hl.mul %g{i}, %n{i} : (tensor<{hidden}xbf16>, {act}) -> {act}",
            f"%y{i} = hl.linear %s{i}, %w{i} : {act}, {weight} -> {act}",
            f"{nxt} = hl.add {h}, %y{i} : ({act}, {act}) -> {act}",
        ]
    body.append(f"func.return %h{blocks} : {act}")
    lines = [f"func.func @chain({', '.join(args)}) -> {act} {{", *("  " + b for b in body), "}"]
    return "\n".join(lines) + "\n"


def chain_direct_inputs(module: ResidualChain, x: torch.Tensor) -> list[torch.Tensor]:
    """The arguments of `chain_hl`'s function for `module(x)`: x, then each block's weights."""
    inputs = [x]
    for block in module.blocks:
        inputs += [block.norm.weight.detach(), block.linear.weight.detach()]
    return inputs


@dataclass(frozen=True)
class LlamaShape:
    """The LlamaConfig fields the benchmark sets."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int


LLAMA_SHAPES = {
    "1b": LlamaShape(16, 2048, 32, 8, 8192, 128256),  # Llama-3.2-1B
    "tiny": LlamaShape(2, 64, 4, 2, 128, 256),  # for running the harness on a CPU
}

DECODE_CACHE = 512
"""Tokens held in the KV cache before the timed decode step."""


def build_llama(shape: LlamaShape, device: torch.device, dtype: torch.dtype) -> nn.Module:
    """A random-weight LlamaForCausalLM of `shape` in `dtype`, built on `device`."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        num_hidden_layers=shape.layers,
        hidden_size=shape.hidden,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        intermediate_size=shape.intermediate,
        vocab_size=shape.vocab,
        max_position_embeddings=4096,
        rope_theta=500000.0,
        rms_norm_eps=RMS_EPS,
        tie_word_embeddings=True,
        attn_implementation="sdpa",
    )
    torch.manual_seed(0)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval()


@dataclass
class Workload:
    """One timed call: `module(*args, **kwargs)`, and lumir's direct path where it has one.

    `reset`, when set, runs first in every call (inside a captured CUDA graph too): it
    restores state the call advances, so that every call does the same work.
    """

    family: str
    seq: str
    module: nn.Module
    args: tuple[object, ...]
    kwargs: dict[str, object] = field(default_factory=dict)
    hl_text: str | None = None
    direct_inputs: list[torch.Tensor] | None = None
    reset: Callable[[], None] | None = None

    @property
    def name(self) -> str:
        return f"{self.family}/{self.seq}"

    def call(self, module: Callable[..., object] | None = None) -> object:
        if self.reset is not None:
            self.reset()
        target = self.module if module is None else module
        return target(*self.args, **self.kwargs)


def chain_workloads(seqs: list[int], hidden: int, device: torch.device) -> list[Workload]:
    torch.manual_seed(0)
    module = ResidualChain(hidden).to(device=device, dtype=torch.bfloat16).eval()
    with torch.no_grad():
        for block in module.blocks:  # non-trivial norm weights, so a dropped scale shows
            block.norm.weight.uniform_(0.5, 1.5)
    found = []
    for seq in seqs:
        x = torch.randn(seq, hidden, device=device, dtype=torch.bfloat16)
        found.append(
            Workload(
                "chain",
                str(seq),
                module,
                (x,),
                hl_text=chain_hl(seq, hidden),
                direct_inputs=chain_direct_inputs(module, x),
            )
        )
    return found


def llama_workloads(seqs: list[str], shape: LlamaShape, device: torch.device) -> list[Workload]:
    """Forward passes at each numeric seq, and `decode`: one token after a prefilled cache."""
    model = build_llama(shape, device, torch.bfloat16)
    generator = torch.Generator(device="cpu").manual_seed(1)
    found = []
    for seq in seqs:
        if seq == "decode":
            found.append(_decode_workload(model, shape, device, generator))
            continue
        ids = torch.randint(0, shape.vocab, (1, int(seq)), generator=generator).to(device)
        found.append(Workload("llama", seq, model, (ids,), {"use_cache": False}))
    return found


@dataclass(frozen=True)
class Gpt2Shape:
    """The GPT2Config fields the benchmark sets."""

    layers: int
    hidden: int
    heads: int
    vocab: int


GPT2_SHAPES = {
    "medium": Gpt2Shape(24, 1024, 16, 50257),  # gpt2-medium
    "tiny": Gpt2Shape(2, 64, 4, 256),  # for running the harness on a CPU
}


def gpt2_workloads(seqs: list[str], shape: Gpt2Shape, device: torch.device) -> list[Workload]:
    """Forward passes of a random-weight GPT2LMHeadModel of `shape` in bf16 at each seq."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        n_layer=shape.layers,
        n_embd=shape.hidden,
        n_head=shape.heads,
        vocab_size=shape.vocab,
        n_positions=2048,
        attn_implementation="sdpa",
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = GPT2LMHeadModel(config).to(torch.bfloat16).eval()
    generator = torch.Generator(device="cpu").manual_seed(1)
    found = []
    for seq in seqs:
        ids = torch.randint(0, shape.vocab, (1, int(seq)), generator=generator).to(device)
        found.append(Workload("gpt2", seq, model, (ids,), {"use_cache": False}))
    return found


def _decode_workload(
    model: nn.Module, shape: LlamaShape, device: torch.device, generator: torch.Generator
) -> Workload:
    """One decode step at position DECODE_CACHE over a StaticCache prefilled eagerly."""
    from transformers import StaticCache

    from lumir.testing.hf import cache_argument

    cache = StaticCache(config=model.config, max_cache_len=DECODE_CACHE + 1)
    prompt = torch.randint(0, shape.vocab, (1, DECODE_CACHE), generator=generator).to(device)
    with torch.no_grad():
        model(
            prompt,
            **cache_argument(model, cache),
            cache_position=torch.arange(DECODE_CACHE, device=device),
            use_cache=True,
        )
    token = torch.randint(0, shape.vocab, (1, 1), generator=generator).to(device)
    position = torch.tensor([DECODE_CACHE], device=device)
    kwargs = {**cache_argument(model, cache), "cache_position": position, "use_cache": True}
    return Workload("llama", "decode", model, (token,), kwargs, reset=_rewind(cache, device))


def _rewind(cache: object, device: torch.device) -> Callable[[], None] | None:
    """A reset that puts the cache back at DECODE_CACHE tokens before each decode step.

    Newer transformers StaticCache layers count the tokens they hold in a device tensor
    (`cumulative_length`, marked as a static address for CUDA graphs) and write at that
    position, advancing it; older ones write at `cache_position` and need no reset. The
    counters are reset in place by one multi-tensor copy, so their addresses stay put.
    """
    counters = [
        layer.cumulative_length
        for layer in getattr(cache, "layers", [])
        if isinstance(getattr(layer, "cumulative_length", None), torch.Tensor)
    ]
    if not counters:
        return None
    start = [torch.full_like(counter, DECODE_CACHE) for counter in counters]
    return lambda: torch._foreach_copy_(counters, start)


def llama_layer_hl(seq: int, shape: LlamaShape, eps: float = RMS_EPS) -> str:
    """One Llama decoder layer as an hl function, the ops of transformers' eager forward.

    `@layer(%x [S, hidden], %cos, %sin [1, 1, S, head_dim], %g1, %wq, %wk, %wv, %wo, %g2,
    %wgate, %wup, %wdown)`: RMSNorm, q/k/v projections, rotary embedding (rotate_half as
    slice, neg, cat), repeat_kv (expand + reshape), causal SDPA when S > 1, o projection,
    residual; RMSNorm, SiLU-gated MLP, residual. bf16 throughout, the norms in f32.
    """
    hd, heads, kv, inter = shape.hidden, shape.heads, shape.kv_heads, shape.intermediate
    dim, group = hd // heads, heads // kv
    bf = "bf16"

    def t(*dims: int, element: str = bf) -> str:
        return f"tensor<{'x'.join(str(d) for d in dims)}x{element}>"

    act, act32, stat = t(seq, hd), t(seq, hd, element="f32"), t(seq, 1, element="f32")
    rot = t(1, 1, seq, dim)
    lines = [f"%eps = hl.constant {{value = dense<{eps:.1e}> : tensor<f32>}} : tensor<f32>"]

    def norm(src: str, weight: str, out: str) -> None:
        lines.extend(
            [
                f"{out}_f = hl.cast {src} : {act} -> {act32}",
                f"{out}_sq = hl.mul {out}_f, {out}_f : ({act32}, {act32}) -> {act32}",
                f"{out}_ms = hl.mean {out}_sq {{dims = array<i64: -1>, keepdim}} : "
                f"{act32} -> {stat}",
                f"{out}_v = hl.add {out}_ms, %eps : ({stat}, tensor<f32>) -> {stat}",
                f"{out}_inv = hl.rsqrt {out}_v : {stat} -> {stat}",
                f"{out}_nf = hl.mul {out}_f, {out}_inv : ({act32}, {stat}) -> {act32}",
                f"{out}_n = hl.cast {out}_nf : {act32} -> {act}",
                f"{out} = hl.mul {weight}, {out}_n : ({t(hd)}, {act}) -> {act}",
            ]
        )

    def heads_of(src: str, count: int, out: str) -> None:
        """[S, count*dim] -> [1, count, S, dim]"""
        lines.extend(
            [
                f"{out}_4 = hl.reshape {src} : {t(seq, count * dim)} -> {t(1, seq, count, dim)}",
                f"{out} = hl.transpose {out}_4 {{permutation = array<i64: 0, 2, 1, 3>}} : "
                f"{t(1, seq, count, dim)} -> {t(1, count, seq, dim)}",
            ]
        )

    def rotary(src: str, count: int, out: str) -> None:
        full, half = t(1, count, seq, dim), t(1, count, seq, dim // 2)
        low = f"dim = 3 : i64, start = 0 : i64, end = {dim // 2} : i64, step = 1 : i64"
        high = f"dim = 3 : i64, start = {dim // 2} : i64, end = {dim} : i64, step = 1 : i64"
        lines.extend(
            [
                f"{out}_lo = hl.slice {src} {{{low}}} : {full} -> {half}",
                f"{out}_hi = hl.slice {src} {{{high}}} : {full} -> {half}",
                f"{out}_nhi = hl.neg {out}_hi : {half} -> {half}",
                f"{out}_rot = hl.cat {out}_nhi, {out}_lo {{dim = 3 : i64}} : "
                f"({half}, {half}) -> {full}",
                f"{out}_c = hl.mul {src}, %cos : ({full}, {rot}) -> {full}",
                f"{out}_s = hl.mul {out}_rot, %sin : ({full}, {rot}) -> {full}",
                f"{out} = hl.add {out}_c, {out}_s : ({full}, {full}) -> {full}",
            ]
        )

    def repeat(src: str, out: str) -> None:
        single, grouped = t(1, kv, 1, seq, dim), t(1, kv, group, seq, dim)
        lines.extend(
            [
                f"{out}_5 = hl.reshape {src} : {t(1, kv, seq, dim)} -> {single}",
                f"{out}_e = hl.expand {out}_5 : {single} -> {grouped}",
                f"{out} = hl.reshape {out}_e : {grouped} -> {t(1, heads, seq, dim)}",
            ]
        )

    def linear(src: str, weight: str, rows: int, cols: int, out: str) -> None:
        lines.append(
            f"{out} = hl.linear {src}, {weight} : {t(seq, cols)}, {t(rows, cols)} -> {t(seq, rows)}"
        )

    norm("%x", "%g1", "%h")
    linear("%h", "%wq", heads * dim, hd, "%q2")
    linear("%h", "%wk", kv * dim, hd, "%k2")
    linear("%h", "%wv", kv * dim, hd, "%v2")
    heads_of("%q2", heads, "%q4")
    heads_of("%k2", kv, "%k4")
    heads_of("%v2", kv, "%v4")
    rotary("%q4", heads, "%q")
    rotary("%k4", kv, "%kr")
    repeat("%kr", "%k")
    repeat("%v4", "%v")
    causal = "is_causal, " if seq > 1 else ""
    q4 = t(1, heads, seq, dim)
    lines.extend(
        [
            f"%att = hl.sdpa %q, %k, %v {{{causal}scale = {dim**-0.5} : f64}} : "
            f"{q4}, {q4}, {q4} -> {q4}",
            f"%att_t = hl.transpose %att {{permutation = array<i64: 0, 2, 1, 3>}} : {q4} -> "
            f"{t(1, seq, heads, dim)}",
            f"%att2 = hl.reshape %att_t : {t(1, seq, heads, dim)} -> {t(seq, heads * dim)}",
        ]
    )
    linear("%att2", "%wo", hd, heads * dim, "%o")
    lines.append(f"%r1 = hl.add %x, %o : ({act}, {act}) -> {act}")
    norm("%r1", "%g2", "%m")
    linear("%m", "%wgate", inter, hd, "%gate")
    linear("%m", "%wup", inter, hd, "%up")
    mid = t(seq, inter)
    lines.extend(
        [
            f"%act = hl.silu %gate : {mid} -> {mid}",
            f"%prod = hl.mul %act, %up : ({mid}, {mid}) -> {mid}",
        ]
    )
    linear("%prod", "%wdown", hd, inter, "%down")
    lines.append(f"%r2 = hl.add %r1, %down : ({act}, {act}) -> {act}")
    lines.append(f"func.return %r2 : {act}")
    args = [
        f"%x: {act}",
        f"%cos: {rot}",
        f"%sin: {rot}",
        f"%g1: {t(hd)}",
        f"%wq: {t(heads * dim, hd)}",
        f"%wk: {t(kv * dim, hd)}",
        f"%wv: {t(kv * dim, hd)}",
        f"%wo: {t(hd, heads * dim)}",
        f"%g2: {t(hd)}",
        f"%wgate: {t(inter, hd)}",
        f"%wup: {t(inter, hd)}",
        f"%wdown: {t(hd, inter)}",
    ]
    body = "\n".join("  " + line for line in lines)
    return f"func.func @layer({', '.join(args)}) -> {act} {{\n{body}\n}}\n"


class DecoderLayerCall(nn.Module):
    """`layer(x)` of a LlamaDecoderLayer with fixed rotary embeddings and no mask."""

    def __init__(self, layer: nn.Module, cos: torch.Tensor, sin: torch.Tensor) -> None:
        super().__init__()
        self.layer = layer
        self.cos, self.sin = cos, sin

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.layer(x, position_embeddings=(self.cos, self.sin), attention_mask=None)
        return out[0] if isinstance(out, tuple) else out


def layer_workloads(seqs: list[int], shape: LlamaShape, device: torch.device) -> list[Workload]:
    """One Llama decoder layer of `shape` on [1, S, hidden], in torch and as `llama_layer_hl`."""
    import dataclasses

    model = build_llama(dataclasses.replace(shape, layers=1), device, torch.bfloat16)
    layer = model.model.layers[0]
    with torch.no_grad():  # non-trivial norm weights, so a dropped scale shows
        layer.input_layernorm.weight.uniform_(0.5, 1.5)
        layer.post_attention_layernorm.weight.uniform_(0.5, 1.5)
    attention, mlp = layer.self_attn, layer.mlp
    weights = [
        layer.input_layernorm.weight,
        attention.q_proj.weight,
        attention.k_proj.weight,
        attention.v_proj.weight,
        attention.o_proj.weight,
        layer.post_attention_layernorm.weight,
        mlp.gate_proj.weight,
        mlp.up_proj.weight,
        mlp.down_proj.weight,
    ]
    found = []
    for seq in seqs:
        x = torch.randn(1, seq, shape.hidden, device=device, dtype=torch.bfloat16)
        cos, sin = model.model.rotary_emb(x, torch.arange(seq, device=device)[None])
        direct = [x.view(seq, shape.hidden), cos[:, None], sin[:, None]]
        found.append(
            Workload(
                "layer",
                str(seq),
                DecoderLayerCall(layer, cos, sin),
                (x,),
                hl_text=llama_layer_hl(seq, shape, model.config.rms_norm_eps),
                direct_inputs=direct + [w.detach() for w in weights],
            )
        )
    return found
