"""lumir's attention kernels: an `hl.sdpa` on CUDA as lumir's own Triton kernel, written
straight into its destination buffer.

torch's SDPA returns a fresh tensor, which the launch then copies into its buffer (a
transposing copy when the buffer is a permuted view, as a Llama layer's output
projection reads it); on the H200 a decode step's call is three cuDNN kernels
(attention, a split reduction, a copy). lumir's kernels write the output through the
destination's strides instead, with no copy:

- **few-query** (`few_query_attention`, a decode step or a short prompt): the query rows
  of every head that shares a key/value head form one block, each split of the keys is
  read once for the whole block; two launches (one where the keys fit one split).
- **prefill** (`prefill_attention`, a prompt): one program per block of a head's query
  positions over its keys, skipping what a causal mask hides from the whole block; one
  launch.

The few-query kernel runs where `few_query_attention_problems` finds nothing against it:
on CUDA, f16 or bf16, rank-4 operands, at most `MAX_QUERY_ROWS` query rows over at most
`MAX_KEYS` keys, a power-of-two head size from 16 to 128, and a mask (if any) that is
boolean or additive and broadcasts to the scores. Otherwise the prefill kernel runs
where `prefill_attention_problems` finds nothing (the same operands, any number of
query rows over at most `MAX_PREFILL_KEYS` keys). Everything else runs torch's
`scaled_dot_product_attention` as before, and so does everything with
`LUMIR_ATTENTION=torch` in the environment (`LUMIR_PREFILL_ATTENTION=torch` turns off
the prefill kernel alone). The choice is a function of the operands' shapes and types
only, and every sum runs in a fixed order, so a program gives the same bits on every
run and in every process. Every launch may use programmatic dependent launch
(`lumir.runtime.pdl`).

The result is attention's within the rounding of the type (scores, softmax and sums in
f32; probabilities rounded to the value's type for the product with V, as flash
attention does), not torch's bits: `lumir.testing.attention_check` holds both kernels to
that on the CPU under Triton's interpreter, and to bit-identical results across splits'
merges (or tilings) of the same call. A query row whose every key is masked gives 0, as
torch's fused kernels do.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import torch

from lumir.runtime.pdl import NO_PDL, PdlMode
from lumir.runtime.triton_launch import TritonLaunch

MAX_QUERY_ROWS = 16
"""Query positions up to which the kernel is chosen: a decode step (1) or a short
prompt; longer prompts are torch's flash or cuDNN kernels' ground."""

MAX_KEYS = 2048
"""Key positions up to which the kernel is chosen. On the H200 (`bench/attention_sweep.py
--lumir`, 32 query heads over 8 key/value heads of 64) one query row took 5.0 µs over
512 keys against 7.1 for torch's cuDNN call and its copy into the buffer, 5.8 against
6.8 over 1024, but 10.0 against 8.7 over 4096."""

KEYS_PER_SPLIT = 128
"""Keys one program reads before its partial is merged. Over 512 keys 128 took 5.0 µs
against 5.2 with 64 and 6.1 with 256; over 1024, 5.8 against 7.5 and 6.4."""

BLOCK_N = 64
"""Keys per step of a program's loop."""

MAX_PREFILL_KEYS = 2048
"""Key positions up to which the prefill kernel is chosen. On the H200 (`bench.attention_sweep
--prefill`, bf16, 32 query heads over 8 of 64, causal) it took 4.0 µs over 128 keys
against 7.8 for torch's call and its copy into the buffer, 22.1 against 25.3 over
1024, but 194.9 against 189.3 over 4096."""

MAX_SPLITS = 16
"""The merge reads every split's partial: 32 splits over 4096 keys took 13.0 µs, 16
took 10.0."""


@dataclass(frozen=True)
class AttentionShape:
    """The launch geometry of one few-query attention call."""

    batch: int
    heads: int
    kv_heads: int
    query_len: int
    key_len: int
    head_dim: int

    @property
    def groups(self) -> int:
        return self.heads // self.kv_heads

    @property
    def block_m(self) -> int:
        """Query rows per program: a kv head's rows, padded to tl.dot's 16, at most 64."""
        rows = self.groups * self.query_len
        return max(16, min(64, 1 << (rows - 1).bit_length()))

    def splits(self, keys_per_split: int = KEYS_PER_SPLIT) -> int:
        return max(1, min(MAX_SPLITS, math.ceil(self.key_len / keys_per_split)))


def few_query_attention_problems(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None,
    enable_gqa: bool,
) -> list[str]:
    """Why the few-query kernel does not take this call (empty when it does). The device
    is the caller's to check: the kernel runs on CUDA, and on CPU tensors under Triton's
    interpreter (`lumir.testing.attention_check`)."""
    problems = _operand_problems(query, key, value, mask, enable_gqa)
    if query.dim() == 4 and key.dim() == 4:
        if query.shape[2] > MAX_QUERY_ROWS:
            problems.append(f"{query.shape[2]} query rows, more than {MAX_QUERY_ROWS}")
        if key.shape[2] > MAX_KEYS:
            problems.append(f"{key.shape[2]} keys, more than {MAX_KEYS}")
    return problems


def prefill_attention_problems(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None,
    enable_gqa: bool,
) -> list[str]:
    """Why the prefill kernel does not take this call (empty when it does): it takes
    what the few-query kernel does, at any number of query rows over at most
    `MAX_PREFILL_KEYS` keys. The executor asks the few-query kernel first."""
    problems = _operand_problems(query, key, value, mask, enable_gqa)
    if os.environ.get("LUMIR_PREFILL_ATTENTION") == "torch":
        problems.append("LUMIR_PREFILL_ATTENTION=torch")
    if key.dim() == 4 and key.shape[2] > MAX_PREFILL_KEYS:
        problems.append(f"{key.shape[2]} keys, more than {MAX_PREFILL_KEYS}")
    return problems


def _operand_problems(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None,
    enable_gqa: bool,
) -> list[str]:
    """What both kernels need of the operands, whatever their lengths."""
    problems = []
    if os.environ.get("LUMIR_ATTENTION") == "torch":
        problems.append("LUMIR_ATTENTION=torch")
    operands = (query, key, value)
    if any(t.dim() != 4 for t in operands):
        return [*problems, "operands are not rank 4"]
    if any(t.numel() == 0 for t in operands):
        problems.append("an operand is empty")
    if any(t.dtype != query.dtype for t in operands) or query.dtype not in _TYPES:
        problems.append(f"types {[t.dtype for t in operands]}, not all f16 or all bf16")
    (batch, heads, query_len, head_dim), (kb, kv_heads, key_len, kd) = query.shape, key.shape
    if tuple(value.shape) != (kb, kv_heads, key_len, kd) or (kb, kd) != (batch, head_dim):
        problems.append("key and value shapes do not match the query's")
    if head_dim not in (16, 32, 64, 128):
        problems.append(f"head size {head_dim}, not a power of two from 16 to 128")
    if key_len == 0 or kv_heads == 0 or heads % kv_heads or (heads != kv_heads and not enable_gqa):
        problems.append(f"{heads} query heads over {kv_heads} key/value heads")
    if mask is not None:
        if mask.dtype not in (torch.bool, query.dtype):
            problems.append(f"mask type {mask.dtype}")
        try:
            torch.broadcast_shapes(tuple(mask.shape), (batch, heads, query_len, key_len))
        except RuntimeError:
            problems.append(f"mask shape {tuple(mask.shape)} does not broadcast to the scores")
    return problems


_TYPES = (torch.float16, torch.bfloat16)


def few_query_attention(
    out: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    is_causal: bool = False,
    scale: float | None = None,
    keys_per_split: int = KEYS_PER_SPLIT,
    pdl: PdlMode = NO_PDL,
    warm_up: bool = False,
) -> torch.Tensor:
    """Attention of `query` [B, H, Lq, D] over `key`, `value` [B, Hkv, Lk, D] into `out`
    [B, H, Lq, D] (any strides), as `F.scaled_dot_product_attention` with those
    arguments and `enable_gqa` computes it, both launches made as `pdl` says. The caller
    has checked `few_query_attention_problems`. With `warm_up`, the launches' kernels
    are compiled and nothing is launched (`lumir.runtime.triton_launch`)."""
    from lumir.runtime.attention_kernel import attention_combine_kernel, attention_split_kernel

    batch, heads, query_len, head_dim = query.shape
    shape = AttentionShape(batch, heads, key.shape[1], query_len, key.shape[2], head_dim)
    splits = shape.splits(keys_per_split)
    per_split = math.ceil(math.ceil(shape.key_len / splits) / BLOCK_N) * BLOCK_N
    rows = shape.groups * query_len
    grid = (batch * shape.kv_heads, math.ceil(rows / shape.block_m), splits)
    if mask is not None:
        mask_strides = mask.expand(batch, heads, query_len, shape.key_len).stride()
    else:
        mask = mask_strides = None
    part = lse = out
    if splits > 1:
        slots = splits * batch * shape.kv_heads * rows
        part = torch.empty(slots, head_dim, device=out.device, dtype=torch.float32)
        lse = torch.empty(slots, device=out.device, dtype=torch.float32)
    split = TritonLaunch(
        attention_split_kernel,
        grid,
        (
            query,
            key,
            value,
            mask if mask is not None else query,
            out,
            part,
            lse,
            query_len,
            shape.key_len,
            shape.groups,
            per_split,
            scale if scale is not None else 1.0 / math.sqrt(head_dim),
            *query.stride(),
            *key.stride(),
            *value.stride(),
            *(mask_strides or (0, 0, 0, 0)),
            *out.stride(),
            shape.kv_heads,
        ),
        {
            "HEAD_DIM": head_dim,
            "BLOCK_M": shape.block_m,
            "BLOCK_N": BLOCK_N,
            "HAS_MASK": mask is not None,
            "MASK_IS_BOOL": mask is not None and mask.dtype == torch.bool,
            "IS_CAUSAL": is_causal,
            "SPLITS": splits,
            **pdl.kernel_options(),
        },
    )
    launches = [split]
    if splits > 1:
        combine = TritonLaunch(
            attention_combine_kernel,
            (batch * shape.kv_heads, grid[1]),
            (
                part,
                lse,
                out,
                query_len,
                shape.groups,
                *out.stride(),
                shape.kv_heads,
                batch * shape.kv_heads,
            ),
            {
                "HEAD_DIM": head_dim,
                "BLOCK_M": shape.block_m,
                "SPLITS": splits,
                **pdl.kernel_options(),
            },
        )
        launches.append(combine)
    for launch in launches:
        if warm_up:
            launch.warm_up()
        else:
            launch()
    return out


@dataclass(frozen=True)
class PrefillConfig:
    """The prefill kernel's tiling: query rows per program, keys per step, warps, stages."""

    block_m: int = 64
    block_n: int = 64
    num_warps: int = 4
    num_stages: int = 3


def prefill_config(head_dim: int) -> PrefillConfig:
    """The tiling a prefill call runs with, a function of the head size only.

    64 query rows and 64 keys a step with 4 warps was the fastest of six tilings at
    every measured prompt of head size 64 (`bench.attention_sweep --prefill`, H200:
    over 1024 keys 22.1 µs against 24.9-32.1 for 128-row tilings); at head size 128
    two pipeline stages instead of three (58.4 against 78.5 µs with a mask, the same
    causal)."""
    return PrefillConfig(num_stages=2 if head_dim > 64 else 3)


def prefill_attention(
    out: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    is_causal: bool = False,
    scale: float | None = None,
    config: PrefillConfig | None = None,
    pdl: PdlMode = NO_PDL,
    warm_up: bool = False,
) -> torch.Tensor:
    """Attention of `query` [B, H, Lq, D] over `key`, `value` [B, Hkv, Lk, D] into `out`
    [B, H, Lq, D] (any strides) in one launch, as `F.scaled_dot_product_attention` with
    those arguments and `enable_gqa` computes it. The caller has checked
    `prefill_attention_problems`. With `warm_up`, the kernel is compiled and nothing is
    launched."""
    from lumir.runtime.attention_kernel import attention_prefill_kernel

    batch, heads, query_len, head_dim = query.shape
    config = config or prefill_config(head_dim)
    kv_heads, key_len = key.shape[1], key.shape[2]
    if mask is not None:
        mask_strides = mask.expand(batch, heads, query_len, key_len).stride()
    else:
        mask_strides = (0, 0, 0, 0)
    launch = TritonLaunch(
        attention_prefill_kernel,
        (math.ceil(query_len / config.block_m), batch * heads),
        (
            query,
            key,
            value,
            mask if mask is not None else query,
            out,
            query_len,
            key_len,
            heads,
            heads // kv_heads,
            scale if scale is not None else 1.0 / math.sqrt(head_dim),
            *query.stride(),
            *key.stride(),
            *value.stride(),
            *mask_strides,
            *out.stride(),
        ),
        {
            "HEAD_DIM": head_dim,
            "BLOCK_M": config.block_m,
            "BLOCK_N": config.block_n,
            "HAS_MASK": mask is not None,
            "MASK_IS_BOOL": mask is not None and mask.dtype == torch.bool,
            "IS_CAUSAL": is_causal,
            "num_warps": config.num_warps,
            "num_stages": config.num_stages,
            **pdl.kernel_options(),
        },
    )
    if warm_up:
        launch.warm_up()
    else:
        launch()
    return out
