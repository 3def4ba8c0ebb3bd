"""Rotary embedding (transpose, slice/neg/cat, mul/add) fuses into one kernel that computes
what the unfused ops do.

fuse-kernels puts the transpose of the projected heads, rotate_half's slices, neg and
cat, and `q * cos + rotate_half(q) * sin` into one `hl.fused` op. On CPU the fused body
runs op by op (bit-identical to unfused); the generated Triton kernel is checked against
it under TRITON_INTERPRET=1 for several shapes and for rotations and cats other than
Llama's halves. What the model does not cover stays unfused.
"""

from __future__ import annotations

import pytest
import torch

from bench.workloads import LLAMA_SHAPES, llama_layer_hl
from lumir.runtime import load
from lumir.runtime.cuda_cublaslt import cublaslt_available
from lumir.runtime.triton_codegen import generate
from lumir.testing.fused_check import (
    fused_bodies,
    run_in_interpreter,
    triton_interpreter_available,
)
from lumir.testing.programs import (
    assert_cuda_matches_cpu,
    compile_text,
    fuse_kernels_only,
    seeded_inputs,
)

skip_no_triton = pytest.mark.skipif(
    triton_interpreter_available() is not None,
    reason=f"Triton interpreter check: {triton_interpreter_available()}",
)


def _t(shape: list[int], element: str) -> str:
    return f"tensor<{'x'.join(str(s) for s in shape)}x{element}>"


def _rotary(name: str, seq: int, heads: int, dim: int, split: int, element: str) -> str:
    """q [1,S,H,D] -> transpose [1,H,S,D]; q*cos + cat(-q[split:], q[:split])*sin."""
    src, dst = _t([1, seq, heads, dim], element), _t([1, heads, seq, dim], element)
    lo, hi = _t([1, heads, seq, split], element), _t([1, heads, seq, dim - split], element)
    table = _t([1, 1, seq, dim], element)
    return f"""
  %{name}t = hl.transpose %{name} {{permutation = array<i64: 0, 2, 1, 3>}} : {src} -> {dst}
  %{name}lo = hl.slice %{name}t {{dim = 3 : i64, start = 0 : i64, end = {split} : i64, step = 1 : i64}} : {dst} -> {lo}
  %{name}hi = hl.slice %{name}t {{dim = -1 : i64, start = {split} : i64, end = {dim} : i64, step = 1 : i64}} : {dst} -> {hi}
  %{name}n = hl.neg %{name}hi : {hi} -> {hi}
  %{name}rot = hl.cat %{name}n, %{name}lo {{dim = 3 : i64}} : ({hi}, {lo}) -> {dst}
  %{name}c = hl.mul %{name}t, %cos : ({dst}, {table}) -> {dst}
  %{name}s = hl.mul %{name}rot, %sin : ({dst}, {table}) -> {dst}
  %{name}r = hl.add %{name}c, %{name}s : ({dst}, {dst}) -> {dst}
"""  # noqa: E501


def rotary_qk(seq: int, heads: int, kv_heads: int, dim: int, split: int, element: str) -> str:
    """q and k rotated by the same cos/sin: two rotaries of H and KV heads."""
    table = _t([1, 1, seq, dim], element)
    q, k = _t([1, seq, heads, dim], element), _t([1, seq, kv_heads, dim], element)
    qr, kr = _t([1, heads, seq, dim], element), _t([1, kv_heads, seq, dim], element)
    return (
        f"func.func @rotary(%q: {q}, %k: {k}, %cos: {table}, %sin: {table}) -> ({qr}, {kr}) {{"
        + _rotary("q", seq, heads, dim, split, element)
        + _rotary("k", seq, kv_heads, dim, split, element)
        + f"  func.return %qr, %kr : {qr}, {kr}\n}}\n"
    )


THREE_PIECES = """
func.func @three(%x: tensor<2x3x12xf32>, %w: tensor<12xf32>) -> tensor<2x3x12xf32> {
  %a = hl.slice %x {dim = 2 : i64, start = 8 : i64, end = 12 : i64, step = 1 : i64} : tensor<2x3x12xf32> -> tensor<2x3x4xf32>
  %b = hl.slice %x {dim = 2 : i64, start = 0 : i64, end = 5 : i64, step = 1 : i64} : tensor<2x3x12xf32> -> tensor<2x3x5xf32>
  %c = hl.slice %x {dim = 2 : i64, start = 5 : i64, end = 8 : i64, step = 1 : i64} : tensor<2x3x12xf32> -> tensor<2x3x3xf32>
  %n = hl.neg %b : tensor<2x3x5xf32> -> tensor<2x3x5xf32>
  %e = hl.exp %c : tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  %m = hl.mean %x {dims = array<i64: -1>, keepdim} : tensor<2x3x12xf32> -> tensor<2x3x1xf32>
  %am = hl.mul %a, %m : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %cat = hl.cat %am, %n, %e {dim = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x5xf32>, tensor<2x3x3xf32>) -> tensor<2x3x12xf32>
  %s = hl.softmax %cat {dim = -1 : i64} : tensor<2x3x12xf32> -> tensor<2x3x12xf32>
  %y = hl.mul %s, %w : (tensor<2x3x12xf32>, tensor<12xf32>) -> tensor<2x3x12xf32>
  func.return %y : tensor<2x3x12xf32>
}
"""  # noqa: E501
"""A cat of three computed pieces (one times a row mean), then a softmax over it."""

NESTED = """
func.func @nested(%x: tensor<3x2x10xbf16>) -> tensor<2x3x6xbf16> {
  %t = hl.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<3x2x10xbf16> -> tensor<2x3x10xbf16>
  %hi = hl.slice %t {dim = 2 : i64, start = 4 : i64, end = 10 : i64, step = 1 : i64} : tensor<2x3x10xbf16> -> tensor<2x3x6xbf16>
  %lo = hl.slice %t {dim = 2 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<2x3x10xbf16> -> tensor<2x3x4xbf16>
  %r = hl.cat %hi, %lo {dim = 2 : i64} : (tensor<2x3x6xbf16>, tensor<2x3x4xbf16>) -> tensor<2x3x10xbf16>
  %s = hl.sigmoid %r : tensor<2x3x10xbf16> -> tensor<2x3x10xbf16>
  %mid = hl.slice %s {dim = 2 : i64, start = 3 : i64, end = 9 : i64, step = 1 : i64} : tensor<2x3x10xbf16> -> tensor<2x3x6xbf16>
  %y = hl.mul %mid, %hi : (tensor<2x3x6xbf16>, tensor<2x3x6xbf16>) -> tensor<2x3x6xbf16>
  func.return %y : tensor<2x3x6xbf16>
}
"""  # noqa: E501
"""A slice of a computed cat (shifts compose) with a result narrower than the row."""

MIXED = """
func.func @mixed(%x: tensor<4x16xf32>, %y: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x1xf32>) {
  %m = hl.amax %x {dims = array<i64: -1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
  %p = hl.mul %y, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = hl.exp %p : tensor<4x6xf32> -> tensor<4x6xf32>
  func.return %e, %m : tensor<4x6xf32>, tensor<4x1xf32>
}
"""
"""Rows of two widths in one kernel: a 6-column input and result under a 16-column max."""

TEXTS = {"three": THREE_PIECES, "nested": NESTED, "mixed": MIXED}

SHAPES = {
    "decode": (1, 4, 2, 16, 8),  # seq 1: the transpose is a view-like permutation
    "prefill": (5, 4, 2, 16, 8),
    "odd_half": (3, 2, 1, 14, 7),  # head_dim 14: halves of 7 columns (BLOCK 16)
    "off_half": (4, 3, 1, 12, 5),  # rotate by 5 of 12: the slice is not at the half
    # Llama's head_dim over 111 q rows and 37 k rows: tiles of 32 head rows, the last
    # one ragged (fused_tiling), rows read through the transpose's strides
    "tiled": (37, 3, 1, 64, 32),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_rotary_is_one_fused_op_with_its_transpose(shape: str) -> None:
    fused = fuse_kernels_only(rotary_qk(*SHAPES[shape], "bf16"))
    assert fused.count("hl.fused(") == 2
    outside = fused.split("func.return")[0]
    body_free = [line for line in outside.splitlines() if line.startswith("    %")]
    assert all("hl.fused(" in line for line in body_free), body_free  # nothing left outside


def test_the_tiled_shape_reaches_ragged_tiles_of_head_rows() -> None:
    """What the "tiled" shape is for: its q and k kernels pack 32 head rows a program
    and their last tile runs past the last row (so the interpreter checks mask it)."""
    bodies = fused_bodies(fuse_kernels_only(rotary_qk(*SHAPES["tiled"], "bf16")))
    launches = [generate(body).launch for body in bodies]
    assert [launch.grid for launch in launches] == [(4, 1), (2, 1)]
    assert all(launch.tiled and launch.ragged for launch in launches)
    assert all(launch.rows_per_program == 32 for launch in launches)


def test_llama_layer_rotary_fuses_and_stays_bit_identical_on_cpu() -> None:
    text = llama_layer_hl(6, LLAMA_SHAPES["tiny"])
    fused, unfused = compile_text(text, True), compile_text(text, False)
    for kernel in ('"hl.slice"', '"hl.neg"', '"hl.cat"'):
        assert kernel in unfused and kernel not in fused
    # q's and k's transposes joined their rotary; v's and the attention output's are
    # read and written by the sdpa launch through permuted views (lower-to-cublaslt-rt).
    assert unfused.count('launch "hl.transpose"') == 2
    assert fused.count('launch "hl.transpose"') == 0
    assert "output_permutation" in fused
    fused_program, unfused_program = load(fused), load(unfused)
    for seed in (0, 1):
        inputs = seeded_inputs(text, seed)
        assert torch.equal(fused_program(*inputs), unfused_program(*inputs))


def _results(value: object) -> tuple[torch.Tensor, ...]:
    return value if isinstance(value, tuple) else (value,)  # type: ignore[return-value]


@pytest.mark.parametrize("name", ["rotary_prefill", "three", "nested", "mixed"])
def test_fused_moves_are_bit_identical_to_unfused_on_cpu(name: str) -> None:
    texts = {"rotary_prefill": rotary_qk(*SHAPES["prefill"], "bf16"), **TEXTS}
    text = texts[name]
    fused, unfused = compile_text(text, True), compile_text(text, False)
    assert "cublaslt_rt.fused_launch" in fused
    fused_program, unfused_program = load(fused), load(unfused)
    for seed in (0, 1):
        inputs = seeded_inputs(text, seed)
        got, want = _results(fused_program(*inputs)), _results(unfused_program(*inputs))
        assert len(got) == len(want)
        assert all(torch.equal(g, w) for g, w in zip(got, want, strict=True))


def _interpreted(text: str, tmp_path, body: int, atol: float, rtol: float) -> None:
    path = tmp_path / "fused.mlir"
    path.write_text(fuse_kernels_only(text))
    for seed in (0, 1):
        report = run_in_interpreter(path, atol=atol, rtol=rtol, seed=seed, body=body)
        assert report["returncode"] == 0, (report["max_abs_diff"], report["source"])


@skip_no_triton
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("element", ["f32", "bf16"])
@pytest.mark.parametrize("body", [0, 1], ids=["q", "k"])
def test_generated_rotary_kernel_matches_the_reference(
    shape: str, element: str, body: int, tmp_path
) -> None:
    # Moves are exact and the mul/add round where torch does: f32 agrees to the last bit.
    # Triton's interpreter truncates f32 -> bf16 (the GPU rounds to nearest), so in bf16
    # each product and the sum may be one bf16 step off, and the sum of two products that
    # cancel keeps their steps: 2**-6 of the value plus 2**-3 (a step of a product ~16).
    tolerance = (1e-6, 1e-6) if element == "f32" else (2.0**-3, 2.0**-6)
    _interpreted(rotary_qk(*SHAPES[shape], element), tmp_path, body, *tolerance)


@skip_no_triton
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_generated_cat_and_slice_kernels_match_the_reference(name: str, tmp_path) -> None:
    tolerance = (2.0**-6, 2.0**-6) if name == "nested" else (1e-6, 1e-5)  # bf16 sigmoid; f32
    _interpreted(TEXTS[name], tmp_path, 0, *tolerance)


# --- CUDA ------------------------------------------------------------------------------


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
@pytest.mark.parametrize("seq", [1, 6])
@pytest.mark.parametrize("cuda_graph", [False, True], ids=["eager", "graph"])
def test_fused_llama_layer_on_cuda_matches_cpu(seq: int, cuda_graph: bool) -> None:
    pytest.importorskip("triton")
    assert_cuda_matches_cpu(llama_layer_hl(seq, LLAMA_SHAPES["tiny"]), cuda_graph)
