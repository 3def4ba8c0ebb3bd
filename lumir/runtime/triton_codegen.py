"""Triton source text for a fused body: one kernel program per row of the row domain.

A fused body is a row program (`lumir.dialects.hl.fused`): every value is a full row
(last dimension = `hidden`) or one scalar per row (last dimension 1), broadcast along
leading dimensions where its shape has 1s. The kernel loads each input's row (or
scalar) into f32, computes op by op in f32, rounding after every op whose result type
is bf16 or f16 (what torch does per op), reduces with `tl.sum` / `tl.max` over the
masked lanes of a `BLOCK` = next power of two >= hidden, and stores each result in its
own element type.

The text depends only on the body (shapes, types, ops, literals), never on addresses
or dict order, so it is the key under which `lumir.runtime.fused_kernels` caches the
compiled kernel. Nothing here imports triton: generating is plain string work, which CI
checks without a GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from lumir.dialects import hl
from lumir.dialects.hl.fused import row_domain
from lumir.runtime.buffers import constant_tensor

KERNEL_NAME = "lumir_fused"

_TL_TYPES = {"f32": "tl.float32", "bf16": "tl.bfloat16", "f16": "tl.float16"}


class CodegenError(ValueError):
    """The body uses something the generator does not emit (the verifier should stop it)."""


@dataclass(frozen=True)
class FusedKernelSource:
    """A generated kernel: its text and how to launch it."""

    text: str
    """Python source defining `@triton.jit def lumir_fused(in0, ..., out0, ..., BLOCK)`."""
    rows: int
    """The grid: one program per row."""
    block: int
    """The BLOCK constexpr (a power of two >= hidden)."""


def _shape(value: SSAValue) -> tuple[int, ...]:
    typ = value.type
    assert isinstance(typ, TensorType)
    return tuple(typ.get_shape())


def _element(value: SSAValue) -> str:
    typ = value.type
    assert isinstance(typ, TensorType)
    return typ.element_type.name


def _row_offset(shape: tuple[int, ...], domain: tuple[int, ...]) -> str:
    """The element offset of row `row`'s part of a dense tensor of `shape`."""
    lead = domain[:-1]
    padded = (1,) * (len(domain) - len(shape)) + shape
    strides = [math.prod(padded[i + 1 :]) for i in range(len(padded))]
    terms = []
    for index, size in enumerate(lead):
        if padded[index] == 1 or size == 1:
            continue
        inner = math.prod(lead[index + 1 :])
        position = "row" if inner == 1 else f"(row // {inner})"
        if index > 0 and math.prod(lead[:index]) > 1:
            position = f"({position} % {size})"
        terms.append(position if strides[index] == 1 else f"{position} * {strides[index]}")
    return " + ".join(terms) if terms else "0"


def _literal(op: hl.ConstantOp) -> str:
    value = float(constant_tensor(op.value).reshape(-1)[0].item())
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)


def _pow(base: str, exponent: float) -> str:
    if exponent == 0.5:
        return f"tl.sqrt({base})"
    if exponent == -0.5:
        return f"tl.rsqrt({base})"
    if exponent == int(exponent) and abs(exponent) <= 4:
        n = int(exponent)
        if n == 0:
            return f"({base} * 0.0 + 1.0)"
        product = " * ".join([base] * abs(n))
        return f"({product})" if n > 0 else f"(1.0 / ({product}))"
    return f"tl.exp2(tl.log2({base}) * {exponent!r})"


class _Generator:
    def __init__(self, block: Block):
        terminator = block.last_op
        if not isinstance(terminator, hl.YieldOp):
            raise CodegenError("a fused body ends with hl.yield")
        self.block = block
        self.terminator = terminator
        self.ops = [op for op in block.ops if op is not terminator]
        values = [*block.args, *(r for op in self.ops for r in op.results)]
        self.domain = row_domain(values)
        if not self.domain:
            raise CodegenError("a fused body needs a row domain of rank 1 or more")
        self.hidden = self.domain[-1]
        self.names: dict[SSAValue, str] = {}
        self.literals: dict[SSAValue, float] = {}
        self.lines: list[str] = []

    def _is_row(self, value: SSAValue) -> bool:
        shape = _shape(value)
        return bool(shape) and shape[-1] == self.hidden

    def _define(self, value: SSAValue, expr: str) -> None:
        name = f"v{len(self.names)}"
        self.names[value] = name
        element = _element(value)
        if element != "f32":  # round as torch does after each op of a narrow type
            expr = f"({expr}).to({_TL_TYPES[element]}).to(tl.float32)"
        self.lines.append(f"    {name} = {expr}")

    def generate(self) -> FusedKernelSource:
        args = list(self.block.args)
        outputs = list(self.terminator.values)
        params = [f"in{i}" for i in range(len(args))] + [f"out{i}" for i in range(len(outputs))]
        block_size = 1 << max(0, (self.hidden - 1).bit_length())
        head = [
            "import triton",
            "import triton.language as tl",
            "",
            "",
            "@triton.jit",
            f"def {KERNEL_NAME}({', '.join(params)}, BLOCK: tl.constexpr):",
            "    row = tl.program_id(0).to(tl.int64)",
            "    cols = tl.arange(0, BLOCK)",
            f"    mask = cols < {self.hidden}",
        ]
        for index, arg in enumerate(args):
            self._load(index, arg)
        for op in self.ops:
            self._emit(op)
        for index, value in enumerate(outputs):
            self._store(index, value)
        text = "\n".join([*head, *self.lines, ""])
        rows = math.prod(self.domain[:-1])
        return FusedKernelSource(text, rows, block_size)

    def _load(self, index: int, arg: SSAValue) -> None:
        offset = _row_offset(_shape(arg), self.domain)
        name = f"v{len(self.names)}"
        self.names[arg] = name
        if self._is_row(arg):
            row_base = offset  # _row_offset already counts the row stride
            load = f"tl.load(in{index} + {row_base} + cols, mask=mask, other=0.0)"
        else:
            load = f"tl.load(in{index} + {offset})"
        self.lines.append(f"    {name} = {load}.to(tl.float32)")

    def _store(self, index: int, value: SSAValue) -> None:
        shape = _shape(value)
        offset = _row_offset(shape, self.domain)
        element = _TL_TYPES[_element(value)]
        source = self.names[value]
        if self._is_row(value):
            row_base = offset  # _row_offset already counts the row stride
            self.lines.append(
                f"    tl.store(out{index} + {row_base} + cols, {source}.to({element}), mask=mask)"
            )
        else:
            self.lines.append(f"    tl.store(out{index} + {offset}, {source}.to({element}))")

    def _operand(self, value: SSAValue) -> str:
        return self.names[value]

    def _emit(self, op: Operation) -> None:
        if isinstance(op, hl.ConstantOp):
            self.literals[op.results[0]] = float(constant_tensor(op.value).reshape(-1)[0])
            self.names[op.results[0]] = _literal(op)
            return
        result = op.results[0]
        operands = [self._operand(v) for v in op.operands]
        expr = self._expr(op, operands)
        if op.name in ("hl.sum", "hl.mean", "hl.amax") and self._is_row(result):
            expr = f"tl.zeros([BLOCK], dtype=tl.float32) + ({expr})"  # hidden == 1
        self._define(result, expr)

    def _expr(self, op: Operation, x: list[str]) -> str:
        binary = {"hl.add": "+", "hl.sub": "-", "hl.mul": "*", "hl.div": "/"}
        name = op.name
        if name in binary:
            return f"{x[0]} {binary[name]} {x[1]}"
        if name == "hl.maximum":
            return f"tl.maximum({x[0]}, {x[1]})"
        if name == "hl.pow":
            exponent = self.literals.get(op.operands[1])
            if exponent is None:
                raise CodegenError("hl.pow in a fused kernel needs a literal exponent")
            return _pow(x[0], exponent)
        unary = {
            "hl.neg": "-{0}",
            "hl.rsqrt": "tl.rsqrt({0})",
            "hl.sqrt": "tl.sqrt({0})",
            "hl.exp": "tl.exp({0})",
            "hl.relu": "tl.maximum({0}, 0.0)",
            "hl.silu": "{0} * tl.sigmoid({0})",
            "hl.sigmoid": "tl.sigmoid({0})",
            "hl.tanh": "2.0 * tl.sigmoid(2.0 * {0}) - 1.0",
            "hl.cast": "{0}",
        }
        if name in unary:
            return unary[name].format(x[0])
        if name == "hl.sum":
            return f"tl.sum(tl.where(mask, {x[0]}, 0.0), axis=0)"
        if name == "hl.mean":
            return f"tl.sum(tl.where(mask, {x[0]}, 0.0), axis=0) / {float(self.hidden)!r}"
        if name == "hl.amax":
            return f'tl.max(tl.where(mask, {x[0]}, float("-inf")), axis=0)'
        if name == "hl.softmax":
            peak = f'tl.max(tl.where(mask, {x[0]}, float("-inf")), axis=0)'
            e = f"e{len(self.names)}"
            self.lines.append(f"    {e} = tl.where(mask, tl.exp({x[0]} - {peak}), 0.0)")
            return f"{e} / tl.sum({e}, axis=0)"
        raise CodegenError(f"no Triton code for '{name}' in a fused kernel")


def generate(block: Block) -> FusedKernelSource:
    """The Triton kernel computing a fused body (`hl.fused` or `cublaslt_rt.fused_launch`)."""
    return _Generator(block).generate()


__all__ = ["KERNEL_NAME", "CodegenError", "FusedKernelSource", "generate"]
