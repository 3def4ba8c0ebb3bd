"""The buffer plan and views: shared memory never changes a result.

Random programs of elementwise ops and reshape round trips, some values read long
after they are made, are lowered with and without the buffer plan and run on the CPU
executor: the results must be byte-identical, and the planned program must allocate
less. A launch that would write bytes it reads through a view is refused at load time.
"""

from __future__ import annotations

import random

import pytest
import torch
from xdsl.dialects.func import FuncOp

from lumir.context import lumir_context
from lumir.diagnostics import LumirDiagnosticError
from lumir.parsing import LocatedParser
from lumir.passes.buffer_plan import ALIGNMENT, allocated_bytes, plan_buffers
from lumir.passes.lower_to_cublaslt_rt import LowerToCublasltRtPass
from lumir.runtime import load

T = "tensor<4x64xf32>"  # 1 KiB: a multiple of the plan's alignment, so no padding
FLAT = "tensor<256xf32>"
UNARY = ("hl.exp", "hl.neg", "hl.tanh", "hl.sigmoid")
BINARY = ("hl.add", "hl.mul", "hl.sub", "hl.maximum")


def random_program(seed: int, steps: int = 12) -> str:
    """A function of two [4, 64] inputs; each step reads one or two earlier values (any
    of them, so lifetimes vary), and a few steps go through a reshape round trip."""
    rng = random.Random(seed)
    values = ["%x", "%y"]
    lines = []
    for step in range(steps):
        name = f"%v{step}"
        kind = rng.random()
        if kind < 0.4:
            a = rng.choice(values)
            lines.append(f"{name} = {rng.choice(UNARY)} {a} : {T} -> {T}")
        elif kind < 0.85:
            a, b = rng.choice(values), rng.choice(values)
            lines.append(f"{name} = {rng.choice(BINARY)} {a}, {b} : ({T}, {T}) -> {T}")
        else:
            a = rng.choice(values)
            lines.append(f"{name}f = hl.reshape {a} : {T} -> {FLAT}")
            lines.append(f"{name}e = hl.exp {name}f : {FLAT} -> {FLAT}")
            lines.append(f"{name} = hl.reshape {name}e : {FLAT} -> {T}")
        values.append(name)
    results = [values[-1], rng.choice(values[2:])]
    body = "\n  ".join(lines)
    return (
        f"func.func @f(%x: {T}, %y: {T}) -> ({T}, {T}) {{\n  {body}\n"
        f"  func.return {', '.join(results)} : {T}, {T}\n}}\n"
    )


def lowered(text: str, share: bool):
    module = LocatedParser(lumir_context(), text, "<random>").parse_module()
    LowerToCublasltRtPass(share_buffers=share).apply(lumir_context(), module)
    module.verify()
    return module


def _func(module) -> FuncOp:
    return next(op for op in module.ops if isinstance(op, FuncOp))


def _bytes(tensors) -> list[bytes]:
    return [t.contiguous().view(torch.uint8).numpy().tobytes() for t in tensors]


@pytest.mark.parametrize("seed", range(12))
def test_shared_buffers_give_the_same_bytes(seed: int) -> None:
    text = random_program(seed)
    shared, separate = lowered(text, share=True), lowered(text, share=False)
    generator = torch.Generator().manual_seed(seed)
    inputs = [torch.randn(4, 64, generator=generator) for _ in range(2)]
    assert _bytes(load(shared)(*inputs)) == _bytes(load(separate)(*inputs))
    assert allocated_bytes(_func(shared)) < allocated_bytes(_func(separate))


SIZES = {"s": "tensor<4x64xf32>", "m": "tensor<16x64xf32>", "l": "tensor<32x64xf32>"}


def mixed_size_program(seed: int, steps: int = 16) -> str:
    """A function of one input per size (1, 4 and 8 KiB); each step computes a value of
    one size from earlier values of that size, so sizes and lifetimes both vary."""
    rng = random.Random(seed)
    pools = {size: [f"%{size}"] for size in SIZES}
    lines = []
    for step in range(steps):
        size = rng.choice(sorted(SIZES))
        typ, pool, name = SIZES[size], pools[size], f"%v{step}"
        if rng.random() < 0.5:
            lines.append(f"{name} = {rng.choice(UNARY)} {rng.choice(pool)} : {typ} -> {typ}")
        else:
            a, b = rng.choice(pool), rng.choice(pool)
            lines.append(f"{name} = {rng.choice(BINARY)} {a}, {b} : ({typ}, {typ}) -> {typ}")
        pool.append(name)
    results = [pools[size][-1] for size in sorted(SIZES)]
    types = ", ".join(SIZES[size] for size in sorted(SIZES))
    arguments = ", ".join(f"%{size}: {SIZES[size]}" for size in sorted(SIZES))
    body = "\n  ".join(lines)
    return (
        f"func.func @f({arguments}) -> ({types}) {{\n  {body}\n"
        f"  func.return {', '.join(results)} : {types}\n}}\n"
    )


def _never_shares_live_bytes(placements) -> None:
    assert placements and all(p.offset % ALIGNMENT == 0 for p in placements)
    for index, first in enumerate(placements):  # in program order
        for second in placements[index + 1 :]:
            overlapping = (
                first.offset < second.offset + second.size
                and second.offset < first.offset + first.size
            )
            # Sharing bytes is only allowed once the first is dead.
            assert not overlapping or first.last < _position(second)


@pytest.mark.parametrize("seed", range(24))
def test_mixed_size_programs_share_only_dead_bytes_and_give_the_same_bytes(seed: int) -> None:
    text = mixed_size_program(seed)
    separate = lowered(text, share=False)
    size, placements = plan_buffers(_func(separate))
    _never_shares_live_bytes(placements)
    assert size == max(p.offset + p.size for p in placements)
    generator = torch.Generator().manual_seed(seed)
    inputs = [torch.randn(rows, 64, generator=generator) for rows in (32, 16, 4)]
    shared = lowered(text, share=True)
    assert _bytes(load(shared)(*inputs)) == _bytes(load(separate)(*inputs))


def test_the_plan_is_aligned_and_never_shares_live_bytes() -> None:
    module = lowered(random_program(3), share=False)
    size, placements = plan_buffers(_func(module))
    _never_shares_live_bytes(placements)
    assert size == max(p.offset + p.size for p in placements)


HOLE = """
func.func @f(%m: tensor<16x64xf32>, %s: tensor<4x64xf32>, %l: tensor<32x64xf32>)
    -> (tensor<16x64xf32>, tensor<32x64xf32>, tensor<4x64xf32>) {
  %a = hl.exp %m : tensor<16x64xf32> -> tensor<16x64xf32>
  %small = hl.exp %s : tensor<4x64xf32> -> tensor<4x64xf32>
  %r1 = hl.neg %a : tensor<16x64xf32> -> tensor<16x64xf32>
  %b = hl.exp %l : tensor<32x64xf32> -> tensor<32x64xf32>
  %r2 = hl.neg %b : tensor<32x64xf32> -> tensor<32x64xf32>
  %r3 = hl.neg %small : tensor<4x64xf32> -> tensor<4x64xf32>
  func.return %r1, %r2, %r3 : tensor<16x64xf32>, tensor<32x64xf32>, tensor<4x64xf32>
}
"""


def test_largest_first_closes_the_hole_a_small_long_lived_buffer_leaves() -> None:
    """In program order %a (4 KiB) takes 0, %small (1 KiB, live to the end) 4 KiB, and
    %b (8 KiB, after %a died) no longer fits below %small: 13 KiB. Largest first, %b and
    %a share 0 and %small goes above them: 9 KiB."""
    size, placements = plan_buffers(_func(lowered(HOLE, share=False)))
    assert size == 9 * 1024
    offsets = {p.size: p.offset for p in placements}
    assert offsets == {8192: 0, 4096: 0, 1024: 8192}
    inputs = [torch.randn(rows, 64) for rows in (16, 4, 32)]
    shared, separate = lowered(HOLE, share=True), lowered(HOLE, share=False)
    assert _bytes(load(shared)(*inputs)) == _bytes(load(separate)(*inputs))


def _position(placement) -> int:
    ops = list(placement.alloc.parent_block().ops)
    return ops.index(placement.alloc)


def test_the_same_program_gets_the_same_plan() -> None:
    text = random_program(5)
    printed = {str(lowered(text, share=True)) for _ in range(3)}
    assert len(printed) == 1


OVERLAPPING = """
func.func @f(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %a = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.launch "hl.exp" ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  %r = cublaslt_rt.alloc : memref<4x8xf32>
  %c = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.launch "hl.neg" ins(%a : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  cublaslt_rt.launch "hl.exp" ins(%c : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  func.return %r : memref<4x8xf32>
}
"""


def test_a_launch_writing_bytes_it_reads_is_refused_at_load() -> None:
    """%c (bytes 128..256) and %a (0..128) are apart; shift %c onto %a and it is refused."""
    load(OVERLAPPING)
    clashing = OVERLAPPING.replace("byte_offset = 128", "byte_offset = 64")
    with pytest.raises(LumirDiagnosticError, match="writes bytes it also reads") as caught:
        load(clashing)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.location is not None and diagnostic.location.line == 8


W = "tensor<64x64xf32>"


def gated_program(seed: int, steps: int = 10) -> str:
    """A function of an input and two weights: elementwise steps between matmuls (which
    fuse-kernels cannot fuse across), each reading one or two earlier values, so fused
    launches whose inputs die there (in place) mix with ones whose inputs live on."""
    rng = random.Random(seed)
    values = ["%x"]
    lines = []
    for step in range(steps):
        name = f"%v{step}"
        kind = rng.random()
        if kind < 0.3:
            weight = rng.choice(["%w0", "%w1"])
            lines.append(f"{name} = hl.matmul {rng.choice(values)}, {weight} : ({T}, {W}) -> {T}")
        elif kind < 0.6:
            op = rng.choice(UNARY)
            lines.append(f"{name} = {op} {rng.choice(values[-2:])} : {T} -> {T}")
        else:
            a, b = rng.choice(values[-3:]), rng.choice(values)
            lines.append(f"{name} = {rng.choice(BINARY)} {a}, {b} : ({T}, {T}) -> {T}")
        values.append(name)
    body = "\n  ".join(lines)
    return (
        f"func.func @f(%x: {T}, %w0: {W}, %w1: {W}) -> {T} {{\n  {body}\n"
        f"  func.return {values[-1]} : {T}\n}}\n"
    )


def _in_place_launches(module) -> int:
    """Fused launches that write an output over exactly the bytes of one of their inputs."""
    from lumir.dialects.cublaslt_rt import FusedLaunchOp, byte_range

    return sum(
        1
        for op in module.walk()
        if isinstance(op, FusedLaunchOp)
        for output in op.outputs
        if any(byte_range(output) == byte_range(value) for value in op.inputs)
    )


def _fused_and_lowered(text: str, share: bool):
    from lumir.passes.fuse_kernels import FuseKernelsPass
    from lumir.passes.hl_to_cublaslt import HLToCublasltPass

    module = LocatedParser(lumir_context(), text, "<random>").parse_module()
    for step in (HLToCublasltPass(), FuseKernelsPass(), LowerToCublasltRtPass(share_buffers=share)):
        step.apply(lumir_context(), module)
    module.verify()
    return module


def test_outputs_written_in_place_give_the_same_bytes() -> None:
    """Random gated programs, fused: the planned program (fused launches writing over
    inputs that die there) computes exactly what the program of separate buffers does."""
    in_place = 0
    for seed in range(64):
        text = gated_program(seed)
        shared, separate = _fused_and_lowered(text, True), _fused_and_lowered(text, False)
        generator = torch.Generator().manual_seed(seed)
        inputs = [0.3 * torch.randn(4, 64, generator=generator)]
        inputs += [0.2 * torch.randn(64, 64, generator=generator) for _ in range(2)]
        assert _bytes(load(shared)(*inputs)) == _bytes(load(separate)(*inputs)), text
        in_place += _in_place_launches(shared)
        assert _in_place_launches(separate) == 0
    assert in_place >= 16  # the rule is exercised, not just allowed


IN_PLACE = """
func.func @f(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %a = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.launch "hl.exp" ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  %b = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%a, %x : memref<4x8xf32>, memref<4x8xf32>)
      outs(%b : memref<4x8xf32>) {
  ^bb0(%a_1: tensor<4x8xf32>, %x_1: tensor<4x8xf32>):
    %s = hl.silu %a_1 : tensor<4x8xf32> -> tensor<4x8xf32>
    %m = hl.mul %s, %x_1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    hl.yield %m : tensor<4x8xf32>
  }
  %r = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.launch "hl.neg" ins(%b : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  func.return %r : memref<4x8xf32>
}
"""


def test_a_fused_launch_may_write_exactly_over_an_input_it_reads_elementwise() -> None:
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(0))
    got = load(IN_PLACE)(x)
    torch.testing.assert_close(got, -(torch.nn.functional.silu(x.exp()) * x))
    shifted = IN_PLACE.replace(
        "%b = cublaslt_rt.view %arena {byte_offset = 0",
        "%b = cublaslt_rt.view %arena {byte_offset = 64",
    )
    summed = IN_PLACE.replace(
        "%m = hl.mul %s, %x_1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>",
        "%t = hl.sum %s {dims = array<i64: -1>, keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>\n"
        "    %m = hl.mul %t, %x_1 : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>",
    )
    for refused in (shifted, summed):  # part of the input's bytes; a reduction in the body
        with pytest.raises(LumirDiagnosticError, match="writes bytes it also reads"):
            load(refused)
    # The same buffer named as input and output (no views) is the same case.
    same = IN_PLACE.replace("outs(%b : memref<4x8xf32>)", "outs(%a : memref<4x8xf32>)")
    same = same.replace("ins(%b : memref<4x8xf32>) outs(%r", "ins(%a : memref<4x8xf32>) outs(%r")
    torch.testing.assert_close(load(same)(x), got, rtol=0, atol=0)
    with pytest.raises(LumirDiagnosticError, match="only an elementwise body may do"):
        load(
            same.replace(
                "%m = hl.mul %s, %x_1",
                "%n = hl.softmax %s {dim = -1 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>\n"
                "    %m = hl.mul %n, %x_1",
            )
        )
