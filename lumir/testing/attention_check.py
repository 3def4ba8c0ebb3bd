"""Check lumir's attention kernels against torch, on CPU, under TRITON_INTERPRET=1.

On CUDA an `hl.sdpa` runs as one of `lumir.runtime.attention`'s Triton kernels (the
few-query kernel for a few query rows, the prefill kernel for a prompt); the CPU
executor runs torch's SDPA, so without this check CI would never run them. Triton's
interpreter runs them on CPU tensors (f16: the interpreter's bf16 arithmetic is not to
be trusted); the variable must be set before triton is first imported, so the check
runs in a child process: `python -m lumir.testing.attention_check` runs every case of
`CASES` (or, with `--random N --seed S`, N cases drawn from the kernels' whole domain)
and prints one JSON line per case (its name, the largest absolute difference from
torch's f32 SDPA over the same f16 values, whether that is within tolerance, whether a
second run gave the same bits, and whether the other form is within tolerance too: one
split against many for the few-query kernel, 128 query rows a program against 64 for
the prefill kernel). The exit status is 0 when every case passes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from lumir.runtime.attention import MAX_QUERY_ROWS
from lumir.testing.interpreter_child import run_check

TOLERANCE = 2e-3
"""Largest |kernel - f32 reference| allowed: the output is an average of f16 values
(about 1 in size here), the probabilities rounded to f16 for the product with V
(relative 2^-11 each), and the result rounded once to f16."""


@dataclass(frozen=True)
class Case:
    """One attention call: q [batch, heads, rows, dim] over k, v [batch, kv_heads, keys,
    dim]; `mask` is None, "bool" ([batch, 1, rows, keys], one query row with every key
    masked), "additive" ([1, 1, rows, keys] of 0 / -inf in f16) or "broadcast-bool"
    ([rows, keys] only); `strided` reads q, k, v and writes out through transposed views;
    `prefill` runs the prefill kernel instead of the few-query kernel."""

    name: str
    batch: int
    heads: int
    kv_heads: int
    rows: int
    keys: int
    dim: int
    mask: str | None = None
    causal: bool = False
    strided: bool = False
    scale: float | None = None
    prefill: bool = False


CASES = [
    Case("decode-gqa-one-split", 1, 8, 2, 1, 100, 64),
    Case("decode-gqa-splits", 1, 8, 2, 1, 700, 32, mask="bool"),
    Case("decode-mha", 2, 4, 4, 1, 129, 16),
    Case("prefill-causal", 1, 4, 2, 6, 6, 32, causal=True),
    Case("rows-over-keys-causal", 1, 4, 1, 16, 40, 16, causal=True),
    Case("additive-mask", 2, 8, 2, 3, 300, 64, mask="additive"),
    Case("broadcast-mask-scale", 1, 6, 3, 2, 65, 16, mask="broadcast-bool", scale=0.3),
    Case("strided-views", 2, 8, 2, 5, 257, 32, mask="bool", strided=True),
    Case("prefill-causal-gqa", 1, 4, 2, 150, 150, 32, causal=True, strided=True, prefill=True),
    Case("prefill-rows-over-keys", 1, 2, 1, 70, 40, 16, causal=True, prefill=True),
    Case("prefill-bool-mask", 2, 4, 4, 33, 97, 64, mask="bool", prefill=True),
    Case("prefill-additive", 1, 4, 1, 20, 130, 16, mask="additive", scale=0.3, prefill=True),
    Case("prefill-one-row", 1, 2, 2, 1, 64, 128, prefill=True),
]


def _operands(case: Case, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    def tensor(heads: int, length: int) -> torch.Tensor:
        values = torch.randn(case.batch, length, heads, case.dim, generator=generator)
        values = values.to(torch.float16)
        if case.strided:  # [B, L, H, D] storage read as [B, H, L, D], as a Llama layer does
            return values.transpose(1, 2)
        return values.transpose(1, 2).contiguous()

    q = tensor(case.heads, case.rows)
    k, v = tensor(case.kv_heads, case.keys), tensor(case.kv_heads, case.keys)
    return q, k, v


def _mask(case: Case, generator: torch.Generator) -> torch.Tensor | None:
    if case.mask is None:
        return None
    if case.mask == "broadcast-bool":
        return torch.rand(case.rows, case.keys, generator=generator) > 0.2
    keep = torch.rand(case.batch, 1, case.rows, case.keys, generator=generator) > 0.3
    if case.mask == "additive":
        return torch.where(keep[:1], 0.0, float("-inf")).to(torch.float16)
    if case.rows > 1:
        keep[0, 0, case.rows - 1] = False  # a row with no key: 0, as torch's fused kernels
    return keep


def run_case(case: Case, seed: int = 0) -> dict[str, object]:
    """The kernel on `case`'s seeded operands against torch's f32 SDPA."""
    from lumir.runtime import attention

    generator = torch.Generator().manual_seed(seed)
    q, k, v = _operands(case, generator)
    mask = _mask(case, generator)
    if case.prefill:
        problems = attention.prefill_attention_problems(q, k, v, mask, enable_gqa=True)
    else:
        problems = attention.few_query_attention_problems(q, k, v, mask, enable_gqa=True)
    if problems:
        return {"case": case.name, "ok": False, "problems": problems}
    exact = F.scaled_dot_product_attention(
        q.float(),
        k.float(),
        v.float(),
        attn_mask=mask if mask is None or mask.dtype == torch.bool else mask.float(),
        is_causal=case.causal,
        scale=case.scale,
        enable_gqa=True,
    ).nan_to_num(0.0)

    def run(other_form: bool = False) -> torch.Tensor:
        out = torch.full((case.batch, case.rows, case.heads, case.dim), float("nan"))
        out = out.to(torch.float16).transpose(1, 2)  # a strided destination
        if not case.strided:
            out = out.contiguous()
        kwargs = {"is_causal": case.causal, "scale": case.scale}
        if case.prefill:
            config = attention.PrefillConfig(block_m=128 if other_form else 64)
            return attention.prefill_attention(out, q, k, v, mask, config=config, **kwargs)
        split = 1 << 20 if other_form else 128
        return attention.few_query_attention(out, q, k, v, mask, keys_per_split=split, **kwargs)

    first = run()
    error = (first.float() - exact).abs().max().item()
    other = (run(other_form=True).float() - exact).abs().max().item()
    return {
        "case": case.name,
        "max_abs_diff": error,
        "ok": error <= TOLERANCE and other <= TOLERANCE,
        "same_bits_again": torch.equal(first, run()),
        "other_form_max_abs_diff": other,
    }


def random_cases(count: int, seed: int) -> list[Case]:
    """`count` cases drawn from the kernels' whole domain (a seeded generator): either
    kernel, 1-16 query rows (1-200 for the prefill kernel), 1-600 keys (as many as rows
    for a causal call), 1-4 query heads per key/value head, every head size, any mask
    kind, dense or strided."""
    draw = random.Random(seed)
    cases = []
    for index in range(count):
        kv_heads, groups = draw.randint(1, 3), draw.randint(1, 4)
        prefill = draw.random() < 0.5
        rows = draw.randint(1, 200 if prefill else MAX_QUERY_ROWS)
        # Causal calls are a prompt's (as many keys as rows: torch aligns the causal
        # mask top-left, so extra keys would be masked for every row anyway).
        causal = draw.random() < 0.3
        keys = rows if causal else draw.randint(1, 600)
        cases.append(
            Case(
                f"random-{seed}-{index}",
                batch=draw.randint(1, 2),
                heads=kv_heads * groups,
                kv_heads=kv_heads,
                rows=rows,
                keys=keys,
                dim=draw.choice([16, 32, 64, 128]),
                mask=draw.choice([None, "bool", "additive", "broadcast-bool"]),
                causal=causal,
                strided=draw.random() < 0.5,
                scale=draw.choice([None, 0.2]),
                prefill=prefill,
            )
        )
    return cases


def run_in_interpreter(*args: str, timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    """Run this check (with `args`) in a child process with TRITON_INTERPRET=1."""
    return run_check("lumir.testing.attention_check", *args, timeout=timeout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lumir.testing.attention_check")
    parser.add_argument("--random", type=int, default=0, help="random cases instead of CASES")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("attention_check: set TRITON_INTERPRET=1 (no GPU is used)", file=sys.stderr)
        return 2
    failed = False
    for case in random_cases(args.random, args.seed) if args.random else CASES:
        result = run_case(case)
        failed |= not (result["ok"] and result.get("same_bits_again"))
        print(json.dumps(result), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
