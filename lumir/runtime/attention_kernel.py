"""The Triton kernels of lumir's attention (imported lazily: only an attention launch on
CUDA, or the interpreter check, needs Triton). See `lumir.runtime.attention` for when
they run and what they compute.

`attention_split_kernel` runs one program per (batch, key/value head, block of query
rows, split of the keys): the query rows of all the heads that share one key/value head
(grouped-query attention) are one block, so each key and value is read once per split,
not once per query head. With one split it writes the normalised output; with several
it writes each split's normalised partial output and its rows' log-sum-exp, and
`attention_combine_kernel` merges the splits in order. Every sum runs in a fixed order,
so a call's result is the same bits every run.

`attention_prefill_kernel` is a prompt's attention (many query rows): one program per
(batch, query head, block of query positions) over all of that head's keys, in order,
skipping the keys a causal mask hides from the whole block (flash attention's schedule).

Every kernel waits for the previous launch before touching memory, so each may be
launched with programmatic dependent launch (`lumir.runtime.pdl`).
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


LOG2E = tl.constexpr(1.4426950408889634)
"""log2(e): scores are scaled into base 2 once, so the softmax runs on `exp2`."""


@triton.jit
def _prefill_block(
    acc,
    running_max,
    running_sum,
    q,
    k_base,
    v_base,
    mask_base,
    start,
    positions,
    row_ok,
    key_len,
    dims,
    qk_scale,
    stride_kl,
    stride_kd,
    stride_vl,
    stride_vd,
    stride_ml,
    stride_mk,
    BLOCK_N: tl.constexpr,
    MASKED: tl.constexpr,
    HAS_MASK: tl.constexpr,
    MASK_IS_BOOL: tl.constexpr,
    IS_CAUSAL: tl.constexpr,
):
    """One block of BLOCK_N keys into the running softmax of a block of query rows.

    Unless MASKED, every key of the block is valid for every row (a block before the
    causal diagonal, inside the keys, with no mask), so no key is tested."""
    keys = start + tl.arange(0, BLOCK_N)
    key_ok = keys < key_len
    k_rows = k_base + keys[None, :] * stride_kl + dims[:, None] * stride_kd
    v_rows = v_base + keys[:, None] * stride_vl + dims[None, :] * stride_vd
    k = tl.load(k_rows, mask=key_ok[None, :], other=0.0) if MASKED else tl.load(k_rows)
    scores = tl.dot(q, k) * qk_scale
    if MASKED:
        valid = row_ok[:, None] & key_ok[None, :]
        if IS_CAUSAL:
            valid = valid & (keys[None, :] <= positions[:, None])
        if HAS_MASK:
            mask = tl.load(
                mask_base + positions[:, None] * stride_ml + keys[None, :] * stride_mk,
                mask=valid,
                other=0,
            )
            if MASK_IS_BOOL:
                valid = valid & (mask != 0)
            else:
                scores = scores + mask.to(tl.float32) * LOG2E
        scores = tl.where(valid, scores, float("-inf"))
    new_max = tl.maximum(running_max, tl.max(scores, 1))
    # A row with no valid key yet keeps a max of -inf; shift it by 0 instead, so that
    # exp2 gives 0 for its scores rather than NaN.
    shift = tl.where(new_max == float("-inf"), 0.0, new_max)
    probabilities = tl.math.exp2(scores - shift[:, None])
    rescale = tl.math.exp2(running_max - shift)
    running_sum = running_sum * rescale + tl.sum(probabilities, 1)
    v = tl.load(v_rows, mask=key_ok[:, None], other=0.0) if MASKED else tl.load(v_rows)
    acc = acc * rescale[:, None] + tl.dot(probabilities.to(v.dtype), v)
    return acc, new_max, running_sum


@triton.jit
def attention_prefill_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    mask_ptr,
    out_ptr,
    query_len,
    key_len,
    heads,
    groups,
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
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HAS_MASK: tl.constexpr,
    MASK_IS_BOOL: tl.constexpr,
    IS_CAUSAL: tl.constexpr,
    PDL: tl.constexpr = False,
):
    """BLOCK_M query positions of one query head against all of its keys (a prompt's
    attention), written through the output's strides.

    The row blocks run last first: under a causal mask the last block has the most keys,
    so the longest programs start first. Keys before the block's causal diagonal (all
    valid for every row) are read without a test; the diagonal's blocks and the tail of
    the keys are tested. Scores and the running softmax are f32 (base 2); probabilities
    are rounded to the value's type for the product with V, accumulated in f32.
    """
    wait_for_previous_launch(PDL)
    row_block = tl.num_programs(0) - 1 - tl.program_id(0)
    batch_head = tl.program_id(1)
    batch = (batch_head // heads).to(tl.int64)
    head = (batch_head % heads).to(tl.int64)
    kv_head = head // groups

    positions = row_block * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = positions < query_len
    dims = tl.arange(0, HEAD_DIM)
    q_base = q_ptr + batch * stride_qb + head * stride_qh
    q = tl.load(
        q_base + positions[:, None] * stride_ql + dims[None, :] * stride_qd,
        mask=row_ok[:, None],
        other=0.0,
    )
    k_base = k_ptr + batch * stride_kb + kv_head * stride_kh
    v_base = v_ptr + batch * stride_vb + kv_head * stride_vh
    mask_base = mask_ptr + batch * stride_mb + head * stride_mh
    qk_scale = scale * LOG2E

    running_max = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    running_sum = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    end = key_len
    if IS_CAUSAL:
        end = tl.minimum(key_len, (row_block + 1) * BLOCK_M)
    untested = 0
    if not HAS_MASK:
        untested = (key_len // BLOCK_N) * BLOCK_N
        if IS_CAUSAL:
            untested = tl.minimum(untested, row_block * BLOCK_M)
    for start in range(0, untested, BLOCK_N):
        acc, running_max, running_sum = _prefill_block(
            acc, running_max, running_sum, q, k_base, v_base, mask_base, start, positions,
            row_ok, key_len, dims, qk_scale, stride_kl, stride_kd, stride_vl, stride_vd,
            stride_ml, stride_mk, BLOCK_N, False, HAS_MASK, MASK_IS_BOOL, IS_CAUSAL,
        )  # fmt: skip
    for start in range(untested, end, BLOCK_N):
        acc, running_max, running_sum = _prefill_block(
            acc, running_max, running_sum, q, k_base, v_base, mask_base, start, positions,
            row_ok, key_len, dims, qk_scale, stride_kl, stride_kd, stride_vl, stride_vd,
            stride_ml, stride_mk, BLOCK_N, True, HAS_MASK, MASK_IS_BOOL, IS_CAUSAL,
        )  # fmt: skip

    # A row that saw no valid key (all masked) is 0, as torch's fused kernels give.
    output = acc / tl.where(running_sum > 0, running_sum, 1.0)[:, None]
    out_rows = (
        out_ptr
        + batch * stride_ob
        + head * stride_oh
        + positions[:, None] * stride_ol
        + dims[None, :] * stride_od
    )
    tl.store(out_rows, output.to(out_ptr.dtype.element_ty), mask=row_ok[:, None])
