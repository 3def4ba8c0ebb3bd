"""The grouped GEMV's epilogue: gemv-epilogue moves the elementwise launch that reads only
a GEMV group's results into the group, and CUDA runs both as one generated kernel.

What a user relies on: the program computes what it computed before, bit for bit (on
the CPU the same launches run in the same order; on CUDA the one kernel sums each
member as its own launch does and computes the body as the fused kernel does, checked
under Triton's CPU interpreter and, marked `cuda`, on a GPU), and the pass only takes
a launch it may: an elementwise body reading nothing but the members' results, which
nothing else reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from lumir.context import lumir_context
from lumir.dialects.cublaslt_rt import MatmulGroupOp
from lumir.parsing import parse_module_text
from lumir.passes.pipeline import LumirPipelinePass
from lumir.runtime import load
from lumir.testing.fused_check import triton_interpreter_available
from lumir.testing.gemv_check import run_in_interpreter
from lumir.testing.processes import lumir_opt_outputs
from lumir.testing.programs import seeded_inputs

_MLP_HEAD = """
func.func @mlp(%h: tensor<1x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>,
               %wd: tensor<256x512xbf16>{extra_args}) -> ({results}) {{
  %g = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %u = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
{body}
  %y = hl.linear %m, %wd : tensor<1x512xbf16>, tensor<256x512xbf16> -> tensor<1x256xbf16>
  func.return {returned}
}}"""


def _mlp(body: str, extra_args: str = "", also_gate: bool = False) -> str:
    results = "tensor<1x256xbf16>" + (", tensor<1x512xbf16>" if also_gate else "")
    returned = "%y : tensor<1x256xbf16>"
    if also_gate:
        returned = "%y, %g : tensor<1x256xbf16>, tensor<1x512xbf16>"
    return _MLP_HEAD.format(extra_args=extra_args, results=results, body=body, returned=returned)


SILU_MUL = _mlp(
    """  %s = hl.silu %g : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %m = hl.mul %s, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>"""
)
"""A decode step's Llama MLP: SiLU(gate) * up between the gate/up group and down."""

F32_INSIDE = _mlp(
    """  %gf = hl.cast %g : tensor<1x512xbf16> -> tensor<1x512xf32>
  %uf = hl.cast %u : tensor<1x512xbf16> -> tensor<1x512xf32>
  %p = hl.mul %gf, %uf : (tensor<1x512xf32>, tensor<1x512xf32>) -> tensor<1x512xf32>
  %q = hl.sigmoid %gf : tensor<1x512xf32> -> tensor<1x512xf32>
  %r = hl.add %p, %q : (tensor<1x512xf32>, tensor<1x512xf32>) -> tensor<1x512xf32>
  %two = hl.constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %e = hl.pow %r, %two : (tensor<1x512xf32>, tensor<f32>) -> tensor<1x512xf32>
  %m = hl.cast %e : tensor<1x512xf32> -> tensor<1x512xbf16>"""
)
"""An f32 body (a multiply feeding an add, which a contracting compiler would fuse into
one FMA; a power with a literal exponent) on f32 results, cast to bf16."""

GATE_RETURNED = _mlp(
    """  %s = hl.silu %g : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %m = hl.mul %s, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>""",
    also_gate=True,
)
"""The gate is also a result: its D is read outside the group, so the kernel, which
does not write it, may not take the launch."""

ROW_SUM = _mlp(
    """  %s = hl.silu %g : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %t = hl.mul %s, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  %n = hl.sum %t {dims = array<i64: 1>, keepdim} : tensor<1x512xbf16> -> tensor<1x1xbf16>
  %m = hl.mul %t, %n : (tensor<1x512xbf16>, tensor<1x1xbf16>) -> tensor<1x512xbf16>"""
)
"""A body with a row reduction: a lane would need every other lane's value."""

OTHER_INPUT = _mlp(
    """  %s = hl.silu %g : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %t = hl.mul %s, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  %m = hl.add %t, %b : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>""",
    extra_args=", %b: tensor<1x512xbf16>",
)
"""A body reading a tensor besides the members' results."""


def _lowered(text: str, **options: bool) -> str:
    module = parse_module_text(text, "<test>")
    LumirPipelinePass(**options).apply(lumir_context(), module)
    return str(module)


def _groups(text: str) -> list[MatmulGroupOp]:
    module = parse_module_text(text, "<test>")
    return [op for op in module.walk() if isinstance(op, MatmulGroupOp)]


@pytest.mark.parametrize("text", [SILU_MUL, F32_INSIDE], ids=["silu-mul", "f32-inside"])
def test_the_elementwise_launch_after_gate_and_up_becomes_the_groups_epilogue(text: str) -> None:
    (group,) = _groups(_lowered(text))
    epilogue = group.epilogue()
    assert epilogue is not None and len(group.members()) == 2
    assert "cublaslt_rt.fused_launch" not in _lowered(text).split("matmul_group")[0]
    (off,) = _groups(_lowered(text, gemv_epilogue=False))
    assert off.epilogue() is None


@pytest.mark.parametrize(
    "text",
    [GATE_RETURNED, ROW_SUM, OTHER_INPUT],
    ids=["gate-read-elsewhere", "row-reduction", "another-input"],
)
def test_a_launch_the_one_kernel_could_not_run_stays_where_it_is(text: str) -> None:
    (group,) = _groups(_lowered(text))
    assert group.epilogue() is None


@pytest.mark.parametrize(
    "text", [SILU_MUL, F32_INSIDE, GATE_RETURNED], ids=["silu-mul", "f32-inside", "refused"]
)
def test_on_the_cpu_the_program_with_epilogues_is_the_program_without_bit_for_bit(
    text: str,
) -> None:
    with_epilogue, without = _lowered(text), _lowered(text, gemv_epilogue=False)
    inputs = seeded_inputs(with_epilogue, 0)
    got, want = load(with_epilogue)(*inputs), load(without)(*inputs)
    for a, b in zip(
        got if isinstance(got, tuple) else (got,),
        want if isinstance(want, tuple) else (want,),
        strict=True,
    ):
        assert torch.equal(a, b)


def test_epilogues_are_the_same_in_every_process(tmp_path: Path) -> None:
    path = tmp_path / "mlp.mlir"
    path.write_text(SILU_MUL)
    (text,) = lumir_opt_outputs([str(path), "-p", "lumir-pipeline"], ("1", "2"))
    (group,) = _groups(text)
    assert group.epilogue() is not None


@pytest.mark.skipif(
    triton_interpreter_available() is not None, reason=str(triton_interpreter_available())
)
@pytest.mark.parametrize(("name", "text"), [("silu-mul", SILU_MUL), ("f32-inside", F32_INSIDE)])
def test_the_one_kernel_writes_the_bits_of_the_group_and_the_fused_kernel_under_the_interpreter(
    name: str, text: str, tmp_path: Path
) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    done = run_in_interpreter(path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    epilogues = [line for line in lines if "epilogue" in line]
    assert epilogues == [{"epilogue": ["@plan0", "@plan1"], "bit_identical": True}], lines


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("text", [SILU_MUL, F32_INSIDE], ids=["silu-mul", "f32-inside"])
def test_on_cuda_the_one_kernel_gives_the_two_launches_bits(text: str) -> None:
    from lumir.runtime.cuda_cublaslt import cublaslt_available
    from lumir.runtime.gemv_epilogue import GemvEpiloguePlan

    if not cublaslt_available():
        pytest.skip("needs nvmath-python")
    pytest.importorskip("triton")
    with_epilogue, without = _lowered(text), _lowered(text, gemv_epilogue=False)
    on, off = load(with_epilogue, device="cuda"), load(without, device="cuda")
    assert any(isinstance(plan, GemvEpiloguePlan) for plan in on.plans)
    assert len(on.launches) == len(off.launches) - 1
    for seed in (0, 1):  # the first call captures the graphs, the second replays them
        inputs = [t.cuda() for t in seeded_inputs(without, seed)]
        assert torch.equal(on(*inputs), off(*inputs))
    on.close()
    off.close()


def _compile_for_hopper(kernel, signature: dict, constants: dict) -> str | None:
    """The PTX of `kernel` compiled for an H100/H200 target on the CPU, as the GPU would
    compile it at its first launch (None where this machine has no ptxas: the front end
    still ran). Every pointer is known 16-byte aligned, as torch's allocations are and
    as a launch tells the compiler: Triton 3.6's layout pass failed on an H100 for a
    kernel that compiled here without that knowledge."""
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from lumir.runtime.fused_kernels import FP_FUSION

    names = kernel.arg_names
    aligned = {
        (names.index(name),): [["tt.divisibility", 16]]
        for name, kind in signature.items()
        if isinstance(kind, str) and kind.startswith("*")  # not inside a tuple argument
    }
    full = {**signature, **dict.fromkeys(constants, "constexpr")}
    source = ASTSource(kernel, full, constants, aligned)
    options = {"num_warps": 2, "enable_fp_fusion": FP_FUSION, "launch_pdl": True}
    try:
        compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options)
    except RuntimeError as error:
        if "ptxas" not in str(error).lower():
            raise
        return None
    return compiled.asm["ptx"]


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
@pytest.mark.parametrize("text", [SILU_MUL, F32_INSIDE], ids=["silu-mul", "f32-inside"])
def test_the_one_kernel_compiles_for_hopper(text: str, tmp_path: Path) -> None:
    """The interpreter runs Python, not Triton's compiler: the generated kernel must also
    compile for the GPU, with its sums as fused multiply-adds and the PDL wait."""
    from lumir.runtime.fused_kernels import compile_text
    from lumir.runtime.triton_codegen import EpilogueMember, generate_gemv_epilogue

    (group,) = _groups(_lowered(text))
    epilogue = group.epilogue()
    assert epilogue is not None
    elements = [member.d.type.element_type.name for member in group.members()]  # type: ignore[attr-defined]
    members = tuple(EpilogueMember(False, False, element) for element in elements)
    kernel = compile_text(generate_gemv_epilogue(epilogue.body.block, members, [0, 1]))
    d = "*bf16" if elements[0] == "bf16" else "*fp32"
    signature = {"x": "*bf16", "k": "i32", "stride_x": "i32", "m": "i32", "out0": "*bf16"}
    for i in range(2):
        signature |= {f"a{i}": "*bf16", f"c{i}": d, f"bias{i}": d, f"alpha{i}": "fp32"}
        signature |= {f"beta{i}": "fp32"}
        signature |= {f"stride_{n}{i}": "i32" for n in ("am", "ak", "c", "bias")}
    signature = {name: signature[name] for name in kernel.arg_names if name in signature}
    ptx = _compile_for_hopper(kernel, signature, {"BLOCK_M": 2, "BLOCK_K": 2048, "PDL": True})
    if ptx is not None:
        assert "fma.rn.f32" in ptx and "griddepcontrol.wait" in ptx


@pytest.mark.skipif(triton_interpreter_available() is not None, reason="needs triton")
@pytest.mark.parametrize("prefetch", [False, True])
def test_the_gemv_kernels_compile_for_hopper_with_their_fused_multiply_adds(prefetch: bool) -> None:
    """The single and the grouped GEMV kernel, compiled without contraction as the loader
    compiles them, still sum with fused multiply-adds (`gemv_kernel.gemv_rows`)."""
    from lumir.runtime.gemv_kernel import gemv_kernel, grouped_gemv_kernel

    flags = {"BLOCK_M": 2, "BLOCK_K": 2048, "PDL": True, "PREFETCH_A": prefetch}
    pointers = ("a_ptr", "x_ptr", "c_ptr", "bias_ptr", "d_ptr")
    single = {
        name: "*bf16" if name in pointers else "fp32" if name in ("alpha", "beta") else "i32"
        for name in gemv_kernel.arg_names
        if name not in (*flags, "HAS_C", "HAS_BIAS")
    }
    ptx = _compile_for_hopper(gemv_kernel, single, {**flags, "HAS_C": True, "HAS_BIAS": True})
    assert ptx is None or "fma.rn.f32" in ptx
    members = 3
    grouped = {"x_ptr": "*bf16", "k": "i32", "stride_x": "i32"}
    for name in ("a_ptrs", "c_ptrs", "bias_ptrs", "d_ptrs"):
        grouped[name] = ("*bf16",) * members
    for name in ("ms", "strides_am", "strides_ak", "strides_c", "strides_bias", "strides_d"):
        grouped[name] = ("i32",) * members
    grouped |= {"alphas": ("fp32",) * members, "betas": ("fp32",) * members}
    grouped |= {"starts": ("i32",) * members, "ends": ("i32",) * members}
    constants = {**flags, "MEMBERS": members, "C_MEMBERS": 2, "BIAS_MEMBERS": 1}
    ptx = _compile_for_hopper(grouped_gemv_kernel, grouped, constants)
    assert ptx is None or "fma.rn.f32" in ptx
