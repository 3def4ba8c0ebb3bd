"""Grouped-query attention on the GPU: repeated key/value heads against packed query rows.

A Llama-1B layer has 32 query heads over 8 key/value heads. Eager (HF's `repeat_kv`)
and lumir's `hl.sdpa` on CUDA copy each key/value head 4 times so that torch's fused
kernels accept them (with a mask, neither flash nor memory-efficient attention takes
`enable_gqa`). When the mask is the same for every head, the 4 query heads that share
a key/value head can instead be packed as 4x more query rows of that head: q
[B, Hkv*g, S, D] viewed as [B, Hkv, g*S, D] (a view when S = 1), one attention over
the unrepeated keys and values, and the result viewed back. This times, inside CUDA
graphs (as lumir replays them), per call:

- `repeat`: expand + reshape copies of k and v, then SDPA over 32 heads (today's path);
- `packed`: the packed query rows over 8 heads, no copy of k or v;
- `enable_gqa`: torch's own grouped-query flag, with the mask (its math path);

and prints each one's max difference from `repeat`.

With `--backends` it times instead each of torch's fused attention kernels forced alone
(`sdpa_kernel`) on the grouped heads, with the operands dense and as the transposed views
a Llama layer hands over ([B, S, H, D] storage read as [B, H, S, D]), beside torch's own
choice: whether a kernel is faster than the one torch picks, and whether reading the
strided views gives the dense operands' bits (then no copy is needed before it).

With `--lumir` it times lumir's few-query kernel (`lumir.runtime.attention`) at the
shapes it takes, with and without a decode mask, against torch's grouped-query SDPA
copied into a destination buffer (what lumir ran before it), for several key splits,
and prints each one's largest difference from an f32 reference.

With `--prefill` it times lumir's prefill kernel (`lumir.runtime.attention`) at prompt
shapes (the 1B model's 32 heads over 8 of 64, GPT-2-medium's 16 of 64, and 32 over 8 of
128), causal and with a mask, in several tilings, against torch's SDPA copied into the
destination (`[B, S, H, D]` storage, as the layer's output projection reads it: what
lumir runs without the kernel).

    PYTHONPATH=$PWD python3 -m bench.attention_sweep [--repeat 32] [--backends | --lumir |
        --prefill]
"""

from __future__ import annotations

import argparse
import functools

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from bench.timing import graph_time_us

HEADS, KV_HEADS, DIM = 32, 8, 64
CASES = [(1, 1), (1, 512), (1, 1024), (6, 6), (128, 128), (1024, 1024)]
"""(query rows S, key rows): seq 1 forward, decode over 512 / 1024 cache slots, seq 6, 128."""


def _repeat(kv: torch.Tensor, groups: int) -> torch.Tensor:
    b, h, s, d = kv.shape
    return kv[:, :, None].expand(b, h, groups, s, d).reshape(b, h * groups, s, d)


def repeat_attention(q, k, v, mask):
    groups = q.shape[1] // k.shape[1]
    return F.scaled_dot_product_attention(q, _repeat(k, groups), _repeat(v, groups), mask)


def packed_attention(q, k, v, mask):
    b, h, s, d = q.shape
    kv_heads = k.shape[1]
    groups = h // kv_heads
    rows = q.reshape(b, kv_heads, groups * s, d)
    if mask is not None:  # [B or 1, 1, S, L]: the same rows for every query head
        mask = mask.expand(b, 1, s, mask.shape[-1])
        mask = mask[:, :, None].expand(b, 1, groups, s, mask.shape[-1])
        mask = mask.reshape(b, 1, groups * s, mask.shape[-1])
    out = F.scaled_dot_product_attention(rows, k, v, mask)
    return out.reshape(b, h, s, d)


def gqa_attention(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, mask, enable_gqa=True)


VARIANTS = {"repeat": repeat_attention, "packed": packed_attention, "enable_gqa": gqa_attention}


def _mask(s: int, length: int, device) -> torch.Tensor:
    """A causal bool mask of S rows over the last S of `length` positions (a decode
    step's or a prefill's), [1, 1, S, L]."""
    rows = torch.arange(length - s, length, device=device)[:, None]
    cols = torch.arange(length, device=device)[None, :]
    return (cols <= rows)[None, None]


BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
}


def _operands(s: int, length: int, device: torch.device) -> tuple[torch.Tensor, ...]:
    """Random bf16 q [1, HEADS, s, DIM] and k, v [1, KV_HEADS, length, DIM]."""
    q = torch.randn(1, HEADS, s, DIM, device=device, dtype=torch.bfloat16)
    k = torch.randn(1, KV_HEADS, length, DIM, device=device, dtype=torch.bfloat16)
    v = torch.randn(1, KV_HEADS, length, DIM, device=device, dtype=torch.bfloat16)
    return q, k, v


def _strided(t: torch.Tensor) -> torch.Tensor:
    """The same values as `t` [B, H, S, D], stored as [B, S, H, D] (a transposed view)."""
    return t.transpose(1, 2).contiguous().transpose(1, 2)


def backend_sweep(repeat: int, device: torch.device) -> None:
    print("| S | L | causal | kernel | operands | µs per call | bits vs torch's choice |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for s, length in CASES:
        q, k, v = _operands(s, length, device)
        causal = s == length and s > 1
        chosen = torch._fused_sdp_choice(q, k, v, is_causal=causal, enable_gqa=True)
        reference = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        us = graph_time_us(
            functools.partial(
                F.scaled_dot_product_attention, q, k, v, is_causal=causal, enable_gqa=True
            ),
            repeat,
        )
        print(f"| {s} | {length} | {causal} | torch's ({int(chosen)}) | dense | {us:.2f} | |")
        for name, backend in BACKENDS.items():
            layouts = (("dense", (q, k, v)), ("strided", tuple(map(_strided, (q, k, v)))))
            for layout, operands in layouts:

                def call(operands=operands, backend=backend, causal=causal):
                    with sdpa_kernel([backend]):
                        return F.scaled_dot_product_attention(
                            *operands, is_causal=causal, enable_gqa=True
                        )

                try:
                    same = torch.equal(call(), reference)
                    us = graph_time_us(call, repeat)
                    print(f"| {s} | {length} | {causal} | {name} | {layout} | {us:.2f} | {same} |")
                except RuntimeError as error:
                    first = str(error).splitlines()[0][:60]
                    print(f"| {s} | {length} | {causal} | {name} | {layout} | failed: {first} | |")


def lumir_sweep(repeat: int, device: torch.device) -> None:
    from lumir.runtime.attention import MAX_QUERY_ROWS, few_query_attention

    print("| S | L | mask | variant | µs per call | max abs diff vs f32 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s, length in [*CASES, (16, 528), (1, 4096)]:
        if s > MAX_QUERY_ROWS:
            continue
        q, k, v = _operands(s, length, device)
        for masked in (True, False):
            mask = _mask(s, length, device) if masked else None
            causal = not masked and s == length and s > 1
            exact = F.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), mask, is_causal=causal, enable_gqa=True
            )
            out = torch.empty(1, s, HEADS, DIM, device=device, dtype=q.dtype).transpose(1, 2)

            def torch_copied(q=q, k=k, v=v, mask=mask, causal=causal, out=out):
                return out.copy_(
                    F.scaled_dot_product_attention(q, k, v, mask, is_causal=causal, enable_gqa=True)
                )

            variants = {"torch's, copied in": torch_copied}
            for split in (64, 128, 256, 1 << 30):
                variants[f"lumir, {split if split < 1 << 30 else 'all'} keys a split"] = (
                    functools.partial(
                        few_query_attention,
                        out,
                        q,
                        k,
                        v,
                        mask,
                        is_causal=causal,
                        keys_per_split=split,
                    )
                )
            for name, call in variants.items():
                error = (call().float() - exact).abs().max().item()
                us = graph_time_us(call, repeat)
                print(f"| {s} | {length} | {masked} | {name} | {us:.2f} | {error:.4f} |")


PREFILL_SHAPES = [
    # (heads, kv heads, head size, query rows = keys)
    (32, 8, 64, 128),
    (32, 8, 64, 1024),
    (16, 16, 64, 128),
    (16, 16, 64, 1024),
    (32, 8, 128, 1024),
    (32, 8, 64, 4096),
]


def prefill_sweep(repeat: int, device: torch.device) -> None:
    from lumir.runtime.attention import PrefillConfig, prefill_attention, prefill_config

    tilings = [
        PrefillConfig(64, 64, 4, 3),
        PrefillConfig(128, 64, 4, 3),
        PrefillConfig(128, 64, 8, 3),
        PrefillConfig(128, 32, 4, 3),
        PrefillConfig(128, 128, 8, 3),
        PrefillConfig(64, 64, 4, 2),
    ]
    print("| H/Hkv/D | S | mask | variant | µs per call | max abs diff vs f32 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for heads, kv_heads, dim, s in PREFILL_SHAPES:
        q = torch.randn(1, s, heads, dim, device=device, dtype=torch.bfloat16).transpose(1, 2)
        k, v = (
            torch.randn(1, s, kv_heads, dim, device=device, dtype=torch.bfloat16).transpose(1, 2)
            for _ in range(2)
        )
        for masked in (False, True):
            mask = _mask(s, s, device) if masked else None
            causal = not masked
            exact = F.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), mask, is_causal=causal, enable_gqa=True
            )
            out = torch.empty(1, s, heads, dim, device=device, dtype=q.dtype).transpose(1, 2)

            def torch_copied(q=q, k=k, v=v, mask=mask, causal=causal, out=out):
                return out.copy_(
                    F.scaled_dot_product_attention(q, k, v, mask, is_causal=causal, enable_gqa=True)
                )

            variants = {"torch's, copied in": torch_copied}
            chosen = prefill_config(dim)
            for tiling in tilings:
                mark = " (default)" if tiling == chosen else ""
                name = (
                    f"lumir {tiling.block_m}x{tiling.block_n} w{tiling.num_warps} "
                    f"s{tiling.num_stages}{mark}"
                )
                variants[name] = functools.partial(
                    prefill_attention, out, q, k, v, mask, is_causal=causal, config=tiling
                )
            for name, call in variants.items():
                try:
                    error = (call().float() - exact).abs().max().item()
                    us = graph_time_us(call, repeat)
                except Exception as failure:  # a tiling that does not fit: say so, go on
                    print(
                        f"| {heads}/{kv_heads}/{dim} | {s} | {masked} | {name} | failed: "
                        f"{str(failure).splitlines()[0][:60]} | |"
                    )
                    continue
                print(
                    f"| {heads}/{kv_heads}/{dim} | {s} | {masked} | {name} | {us:.2f} | "
                    f"{error:.4f} |"
                )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m bench.attention_sweep")
    parser.add_argument("--repeat", type=int, default=32)
    parser.add_argument("--backends", action="store_true", help="time each fused kernel alone")
    parser.add_argument("--lumir", action="store_true", help="time lumir's few-query kernel")
    parser.add_argument("--prefill", action="store_true", help="time lumir's prefill kernel")
    args = parser.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    if args.backends:
        backend_sweep(args.repeat, device)
        return
    if args.lumir:
        lumir_sweep(args.repeat, device)
        return
    if args.prefill:
        prefill_sweep(args.repeat, device)
        return
    print("| S | L | mask | variant | µs per call | max abs diff vs repeat |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s, length in CASES:
        q, k, v = _operands(s, length, device)
        for masked in (True, False):
            if not masked and s != length and s != 1:
                continue
            mask = _mask(s, length, device) if masked else None
            reference = repeat_attention(q, k, v, mask)
            for name, variant in VARIANTS.items():
                try:
                    out = variant(q, k, v, mask)
                    diff = (out.float() - reference.float()).abs().max().item()
                    us = graph_time_us(functools.partial(variant, q, k, v, mask), args.repeat)
                    print(f"| {s} | {length} | {masked} | {name} | {us:.2f} | {diff:.3g} |")
                except RuntimeError as error:
                    first = str(error).splitlines()[0][:80]
                    print(f"| {s} | {length} | {masked} | {name} | failed: {first} | |")


if __name__ == "__main__":
    main()
