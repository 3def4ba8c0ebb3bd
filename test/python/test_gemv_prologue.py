"""The grouped GEMV's prologue: gemv-prologue moves the one-row launch that computes a GEMV
group's activation (a decode step's RMSNorm) into the group, and CUDA runs both as one
generated kernel.

What a user relies on: the program computes what it computed before (on the CPU the
same launches run in the same order, bit for bit; under Triton's CPU interpreter the
one kernel writes the separate launches' bits; on a GPU, marked `cuda`, the norm is
reduced with other warps, so the results agree within the GEMV's tolerance and are the
same on every call), and the pass only takes a launch it may: one output, the members'
B, over one row that each member sums in one block, which nothing else reads.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import torch
from test_gemv_epilogue import _compile_for_hopper, _groups, _lowered

from lumir.runtime import load
from lumir.testing.fused_check import triton_interpreter_available
from lumir.testing.gemv_check import run_in_interpreter
from lumir.testing.processes import lumir_opt_outputs
from lumir.testing.programs import seeded_inputs

_NORM = """
  %xf = hl.cast %x : tensor<1x{k}xbf16> -> tensor<1x{k}xf32>
  %two = hl.constant {{value = dense<2.000000e+00> : tensor<f32>}} : tensor<f32>
  %p = hl.pow %xf, %two : (tensor<1x{k}xf32>, tensor<f32>) -> tensor<1x{k}xf32>
  %m = hl.mean %p {{dims = array<i64: -1>, keepdim}} : tensor<1x{k}xf32> -> tensor<1x1xf32>
  %eps = hl.constant {{value = dense<1.0e-05> : tensor<f32>}} : tensor<f32>
  %me = hl.add %m, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %q = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
  %s = hl.mul %xf, %q : (tensor<1x{k}xf32>, tensor<1x1xf32>) -> tensor<1x{k}xf32>
  %sb = hl.cast %s : tensor<1x{k}xf32> -> tensor<1x{k}xbf16>
  %h = hl.mul %g, %sb : (tensor<{k}xbf16>, tensor<1x{k}xbf16>) -> tensor<1x{k}xbf16>"""
"""Llama's RMSNorm of one row: f32 inside, rounded to bf16, times the bf16 weight."""


def _qkv(k: int = 256, also_norm: bool = False) -> str:
    """A decode step's input norm and the q, k and v projections (one block shape)."""
    results = "tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>"
    returned = f"%yq, %yk, %yv : {results}"
    if also_norm:
        results += f", tensor<1x{k}xbf16>"
        returned = f"%yq, %yk, %yv, %h : {results}"
    return f"""
func.func @attn_in(%x: tensor<1x{k}xbf16>, %g: tensor<{k}xbf16>, %wq: tensor<512x{k}xbf16>,
                   %wk: tensor<256x{k}xbf16>, %wv: tensor<256x{k}xbf16>) -> ({results}) {{{
        _NORM.format(k=k)
    }
  %yq = hl.linear %h, %wq : tensor<1x{k}xbf16>, tensor<512x{k}xbf16> -> tensor<1x512xbf16>
  %yk = hl.linear %h, %wk : tensor<1x{k}xbf16>, tensor<256x{k}xbf16> -> tensor<1x256xbf16>
  %yv = hl.linear %h, %wv : tensor<1x{k}xbf16>, tensor<256x{k}xbf16> -> tensor<1x256xbf16>
  func.return {returned}
}}"""


QKV = _qkv()
"""The norm before q, k and v: a prologue without an epilogue."""

MLP = f"""
func.func @mlp(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wg: tensor<512x256xbf16>,
               %wu: tensor<512x256xbf16>, %wd: tensor<256x512xbf16>) -> tensor<1x256xbf16> {{{
    _NORM.format(k=256)
}
  %gt = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %up = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %sg = hl.silu %gt : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %mm = hl.mul %sg, %up : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  %y = hl.linear %mm, %wd : tensor<1x512xbf16>, tensor<256x512xbf16> -> tensor<1x256xbf16>
  %r = hl.add %y, %x : (tensor<1x256xbf16>, tensor<1x256xbf16>) -> tensor<1x256xbf16>
  func.return %r : tensor<1x256xbf16>
}}"""
"""The post-attention norm, gate and up with SiLU(gate) * up, down and the residual: a
prologue and an epilogue in one kernel."""

NORM_RETURNED = _qkv(also_norm=True)
"""The norm is also a result: the group's kernel would not write it."""

WIDE_ROW = _qkv(k=4096)
"""A row of 4096: the GEMV sums it in blocks of 2048, so no one block holds it."""


@pytest.mark.parametrize(("text", "members"), [(QKV, 3), (MLP, 2)], ids=["qkv", "mlp"])
def test_the_norm_before_a_gemv_group_becomes_the_groups_prologue(text: str, members: int) -> None:
    lowered = _lowered(text, gemv_prologue=True)
    (group,) = _groups(lowered)
    prologue = group.prologue()
    assert prologue is not None and len(group.members()) == members
    assert any(op.name == "hl.rsqrt" for op in prologue.body.block.ops)
    assert "cublaslt_rt.fused_launch" not in lowered.split("matmul_group")[0]
    assert (group.epilogue() is not None) == (text is MLP)
    (off,) = _groups(_lowered(text, gemv_prologue=False))
    assert off.prologue() is None


@pytest.mark.parametrize(
    "text", [NORM_RETURNED, WIDE_ROW], ids=["norm-read-elsewhere", "row-wider-than-a-block"]
)
def test_a_launch_the_one_kernel_could_not_run_stays_where_it_is(text: str) -> None:
    (group,) = _groups(_lowered(text, gemv_prologue=True))
    assert group.prologue() is None


@pytest.mark.parametrize(
    "text", [QKV, MLP, NORM_RETURNED], ids=["qkv", "mlp-with-epilogue", "refused"]
)
def test_on_the_cpu_the_program_with_prologues_is_the_program_without_bit_for_bit(
    text: str,
) -> None:
    with_prologue, without = _lowered(text, gemv_prologue=True), _lowered(text, gemv_prologue=False)
    inputs = seeded_inputs(with_prologue, 0)
    got, want = load(with_prologue)(*inputs), load(without)(*inputs)
    for a, b in zip(
        got if isinstance(got, tuple) else (got,),
        want if isinstance(want, tuple) else (want,),
        strict=True,
    ):
        assert torch.equal(a, b)


def test_prologues_are_the_same_in_every_process(tmp_path: Path) -> None:
    path = tmp_path / "mlp.mlir"
    path.write_text(MLP)
    (text,) = lumir_opt_outputs([str(path), "-p", "lumir-pipeline{gemv_prologue=true}"], ("1", "2"))
    (group,) = _groups(text)
    assert group.prologue() is not None and group.epilogue() is not None


@pytest.mark.skipif(
    triton_interpreter_available() is not None, reason=str(triton_interpreter_available())
)
@pytest.mark.parametrize(("name", "text"), [("qkv", QKV), ("mlp", MLP)])
def test_the_one_kernel_writes_the_bits_of_the_separate_launches_under_the_interpreter(
    name: str, text: str, tmp_path: Path
) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    done = run_in_interpreter(path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    prologues = [line for line in lines if "prologue" in line]
    members = ["@plan0", "@plan1", "@plan2"][: 3 if name == "qkv" else 2]
    assert prologues == [{"prologue": members, "bit_identical": True}], lines


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
@pytest.mark.parametrize("text", [QKV, MLP], ids=["qkv", "mlp"])
def test_the_one_kernel_compiles_for_hopper(text: str) -> None:
    """The interpreter runs Python, not Triton's compiler: the generated kernel must also
    compile for the GPU, with its sums as fused multiply-adds and the PDL wait."""
    from lumir.runtime.fused_kernels import compile_text
    from lumir.runtime.triton_codegen import EpilogueMember, generate_gemv_prologue

    (group,) = _groups(_lowered(text, gemv_prologue=True))
    prologue, epilogue = group.prologue(), group.epilogue()
    assert prologue is not None
    members = tuple(EpilogueMember(False, False, "bf16") for _ in group.members())
    body = None if epilogue is None else epilogue.body.block
    source = generate_gemv_prologue(prologue.body.block, members, body, [0, 1])
    kernel = compile_text(source)
    signature = {"p_in0": "*bf16", "p_in1": "*bf16", "k": "i32", "m": "i32", "out0": "*bf16"}
    for i in range(len(members)):
        signature |= {f"a{i}": "*bf16", f"c{i}": "*bf16", f"bias{i}": "*bf16", f"d{i}": "*bf16"}
        signature |= {f"alpha{i}": "fp32", f"beta{i}": "fp32", f"m{i}": "i32"}
        signature |= {f"stride_{n}{i}": "i32" for n in ("am", "ak", "c", "bias", "d")}
    signature = {name: signature[name] for name in kernel.arg_names if name in signature}
    ptx = _compile_for_hopper(kernel, signature, {"BLOCK_M": 2, "BLOCK_K": 256, "PDL": True})
    if ptx is not None:
        assert "fma.rn.f32" in ptx and "griddepcontrol.wait" in ptx


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("text", [QKV, MLP], ids=["qkv", "mlp"])
def test_on_cuda_the_one_kernel_agrees_with_the_two_launches_and_repeats_itself(text: str) -> None:
    from lumir.runtime.cuda_cublaslt import cublaslt_available
    from lumir.runtime.gemv_prologue import GemvProloguePlan

    if not cublaslt_available():
        pytest.skip("needs nvmath-python")
    pytest.importorskip("triton")
    with_prologue, without = _lowered(text, gemv_prologue=True), _lowered(text, gemv_prologue=False)
    on, off = load(with_prologue, device="cuda"), load(without, device="cuda")
    assert any(isinstance(plan, GemvProloguePlan) for plan in on.plans)
    assert len(on.launches) == len(off.launches) - 1
    for seed in (0, 1):  # the first call captures the graphs, the second replays them
        inputs = [t.cuda() for t in seeded_inputs(without, seed)]
        got, want = on(*inputs), off(*inputs)
        got, want = (
            got if isinstance(got, tuple) else (got,),
            want if isinstance(want, tuple) else (want,),
        )
        again = on(*inputs)
        again = again if isinstance(again, tuple) else (again,)
        for a, b, c in zip(got, want, again, strict=True):
            assert torch.equal(a, c)  # the same bits on every call
            torch.testing.assert_close(a.float(), b.float(), rtol=2e-2, atol=2e-2)
    on.close()
    off.close()


@torch.no_grad()
def test_a_decode_step_keeps_its_prologues_and_epilogues_through_the_buffer_plan() -> None:
    """A decode step of two layers, through the whole backend (the buffer plan included).

    The buffer plan places the second layer's norm and MLP results in the bytes the
    first layer's left: bytes the first layer's group kernels leave unwritten on CUDA,
    which the second layer's groups write (their prologue, their members) before they
    read them. Before, the group checks took those for later readers of the first
    layer's scratch, the program did not verify after the buffer plan, and every
    decode step ran in eager ("outside the group reads the D of member 1"), on the CPU
    and on CUDA alike, with the right tokens.
    """
    transformers = pytest.importorskip("transformers")
    from test_backend_llama import decode_config, greedy

    from lumir.backend import stats
    from lumir.backend.partition import LumirRuntimeFallbackWarning

    torch._dynamo.reset()
    stats.reset()
    torch.manual_seed(0)
    config = decode_config()
    model = transformers.LlamaForCausalLM(config).eval().to(torch.bfloat16)
    ids = torch.randint(0, 128, (1, 5), generator=torch.Generator().manual_seed(1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = torch.compile(model, backend="lumir", options={"gemv_prologue": True})
        got = greedy(compiled, config, ids, 4)
    assert got == greedy(model, config, ids, 4)
    assert not [w for w in caught if issubclass(w.category, LumirRuntimeFallbackWarning)]
    partitions = [p for graph in stats.GRAPHS for p in graph.partitions]
    assert sum(p.fused["gemv_prologues"] for p in partitions) >= 2
    assert sum(p.fused["gemv_epilogues"] for p in partitions) >= 2
