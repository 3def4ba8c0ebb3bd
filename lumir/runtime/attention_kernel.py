"""The Triton kernels of lumir's few-query attention (imported lazily: only an attention
launch on CUDA, or the interpreter check, needs Triton). See `lumir.runtime.attention`
for when they run and what they compute.

`attention_split_kernel` runs one program per (batch, key/value head, block of query
rows, split of the keys): the query rows of all the heads that share one key/value head
(grouped-query attention) are one block, so each key and value is read once per split,
not once per query head. With one split it writes the normalised output; with several
it writes each split's normalised partial output and its rows' log-sum-exp, and
`attention_combine_kernel` merges the splits in order. Every sum runs in a fixed order,
so a call's result is the same bits every run. Both kernels wait for the previous
launch before touching memory, so they may be launched with programmatic dependent
launch (`lumir.runtime.pdl`).
"""

from __future__ import annotations

import triton
import triton.language as tl

from lumir.runtime.pdl_kernel import wait_for_previous_launch


@triton.jit
def _row_pointers(base, batch, head, position, dims, stride_b, stride_h, stride_l, stride_d):
    """Pointers to [rows, HEAD_DIM] of a [B, H, L, D] tensor: row r is (head[r],
    position[r]) of `batch`."""
    return (
        base
        + batch * stride_b
        + head[:, None] * stride_h
        + position[:, None] * stride_l
        + dims[None, :] * stride_d
    )


@triton.jit
def attention_split_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    mask_ptr,
    out_ptr,
    part_ptr,
    lse_ptr,
    query_len,
    key_len,
    groups,
    keys_per_split,
    scale,
    stride_qb,
    stride_qh,
    stride_ql,
    stride_qd,
    stride_kb,
    stride_kh,
    stride_kl,
    stride_kd,
    stride_vb,
    stride_vh,
    stride_vl,
    stride_vd,
    stride_mb,
    stride_mh,
    stride_ml,
    stride_mk,
    stride_ob,
    stride_oh,
    stride_ol,
    stride_od,
    kv_heads,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HAS_MASK: tl.constexpr,
    MASK_IS_BOOL: tl.constexpr,
    IS_CAUSAL: tl.constexpr,
    SPLITS: tl.constexpr,
    PDL: tl.constexpr = False,
):
    """One block of query rows of one key/value head against one split of the keys.

    Rows are (head in the group, query position) flattened head-major. Scores and the
    running softmax are f32; probabilities are rounded to the value's type for the
    product with V (as flash attention does), accumulated in f32.
    """
    wait_for_previous_launch(PDL)
    batch_head = tl.program_id(0)
    batch = batch_head // kv_heads
    kv_head = batch_head % kv_heads
    row_block = tl.program_id(1)
    split = tl.program_id(2)

    rows = row_block * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < groups * query_len
    head = kv_head * groups + rows // query_len
    position = rows % query_len
    dims = tl.arange(0, HEAD_DIM)

    q_rows = _row_pointers(
        q_ptr, batch, head, position, dims, stride_qb, stride_qh, stride_ql, stride_qd
    )
    q = tl.load(q_rows, mask=row_ok[:, None], other=0.0)
    k_base = k_ptr + batch * stride_kb + kv_head * stride_kh
    v_base = v_ptr + batch * stride_vb + kv_head * stride_vh

    running_max = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    running_sum = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    first_key = split * keys_per_split
    last_key = tl.minimum(first_key + keys_per_split, key_len)
    for start in range(first_key, last_key, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        key_ok = keys < last_key
        k = tl.load(
            k_base + keys[None, :] * stride_kl + dims[:, None] * stride_kd,
            mask=key_ok[None, :],
            other=0.0,
        )
        scores = tl.dot(q, k) * scale
        valid = row_ok[:, None] & key_ok[None, :]
        if IS_CAUSAL:
            valid = valid & (keys[None, :] <= position[:, None])
        if HAS_MASK:
            mask = tl.load(
                mask_ptr
                + batch * stride_mb
                + head[:, None] * stride_mh
                + position[:, None] * stride_ml
                + keys[None, :] * stride_mk,
                mask=valid,
                other=0,
            )
            if MASK_IS_BOOL:
                valid = valid & (mask != 0)
            else:
                scores = scores + mask.to(tl.float32)
        scores = tl.where(valid, scores, float("-inf"))
        new_max = tl.maximum(running_max, tl.max(scores, 1))
        # A row with no valid key yet keeps a max of -inf; shift it by 0 instead, so
        # exp gives 0 for its scores rather than NaN.
        shift = tl.where(new_max == float("-inf"), 0.0, new_max)
        probabilities = tl.exp(scores - shift[:, None])
        rescale = tl.exp(running_max - shift)
        running_sum = running_sum * rescale + tl.sum(probabilities, 1)
        v = tl.load(
            v_base + keys[:, None] * stride_vl + dims[None, :] * stride_vd,
            mask=key_ok[:, None],
            other=0.0,
        )
        acc = acc * rescale[:, None] + tl.dot(probabilities.to(v.dtype), v)
        running_max = new_max

    # A row that saw no valid key (all masked) is 0, as torch's fused kernels give.
    nonzero = running_sum > 0
    output = acc / tl.where(nonzero, running_sum, 1.0)[:, None]
    if SPLITS == 1:
        out_rows = _row_pointers(
            out_ptr, batch, head, position, dims, stride_ob, stride_oh, stride_ol, stride_od
        )
        tl.store(out_rows, output.to(out_ptr.dtype.element_ty), mask=row_ok[:, None])
    else:
        # Partials [splits, batch * kv_heads, rows, HEAD_DIM] and lse [splits, ..., rows].
        row_count = groups * query_len
        slot = (split * tl.num_programs(0) + batch_head) * row_count + rows
        tl.store(part_ptr + slot[:, None] * HEAD_DIM + dims[None, :], output, mask=row_ok[:, None])
        total = tl.where(nonzero, running_sum, 1.0)
        lse = tl.where(nonzero, running_max + tl.log(total), float("-inf"))
        tl.store(lse_ptr + slot, lse, mask=row_ok)


@triton.jit
def attention_combine_kernel(
    part_ptr,
    lse_ptr,
    out_ptr,
    query_len,
    groups,
    stride_ob,
    stride_oh,
    stride_ol,
    stride_od,
    kv_heads,
    batch_heads,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    SPLITS: tl.constexpr,
    PDL: tl.constexpr = False,
):
    """Merge one block of rows' split partials, split 0 first: each partial weighted by
    exp(its lse - the largest lse), the sum divided by the sum of the weights."""
    wait_for_previous_launch(PDL)
    batch_head = tl.program_id(0)
    batch = batch_head // kv_heads
    kv_head = batch_head % kv_heads
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_count = groups * query_len
    row_ok = rows < row_count
    dims = tl.arange(0, HEAD_DIM)

    largest = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    for split in range(SPLITS):
        slot = (split * batch_heads + batch_head) * row_count + rows
        lse = tl.load(lse_ptr + slot, mask=row_ok, other=float("-inf"))
        largest = tl.maximum(largest, lse)
    shift = tl.where(largest == float("-inf"), 0.0, largest)
    total = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    for split in range(SPLITS):
        slot = (split * batch_heads + batch_head) * row_count + rows
        lse = tl.load(lse_ptr + slot, mask=row_ok, other=float("-inf"))
        weight = tl.exp(lse - shift)
        part = tl.load(part_ptr + slot[:, None] * HEAD_DIM + dims[None, :], mask=row_ok[:, None])
        acc += part * weight[:, None]
        total += weight
    output = acc / tl.where(total > 0, total, 1.0)[:, None]
    head = kv_head * groups + rows // query_len
    position = rows % query_len
    out_rows = _row_pointers(
        out_ptr, batch, head, position, dims, stride_ob, stride_oh, stride_ol, stride_od
    )
    tl.store(out_rows, output.to(out_ptr.dtype.element_ty), mask=row_ok[:, None])
