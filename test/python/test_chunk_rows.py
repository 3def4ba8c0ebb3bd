"""chunk-rows: a row-local GEMM group run in row chunks computes the same bytes, in less memory.

Random MLP-shaped programs (any batch and sequence, gated or not, an activation, tanh
GELU among them, which becomes gate's GEMM epilogue, an optional weight vector and
residual, f32 or a half type) go through lumir-pipeline
with chunk-rows at a random `max_bytes` and without it, and run on the CPU executor:
the outputs must be byte-identical, the chunked program's arena no larger, and no chunk
may hold more than `max_bytes` of buffers of its own. Groups over `max_bytes` must run
in chunks (the lit tests in test/lit/chunk-rows/ pin the IR itself); the backend tests
run a tiny Llama both ways.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.func import FuncOp

from lumir.context import lumir_context
from lumir.dialects.cublaslt_rt import AllocOp, buffer_bytes
from lumir.parsing import LocatedParser
from lumir.passes.pipeline import LumirPipelinePass
from lumir.runtime import load
from lumir.testing.processes import lumir_opt_outputs

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


@st.composite
def mlps(draw):
    """(hl text, input shapes, dtype)."""
    batch = draw(st.integers(1, 3))
    seq = draw(st.integers(1, 24))
    hidden = draw(st.sampled_from([16, 24, 32]))
    inter = draw(st.sampled_from([32, 40, 64]))
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    gated = draw(st.booleans())
    act = draw(st.sampled_from(["hl.silu", "hl.sigmoid", "hl.relu", "hl.tanh", "gelu"]))
    scaled = draw(st.booleans())
    residual = draw(st.booleans())
    x = f"tensor<{batch}x{seq}x{hidden}x{dtype}>"
    mid = f"tensor<{batch}x{seq}x{inter}x{dtype}>"
    w_in, w_out = f"tensor<{inter}x{hidden}x{dtype}>", f"tensor<{hidden}x{inter}x{dtype}>"
    vec = f"tensor<{inter}x{dtype}>"
    lines = [
        f"%gate = hl.linear %x, %wg : {x}, {w_in} -> {mid}",
        # tanh GELU becomes gate's GEMM epilogue, leaving `gate * up` a one-op launch
        f'%act = hl.gelu %gate {{approximate = "tanh"}} : {mid} -> {mid}'
        if act == "gelu"
        else f"%act = {act} %gate : {mid} -> {mid}",
    ]
    h = "%act"
    if gated:
        lines.append(f"%up = hl.linear %x, %wu : {x}, {w_in} -> {mid}")
        lines.append(f"%h = hl.mul %act, %up : ({mid}, {mid}) -> {mid}")
        h = "%h"
    if scaled:
        lines.append(f"%hs = hl.mul {h}, %v : ({mid}, {vec}) -> {mid}")
        h = "%hs"
    lines.append(f"%down = hl.linear {h}, %wd : {mid}, {w_out} -> {x}")
    out = "%down"
    if residual:
        lines.append(f"%out = hl.add %down, %x : ({x}, {x}) -> {x}")
        out = "%out"
    args = f"%x: {x}, %wg: {w_in}, %wu: {w_in}, %wd: {w_out}, %v: {vec}"
    body = "\n  ".join(lines)
    text = f"func.func @mlp({args}) -> {x} {{\n  {body}\n  func.return {out} : {x}\n}}\n"
    shapes = [(batch, seq, hidden), (inter, hidden), (inter, hidden), (hidden, inter), (inter,)]
    return text, shapes, DTYPES[dtype]


def compiled(text: str, chunk_bytes: int, stop_after: str | None = None):
    module = LocatedParser(lumir_context(), text, "<mlp>").parse_module()
    LumirPipelinePass(chunk_bytes=chunk_bytes, stop_after=stop_after).apply(lumir_context(), module)
    return module


def _func(module) -> FuncOp:
    return next(op for op in module.ops if isinstance(op, FuncOp))


def _arena_bytes(module) -> int:
    return sum(
        buffer_bytes(op.memref.type)  # type: ignore[arg-type]
        for op in _func(module).body.block.ops
        if isinstance(op, AllocOp) and op.memref.name_hint == "arena"
    )


def _chunk_temporaries(module) -> list[int]:
    """Bytes of each chunk's own buffers (one per chunked call that is not written
    straight into the output), before the buffer plan places them."""
    return [
        buffer_bytes(op.memref.type)  # type: ignore[arg-type]
        for op in _func(module).body.block.ops
        if isinstance(op, AllocOp) and "_rows" in (op.memref.name_hint or "")
    ]


def _bytes(tensor: torch.Tensor) -> bytes:
    return tensor.contiguous().view(torch.uint8).numpy().tobytes()


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(mlps(), st.integers(64, 8192), st.integers(0, 2**31 - 1))
def test_chunked_group_gives_the_same_bytes_in_less_memory(case, max_bytes, seed):
    text, shapes, dtype = case
    chunked, whole = compiled(text, max_bytes), compiled(text, 0)
    generator = torch.Generator().manual_seed(seed)
    inputs = [torch.randn(shape, generator=generator).to(dtype) for shape in shapes]
    assert _bytes(load(chunked)(*inputs)[0]) == _bytes(load(whole)(*inputs)[0])
    assert _arena_bytes(chunked) <= _arena_bytes(whole)
    # Each chunk holds at most max_bytes of its own buffers (one up-projection block).
    assert all(
        size <= max_bytes for size in _chunk_temporaries(compiled(text, max_bytes, "chunk-rows"))
    )


@pytest.mark.parametrize("act", ["hl.silu", "gelu"])
@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize(("batch", "seq"), [(1, 2), (1, 37), (3, 5), (2, 64)])
def test_a_group_over_max_bytes_runs_in_chunks(act, dtype, batch, seq):
    """Row widths of 256 bytes or more, so any row may start a chunk: with max_bytes at
    half the up projection's bytes, the group runs in two or more chunks, whether the
    activation is in the fused kernel (SiLU) or gate's GEMM epilogue (tanh GELU, which
    leaves a one-op product)."""
    x, mid = f"tensor<{batch}x{seq}x128x{dtype}>", f"tensor<{batch}x{seq}x256x{dtype}>"
    w_in, w_out = f"tensor<256x128x{dtype}>", f"tensor<128x256x{dtype}>"
    text = (
        f"func.func @mlp(%x: {x}, %wg: {w_in}, %wu: {w_in}, %wd: {w_out}) -> {x} {{\n"
        f"  %gate = hl.linear %x, %wg : {x}, {w_in} -> {mid}\n"
        f"  %up = hl.linear %x, %wu : {x}, {w_in} -> {mid}\n"
        + (
            f'  %act = hl.gelu %gate {{approximate = "tanh"}} : {mid} -> {mid}\n'
            if act == "gelu"
            else f"  %act = hl.silu %gate : {mid} -> {mid}\n"
        )
        + f"  %h = hl.mul %act, %up : ({mid}, {mid}) -> {mid}\n"
        f"  %down = hl.linear %h, %wd : {mid}, {w_out} -> {x}\n"
        f"  func.return %down : {x}\n}}\n"
    )
    width = 4 if dtype == "f32" else 2
    max_bytes = batch * seq * 256 * width // 2
    chunked, whole = compiled(text, max_bytes), compiled(text, 0)
    launches = str(chunked).count("cublaslt_rt.fused_launch")
    assert launches >= 2
    temporaries = _chunk_temporaries(compiled(text, max_bytes, "chunk-rows"))
    assert len(temporaries) == launches and max(temporaries) <= max_bytes
    assert _arena_bytes(chunked) < _arena_bytes(whole)
    generator = torch.Generator().manual_seed(batch * seq)
    shapes = [(batch, seq, 128), (256, 128), (256, 128), (128, 256)]
    inputs = [torch.randn(s, generator=generator).to(DTYPES[dtype]) for s in shapes]
    assert _bytes(load(chunked)(*inputs)[0]) == _bytes(load(whole)(*inputs)[0])


_X, _MID = "tensor<1x512x64xbf16>", "tensor<1x512x256xbf16>"
_W_IN, _W_OUT = "tensor<256x64xbf16>", "tensor<64x256xbf16>"
LONG_MLP = (
    f"func.func @mlp(%x: {_X}, %wg: {_W_IN}, %wu: {_W_IN}, %wd: {_W_OUT}) -> {_X} {{\n"
    f"  %gate = hl.linear %x, %wg : {_X}, {_W_IN} -> {_MID}\n"
    f"  %up = hl.linear %x, %wu : {_X}, {_W_IN} -> {_MID}\n"
    f"  %act = hl.silu %gate : {_MID} -> {_MID}\n"
    f"  %h = hl.mul %act, %up : ({_MID}, {_MID}) -> {_MID}\n"
    f"  %down = hl.linear %h, %wd : {_MID}, {_W_OUT} -> {_X}\n"
    f"  %out = hl.add %down, %x : ({_X}, {_X}) -> {_X}\n"
    f"  func.return %out : {_X}\n}}\n"
)


def test_a_long_gated_mlp_runs_in_chunks_of_at_most_max_bytes():
    """512 rows of a 256-wide bf16 up projection (256 KiB) under 64 KiB: gate's call
    whole into the output, then four chunks of 128 rows of up and the launch, each with a
    64 KiB temporary, and an arena 192 KiB smaller."""
    chunked, whole = compiled(LONG_MLP, 64 * 1024), compiled(LONG_MLP, 0)
    printed = str(chunked)
    assert printed.count("cublaslt_rt.fused_launch") == 4
    assert "@plan1_rows128" in printed and "_rows" not in printed.split("@plan1_rows128")[0]
    assert _arena_bytes(whole) - _arena_bytes(chunked) == 192 * 1024
    generator = torch.Generator().manual_seed(0)
    shapes = [(1, 512, 64), (256, 64), (256, 64), (64, 256)]
    inputs = [torch.randn(s, generator=generator).to(torch.bfloat16) for s in shapes]
    assert _bytes(load(chunked)(*inputs)[0]) == _bytes(load(whole)(*inputs)[0])


def test_chunks_are_the_same_in_every_process(tmp_path: Path) -> None:
    path = tmp_path / "mlp.mlir"
    path.write_text(LONG_MLP)
    outputs = lumir_opt_outputs([str(path), "-p", "lumir-pipeline{chunk_bytes=65536}"], ("1", "2"))
    (text,) = outputs
    assert text.count("cublaslt_rt.fused_launch") == 4


def _scaled_projection(rows: int) -> str:
    x, out = f"tensor<{rows}x64xf32>", f"tensor<{rows}x64xbf16>"
    return (
        f"func.func @scaled(%x: {x}, %w: tensor<64x64xf32>, %s: tensor<64xf32>) -> {out} {{\n"
        f"  %gate = hl.matmul %x, %w : ({x}, tensor<64x64xf32>) -> {x}\n"
        f"  %h = hl.mul %gate, %s : ({x}, tensor<64xf32>) -> {x}\n"
        f"  %c = hl.cast %h : {x} -> {out}\n"
        f"  func.return %c : {out}\n}}\n"
    )


@pytest.mark.parametrize("rows", [16400, 2**32 + 1])
def test_a_group_of_very_many_rows_runs_in_at_most_max_chunks(rows):
    """A 256-byte f32 row of temporaries under 4096 bytes is 16 rows a chunk: 16400 rows
    asked for 1025 chunks, 2^32 + 1 rows (mutate fuzzer, mutant 266 of seed 7) for 2^28,
    and lumir-opt built ops until it was killed. Chunks now grow past `max_bytes` to keep
    their count at most MAX_CHUNKS, balanced as before."""
    from lumir.passes.chunk_rows import MAX_CHUNKS

    printed = str(compiled(_scaled_projection(rows), 4096))
    launches = printed.count("cublaslt_rt.fused_launch")
    assert 1 < launches <= MAX_CHUNKS
    assert printed.count("cublaslt_rt.matmul ") == launches
