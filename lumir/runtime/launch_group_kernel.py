"""The Triton kernels of grouped launches (imported lazily: only a `cublaslt_rt.launch_group`
on CUDA, or the interpreter check, needs Triton). See `lumir.runtime.launch_group`.

Both kernels take one tuple entry per member (a pointer or a scalar each) and hand
member i the programs [starts[i], ends[i]); a program finds its member by comparing its
id with them, as the grouped GEMV does. Every element is written by one program, in one
order, so the result does not depend on scheduling. Under programmatic dependent
launch (`PDL`, `lumir.runtime.pdl`) a program waits for the previous kernel first.
"""

from __future__ import annotations

import triton
import triton.language as tl

from lumir.runtime.pdl_kernel import wait_for_previous_launch


@triton.jit
def _index_copy_block(
    index_ptr,
    count,
    out_ptr,
    source_ptr,
    size,
    inner,
    total,
    block,
    BLOCK: tl.constexpr,
):
    """out[o, index[j], i] = source[o, j, i] for the BLOCK (o, i) pairs of block `block`,
    for j = 0 .. count - 1 in order.

    `out` is [total / inner, size, inner] and `source` [total / inner, count, inner]
    (the cache and the new slices around the copied dim). One lane writes every j of
    its (o, i), one after the other, so where the index repeats a position the last
    slice stays, as in torch's sequential CPU loop. A position outside [0, size) is
    not written (torch's own launch would stop on a device-side assert).
    """
    pairs = block * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ok = pairs < total
    outer = pairs // inner
    within = pairs % inner
    for j in range(count):
        # every lane reads the position (one cached address): a vector, so the masks
        # below stay vectors of booleans (the interpreter turns a scalar's into integers)
        position = tl.load(index_ptr + j + 0 * pairs)
        value = tl.load(source_ptr + (outer * count + j) * inner + within, mask=ok)
        inside = ok & (position >= 0) & (position < size)
        tl.store(out_ptr + (outer * size + position) * inner + within, value, mask=inside)


@triton.jit
def grouped_index_copy_kernel(
    index_ptr,
    count,
    out_ptrs,
    source_ptrs,
    sizes,
    inners,
    totals,
    starts,
    ends,
    MEMBERS: tl.constexpr,
    BLOCK: tl.constexpr,
    PDL: tl.constexpr = False,
):
    """MEMBERS in-place `index_copy_`s along one dim, reading one index of `count` rows."""
    wait_for_previous_launch(PDL)
    pid = tl.program_id(0)
    for i in tl.static_range(MEMBERS):
        if (pid >= starts[i]) & (pid < ends[i]):
            _index_copy_block(
                index_ptr,
                count,
                out_ptrs[i],
                source_ptrs[i],
                sizes[i],
                inners[i],
                totals[i],
                pid - starts[i],
                BLOCK,
            )


@triton.jit
def grouped_add_kernel(
    out_ptrs,
    lhs_ptrs,
    rhs_ptrs,
    counts,
    lhs_steps,
    rhs_steps,
    starts,
    ends,
    MEMBERS: tl.constexpr,
    BLOCK: tl.constexpr,
    PDL: tl.constexpr = False,
):
    """MEMBERS integer adds: out[e] = lhs[e * lhs_step] + rhs[e * rhs_step] (a step of 0
    reads a one-element input for every e). Integer sums wrap, as torch's do."""
    wait_for_previous_launch(PDL)
    pid = tl.program_id(0)
    for i in tl.static_range(MEMBERS):
        if (pid >= starts[i]) & (pid < ends[i]):
            elements = (pid - starts[i]) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
            ok = elements < counts[i]
            lhs = tl.load(lhs_ptrs[i] + elements * lhs_steps[i], mask=ok)
            rhs = tl.load(rhs_ptrs[i] + elements * rhs_steps[i], mask=ok)
            tl.store(out_ptrs[i] + elements, lhs + rhs, mask=ok)
