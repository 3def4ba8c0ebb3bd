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


def test_the_plan_is_first_fit_and_aligned() -> None:
    module = lowered(random_program(3), share=False)
    size, placements = plan_buffers(_func(module))
    assert placements and all(p.offset % ALIGNMENT == 0 for p in placements)
    for index, first in enumerate(placements):
        for second in placements[index + 1 :]:
            overlapping = (
                first.offset < second.offset + second.size
                and second.offset < first.offset + first.size
            )
            # Sharing bytes is only allowed once the first is dead.
            assert not overlapping or first.last < _position(second)
    assert size == max(p.offset + p.size for p in placements)


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
