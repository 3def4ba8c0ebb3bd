"""Fused kernels (fuse-kernels -> cublaslt_rt.fused_launch) compute what the unfused program does.

On CPU a fused kernel runs its body op by op with the same torch kernels, so fused and
unfused programs agree bit for bit. The generated Triton source is checked under
Triton's CPU interpreter (TRITON_INTERPRET=1, in a child process: `fused_check`), and
its text must not depend on the process (it is the compile cache's key).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bench.workloads import chain_hl
from lumir.runtime import load
from lumir.runtime.cuda_cublaslt import cublaslt_available
from lumir.runtime.triton_codegen import generate
from lumir.testing.fused_check import (
    first_fused_body,
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

REPO = Path(__file__).resolve().parents[2]

RMSNORM_SWIGLU = """
func.func @block(%x: tensor<4x64xbf16>, %g: tensor<64xbf16>, %wg: tensor<64x128xbf16>,
                 %wu: tensor<64x128xbf16>, %wd: tensor<128x64xbf16>) -> tensor<4x64xbf16> {
  %f = hl.cast %x : tensor<4x64xbf16> -> tensor<4x64xf32>
  %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
  %p = hl.pow %f, %two : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<4x64xf32> -> tensor<4x1xf32>
  %eps = hl.constant {value = dense<1.000000e-06> : tensor<f32>} : tensor<f32>
  %me = hl.add %m, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %q = hl.rsqrt %me : tensor<4x1xf32> -> tensor<4x1xf32>
  %s = hl.mul %f, %q : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %b = hl.cast %s : tensor<4x64xf32> -> tensor<4x64xbf16>
  %n = hl.mul %b, %g : (tensor<4x64xbf16>, tensor<64xbf16>) -> tensor<4x64xbf16>
  %gate = hl.matmul %n, %wg : (tensor<4x64xbf16>, tensor<64x128xbf16>) -> tensor<4x128xbf16>
  %up = hl.matmul %n, %wu : (tensor<4x64xbf16>, tensor<64x128xbf16>) -> tensor<4x128xbf16>
  %a = hl.silu %gate : tensor<4x128xbf16> -> tensor<4x128xbf16>
  %h = hl.mul %a, %up : (tensor<4x128xbf16>, tensor<4x128xbf16>) -> tensor<4x128xbf16>
  %d = hl.matmul %h, %wd : (tensor<4x128xbf16>, tensor<128x64xbf16>) -> tensor<4x64xbf16>
  %r = hl.add %x, %d : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  func.return %r : tensor<4x64xbf16>
}
"""

LAYERNORM_LINEAR = """
func.func @block(%x: tensor<4x64xbf16>, %g: tensor<64xbf16>, %beta: tensor<64xbf16>,
                 %w: tensor<64x64xbf16>) -> tensor<4x64xbf16> {
  %f = hl.cast %x : tensor<4x64xbf16> -> tensor<4x64xf32>
  %n = hl.constant {value = dense<6.400000e+01> : tensor<f32>} : tensor<f32>
  %m = hl.mean %f {dims = array<i64: 1>, keepdim} : tensor<4x64xf32> -> tensor<4x1xf32>
  %d = hl.sub %f, %m : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %d2 = hl.mul %d, %d : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %ss = hl.sum %d2 {dims = array<i64: 1>, keepdim} : tensor<4x64xf32> -> tensor<4x1xf32>
  %var = hl.div %ss, %n : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = hl.sum %f {dims = array<i64: 1>, keepdim} : tensor<4x64xf32> -> tensor<4x1xf32>
  %mean = hl.div %s, %n : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %eps = hl.constant {value = dense<1.000000e-05> : tensor<f32>} : tensor<f32>
  %ve = hl.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = hl.rsqrt %ve : tensor<4x1xf32> -> tensor<4x1xf32>
  %c = hl.sub %f, %mean : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = hl.mul %c, %r : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %gf = hl.cast %g : tensor<64xbf16> -> tensor<64xf32>
  %yg = hl.mul %y, %gf : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %bf = hl.cast %beta : tensor<64xbf16> -> tensor<64xf32>
  %yb = hl.add %yg, %bf : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %h = hl.cast %yb : tensor<4x64xf32> -> tensor<4x64xbf16>
  %o = hl.matmul %h, %w : (tensor<4x64xbf16>, tensor<64x64xbf16>) -> tensor<4x64xbf16>
  %res = hl.add %x, %o : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  func.return %res : tensor<4x64xbf16>
}
"""
"""A LayerNorm as torch's decomposition imports it (two-pass variance, a separate sum
for the mean: three row reductions), then a projection and the residual add."""

ROW_MAX_EXP = """
func.func @f(%x: tensor<6x64xf32>) -> (tensor<6x64xf32>, tensor<6x64xf32>) {
  %m = hl.amax %x {dims = array<i64: -1>, keepdim} : tensor<6x64xf32> -> tensor<6x1xf32>
  %d = hl.sub %x, %m : (tensor<6x64xf32>, tensor<6x1xf32>) -> tensor<6x64xf32>
  %e = hl.exp %d : tensor<6x64xf32> -> tensor<6x64xf32>
  %s = hl.softmax %x {dim = -1 : i64} : tensor<6x64xf32> -> tensor<6x64xf32>
  func.return %e, %s : tensor<6x64xf32>, tensor<6x64xf32>
}
"""
"""A row maximum and a softmax in one kernel: a row holding a NaN must come out NaN,
as torch.amax and torch.softmax make it (Triton's own `tl.max` skips a NaN)."""

WORKLOADS = {
    "chain": chain_hl(8, 64, 2),
    "rmsnorm_swiglu": RMSNORM_SWIGLU,
    "layernorm_linear": LAYERNORM_LINEAR,
}

skip_no_triton = pytest.mark.skipif(
    triton_interpreter_available() is not None,
    reason=f"Triton interpreter check: {triton_interpreter_available()}",
)


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_fused_program_is_bit_identical_to_unfused_on_cpu(name: str) -> None:
    text = WORKLOADS[name]
    fused, unfused = compile_text(text, True), compile_text(text, False)
    assert "cublaslt_rt.fused_launch" in fused
    assert "cublaslt_rt.fused_launch" not in unfused
    assert fused.count("cublaslt_rt.launch ") < unfused.count("cublaslt_rt.launch ")
    fused_program, unfused_program = load(fused), load(unfused)
    for seed in (0, 1):
        inputs = seeded_inputs(text, seed)
        got, want = fused_program(*inputs), unfused_program(*inputs)
        if isinstance(got, torch.Tensor):
            got, want = (got,), (want,)
        assert all(torch.equal(g, w) for g, w in zip(got, want, strict=True))


def test_chain_fuses_each_norm_into_one_kernel() -> None:
    """Per block: the RMSNorm's 8 launches become one; the residual add is the GEMM's C."""
    fused, unfused = compile_text(WORKLOADS["chain"], True), compile_text(WORKLOADS["chain"], False)
    assert unfused.count("cublaslt_rt.launch ") == 8 * 2
    assert fused.count("cublaslt_rt.fused_launch") == 2
    assert fused.count("cublaslt_rt.launch ") == 0
    assert fused.count("cublaslt_rt.matmul") == unfused.count("cublaslt_rt.matmul") == 2


def _f32(text: str) -> str:
    return text.replace("bf16", "f32")


@skip_no_triton
@pytest.mark.parametrize("name", sorted(WORKLOADS))
@pytest.mark.parametrize("storage", ["f32", "bf16"])
def test_generated_triton_matches_the_reference(name: str, storage: str, tmp_path) -> None:
    text = WORKLOADS[name] if storage == "bf16" else _f32(WORKLOADS[name])
    path = tmp_path / "fused.mlir"
    path.write_text(fuse_kernels_only(text))
    # f32: the same f32 operations, up to the order of a row sum. bf16: the kernel rounds
    # where torch does, but rsqrt / sigmoid may differ in their last f32 bit, which can
    # move a bf16 rounding: two bf16 steps (2**-6 of the value) at most.
    rtol = 1e-5 if storage == "f32" else 2.0**-6
    for seed in (0, 1):
        report = run_in_interpreter(path, atol=1e-6, rtol=rtol, seed=seed)
        assert report["returncode"] == 0, report["max_rel_diff"]


@skip_no_triton
@pytest.mark.parametrize("name", sorted({*WORKLOADS, "row_max_exp"}))
def test_generated_triton_carries_nan_and_infinities_as_torch_does(name: str, tmp_path) -> None:
    """Each input holds a NaN, a +inf and a -inf: every result has NaN and infinities
    exactly where the reference executor (torch's kernels) puts them."""
    text = ROW_MAX_EXP if name == "row_max_exp" else _f32(WORKLOADS[name])
    path = tmp_path / "fused.mlir"
    path.write_text(fuse_kernels_only(text))
    for body in range(len(fused_bodies(path.read_text()))):
        report = run_in_interpreter(path, atol=1e-6, rtol=1e-5, body=body, specials=True)
        assert report["returncode"] == 0, (body, report["close"], report["source"])


@skip_no_triton
def test_generated_triton_writes_the_same_bytes_over_an_input(tmp_path) -> None:
    """SiLU(gate) * up, the body the buffer plan writes over gate: the kernel run with
    its result in gate's (or up's) storage writes what it writes into a buffer of its
    own, tiled or not (the kernel reads each element before it writes it)."""
    text = fuse_kernels_only(RMSNORM_SWIGLU)
    path = tmp_path / "fused.mlir"
    path.write_text(text)
    (body,) = [i for i, b in enumerate(fused_bodies(text)) if "hl.silu" in str(b.parent_op())]
    report = run_in_interpreter(path, atol=1e-6, rtol=2.0**-6, body=body)
    assert report["returncode"] == 0
    assert [(result, read) for result, read, _ in report["in_place"]] == [(0, 0), (0, 1)]
    assert all(same for _, _, same in report["in_place"])
    norm = run_in_interpreter(path, atol=1e-6, rtol=2.0**-6, body=0)  # a reduction
    assert norm["returncode"] == 0 and norm["in_place"] == []


@skip_no_triton
def test_generated_source_is_the_same_in_every_process(tmp_path) -> None:
    path = tmp_path / "fused.mlir"
    path.write_text(fuse_kernels_only(WORKLOADS["rmsnorm_swiglu"]))
    sources = {
        run_in_interpreter(path, atol=1.0, rtol=1.0, hash_seed=seed)["source"]
        for seed in ("0", "4242")
    }
    assert len(sources) == 1
    assert "@triton.jit" in sources.pop()


RMSNORM_KERNEL = """import triton
import triton.language as tl

from lumir.runtime.pdl_kernel import wait_for_previous_launch


@triton.jit
def lumir_fused(in0, in1, out0, BLOCK: tl.constexpr, PDL: tl.constexpr = False):
    wait_for_previous_launch(PDL)
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < 64
    v0 = tl.load(in0 + row * 64 + cols, mask=mask, other=0.0).to(tl.float32)
    v1 = tl.load(in1 + 0 + cols, mask=mask, other=0.0).to(tl.float32)
    v2 = v0
    v4 = (v2 * v2)
    v5 = tl.sum(tl.where(mask, v4, 0.0), axis=0) / 64.0
    v7 = v5 + 9.999999974752427e-07
    v8 = tl.rsqrt(v7)
    v9 = v2 * v8
    v10 = (v9).to(tl.bfloat16).to(tl.float32)
    v11 = (v10 * v1).to(tl.bfloat16).to(tl.float32)
    tl.store(out0 + row * 64 + cols, v11.to(tl.bfloat16), mask=mask)
"""
"""The RMSNorm kernel as generated before tiling existed (commit 4adb673): a reduction's
summation order is set by its text and warps, so it must stay exactly this. (The PDL
wait at the top, `lumir.runtime.pdl`, came later; it computes nothing.)"""


def test_a_reduction_kernel_is_the_text_it_was_before_tiling() -> None:
    """The RMSNorm keeps one row per program (fused_tiling): its text and launch are
    the ones it had, and its tile=False form is the same kernel."""
    body = first_fused_body(fuse_kernels_only(WORKLOADS["rmsnorm_swiglu"]))
    source = generate(body)
    assert source.text == RMSNORM_KERNEL
    assert source.launch.grid == (4,) and source.launch.num_warps == 4
    assert source.launch.constants == {"BLOCK": 64}
    assert source == generate(body, tile=False)


# --- CUDA ------------------------------------------------------------------------------


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
@pytest.mark.parametrize("name", sorted(WORKLOADS))
@pytest.mark.parametrize("cuda_graph", [False, True], ids=["eager", "graph"])
def test_fused_cuda_program_matches_cpu(name: str, cuda_graph: bool) -> None:
    pytest.importorskip("triton")
    assert_cuda_matches_cpu(WORKLOADS[name], cuda_graph)


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
def test_fused_cuda_row_max_keeps_nan_and_infinities() -> None:
    """The GPU's `tl.max` skips NaN (IEEE maxNum); lumir's row maximum must not."""
    pytest.importorskip("triton")
    fused = compile_text(ROW_MAX_EXP, True)
    assert "cublaslt_rt.fused_launch" in fused
    x = torch.randn(6, 64, generator=torch.Generator().manual_seed(0))
    x[0, 5], x[2, 7], x[3, 1] = float("nan"), float("inf"), float("-inf")
    want = load(fused)(x)
    got = load(fused, device="cuda", cuda_graph=False)(x.cuda())
    for g, w in zip(got, want, strict=True):
        assert torch.allclose(g.cpu(), w, rtol=1e-5, atol=1e-6, equal_nan=True)
    assert bool(want[0][0].isnan().all()) and bool(want[1][0].isnan().all())


def test_lumir_opt_pipeline_option_fuses(tmp_path) -> None:
    """`lumir-pipeline{fuse_kernels=true}` from the command line, in a fresh process."""
    path = tmp_path / "block.mlir"
    path.write_text(WORKLOADS["rmsnorm_swiglu"])
    pipeline = "lumir-pipeline{fuse_kernels=true}"
    done = subprocess.run(
        [sys.executable, "-m", "lumir.tools.lumir_opt", str(path), "-p", pipeline],
        capture_output=True, text=True, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)}, check=True,
    )  # fmt: skip
    assert done.stdout.count("cublaslt_rt.fused_launch") == 2
