"""The run phase writes into its buffers: same bytes as the functional kernels, no copies.

Every `hl` op of the round-trip lit tests (`test/lit/hl/*.mlir`, the valid cases) is run
twice on the same random inputs: through `bind_kernel` (the functional torch call the
reference interpreter uses) and through `bind_into_kernel` (what a loaded program's
launch runs, writing into its output buffer). The results must be bit-identical. Then a
whole loaded program runs under torch's profiler and must not run `aten::copy_` in the
run phase beyond the inputs it binds and the outputs it hands back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, ModuleOp, TensorType, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError, VerifyException

from lumir.context import lumir_context
from lumir.dialects.cublaslt_rt import LaunchOp, MatmulOp, tensor_of
from lumir.parsing import LocatedParser
from lumir.runtime import load
from lumir.runtime.buffers import shaped_type_parts
from lumir.runtime.cuda_cublaslt import cublaslt_available
from lumir.runtime.hl_torch import INTO_KERNELS, KERNELS, bind_into_kernel, bind_kernel

REPO = Path(__file__).resolve().parents[2]
HL_TESTS = REPO / "test" / "lit" / "hl"


NOT_KERNELS = {"hl.constant", "hl.fused", "hl.yield"}
"""Ops with no torch kernel: a constant is data, `hl.fused` runs its body's kernels."""


def _valid_hl_ops() -> list[tuple[str, Operation]]:
    """(case id, op) for every hl op in a chunk of the hl lit tests that parses and verifies."""
    found: list[tuple[str, Operation]] = []
    for path in sorted(HL_TESTS.glob("*.mlir")):
        if path.stem.endswith("-invalid"):
            continue
        for index, chunk in enumerate(path.read_text().split("// -----")):
            try:
                module = LocatedParser(lumir_context(), chunk, path.name).parse_module()
                module.verify()
            except (ParseError, VerifyException):
                continue
            for op in module.walk():
                if op.dialect_name() == "hl" and op.name not in NOT_KERNELS:
                    found.append((f"{path.stem}-{index}-{op.name}", op))
    return found


HL_OPS = _valid_hl_ops()

INTEGER_DIVISIONS = ("hl.floor_divide", "hl.remainder")


def _random_input(value_type: TensorType, generator: torch.Generator) -> torch.Tensor:
    shape, dtype = shaped_type_parts(value_type)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    if isinstance(value_type.element_type, IntegerType):
        # Small non-negative integers: valid embedding indices into any table in the tests.
        return torch.randint(0, 3, shape, generator=generator).to(dtype)
    return torch.randn(shape, generator=generator).to(dtype)


def _bytes(tensor: torch.Tensor) -> bytes:
    return tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def test_the_hl_tests_cover_every_into_kernel() -> None:
    assert {op.name for _, op in HL_OPS} >= set(INTO_KERNELS)
    assert set(INTO_KERNELS) <= set(KERNELS)


@pytest.mark.parametrize("op", [op for _, op in HL_OPS], ids=[name for name, _ in HL_OPS])
def test_into_kernel_is_bit_identical_to_the_functional_kernel(op: Operation) -> None:
    generator = torch.Generator().manual_seed(0)
    inputs = [_random_input(operand.type, generator) for operand in op.operands]
    if op.name in INTEGER_DIVISIONS:  # a nonzero divisor (torch raises on zero, as eager
        inputs = [inputs[0] - 1, inputs[1] + 1]  # does), and dividends of both signs
    shape, dtype = shaped_type_parts(op.results[0].type)
    want = bind_kernel(op.name, op.properties, shape, dtype)(*inputs)
    output = torch.full(shape, 7, dtype=dtype)  # not zeros: every element must be written
    kernel, direct = bind_into_kernel(op.name, op.properties, inputs, output)
    kernel(output, *inputs)
    assert output.dtype == want.dtype and output.shape == want.shape
    assert _bytes(output) == _bytes(want)
    # Every op with an out= form uses it here: these cases compute in the result's dtype.
    assert direct == (op.name in INTO_KERNELS)


def test_a_result_in_another_dtype_falls_back_to_a_converting_copy() -> None:
    """An i32 sum is i64 in torch: the out= form would sum in i32, so the launch converts."""
    values = torch.tensor([[2**30, 2**30], [1, 2]], dtype=torch.int32)
    output = torch.empty(2, dtype=torch.int32)
    properties = {"dims": DenseArrayBase.from_list(i64, [1])}
    kernel, direct = bind_into_kernel("hl.sum", properties, [values], output)
    kernel(output, values)
    assert not direct
    want = bind_kernel("hl.sum", properties, (2,), torch.int32)(values)
    assert torch.equal(output, want)


RESIDUAL_BLOCK = """
func.func @block(%x: tensor<6x64xbf16>, %g: tensor<64xbf16>,
                 %w: tensor<64x64xbf16>) -> tensor<6x64xbf16> {
  %xf = hl.cast %x : tensor<6x64xbf16> -> tensor<6x64xf32>
  %sq = hl.mul %xf, %xf : (tensor<6x64xf32>, tensor<6x64xf32>) -> tensor<6x64xf32>
  %ms = hl.mean %sq {dims = array<i64: -1>, keepdim} : tensor<6x64xf32> -> tensor<6x1xf32>
  %eps = hl.constant {value = dense<1.0e-05> : tensor<f32>} : tensor<f32>
  %v = hl.add %ms, %eps : (tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
  %inv = hl.rsqrt %v : tensor<6x1xf32> -> tensor<6x1xf32>
  %nf = hl.mul %xf, %inv : (tensor<6x64xf32>, tensor<6x1xf32>) -> tensor<6x64xf32>
  %n = hl.cast %nf : tensor<6x64xf32> -> tensor<6x64xbf16>
  %h = hl.mul %g, %n : (tensor<64xbf16>, tensor<6x64xbf16>) -> tensor<6x64xbf16>
  %y = hl.linear %h, %w : tensor<6x64xbf16>, tensor<64x64xbf16> -> tensor<6x64xbf16>
  %s = hl.silu %y : tensor<6x64xbf16> -> tensor<6x64xbf16>
  %r = hl.add %s, %x : (tensor<6x64xbf16>, tensor<6x64xbf16>) -> tensor<6x64xbf16>
  func.return %r : tensor<6x64xbf16>
}
"""


def _compiled(text: str) -> ModuleOp:
    """The pipeline without fuse-kernels: these tests are about plain launches."""
    from xdsl.passes import PassPipeline

    from lumir.passes import available_passes

    module = LocatedParser(lumir_context(), text, "<block>").parse_module()
    passes = available_passes()
    pipeline = passes["lumir-pipeline"]()(fuse_kernels=False)
    PassPipeline((pipeline,)).apply(lumir_context(), module)
    assert any(isinstance(op, FuncOp) for op in module.ops)
    return module


def _copies(run: Callable[[], object]) -> int:
    """How many times `run()` calls aten::copy_ (directly or inside torch)."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run()
    return sum(event.count for event in prof.key_averages() if event.key == "aten::copy_")


def test_each_launch_copies_no_more_than_its_functional_kernel() -> None:
    """Before destination passing every launch was its kernel plus one copy_ into the
    buffer; now a launch copies exactly as often as the torch call it runs (a cast is one
    converting copy; CPU mean copies inside torch)."""
    module = _compiled(RESIDUAL_BLOCK)
    program = load(module)
    generator = torch.Generator().manual_seed(1)
    inputs = [torch.randn(s, generator=generator).bfloat16() for s in ((6, 64), (64,), (64, 64))]
    program(*inputs)  # binds the inputs and initialises torch's lazy state
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    steps = [op for op in func.body.block.ops if isinstance(op, LaunchOp | MatmulOp)]
    assert len(steps) == len(program.launches)
    kernel_launches = 0
    for step, launch in zip(steps, program.launches, strict=True):
        if not isinstance(step, LaunchOp):
            continue  # a GEMM: one cuBLASLt call on CUDA, the byte-level reference on CPU
        operands = [_random_input(tensor_of(value.type), generator) for value in step.inputs]
        shape, dtype = shaped_type_parts(step.output.type)
        functional = bind_kernel(step.kernel.data, step.kernel_params(), shape, dtype)
        assert _copies(launch) == _copies(lambda f=functional, xs=operands: f(*xs)), step
        kernel_launches += 1
    assert kernel_launches == 10


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
def test_a_cuda_call_makes_no_device_copy_per_launch() -> None:
    """On the GPU the copies behind launches were `Memcpy DtoD` events (27% of the chain
    block's time on the H200); a replay now has none, and matches the CPU executor."""
    module = _compiled(RESIDUAL_BLOCK)
    cpu, gpu = load(module.clone()), load(module, device="cuda")
    generator = torch.Generator().manual_seed(2)
    inputs = [torch.randn(s, generator=generator).bfloat16() for s in ((6, 64), (64,), (64, 64))]
    want = cpu(*inputs)
    got = gpu(*[x.cuda() for x in inputs])
    torch.testing.assert_close(got.cpu(), want, rtol=2e-2, atol=2e-2)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        gpu(*[x.cuda() for x in inputs])
        torch.cuda.synchronize()
    on_device = [e.name for e in prof.events() if e.device_type == DeviceType.CUDA]
    # Device-to-device copies left are the input bindings and the output clone of
    # `program(...)`, one each, never one per launch.
    copies = [name for name in on_device if "Memcpy DtoD" in name]
    assert len(copies) <= len(inputs) + 1, copies
