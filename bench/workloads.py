"""The benchmark's workloads: the residual-chain module and the Llama-3.2-1B-shaped model.

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


def _decode_workload(
    model: nn.Module, shape: LlamaShape, device: torch.device, generator: torch.Generator
) -> Workload:
    """One decode step at position DECODE_CACHE over a StaticCache prefilled eagerly."""
    from transformers import StaticCache

    cache = StaticCache(config=model.config, max_cache_len=DECODE_CACHE + 1)
    prompt = torch.randint(0, shape.vocab, (1, DECODE_CACHE), generator=generator).to(device)
    with torch.no_grad():
        model(
            prompt,
            past_key_values=cache,
            cache_position=torch.arange(DECODE_CACHE, device=device),
            use_cache=True,
        )
    token = torch.randint(0, shape.vocab, (1, 1), generator=generator).to(device)
    position = torch.tensor([DECODE_CACHE], device=device)
    kwargs = {"past_key_values": cache, "cache_position": position, "use_cache": True}
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
