"""Encode one xDSL block as egglog facts over the term language of `rules/base.egg`.

The ops the rules reason about (`cublaslt.matmul` and the hl ops around it: add, mul,
relu, gelu, cast, transpose, reshape) become terms; every other value the block reads
becomes an opaque `Leaf` whose key is its position (block argument, op index and result
number, or order of first use for values from outside the block). Positions, never
`id()` or hashes, so the same block always gives the same program text, byte for byte.

Every value gets its type as a `ty` fact, program casts a `cast-site` fact, and splat
constants a `splat` fact: the guards of the rules read those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from lumir.cublaslt_enums import DataType
from lumir.dialects import hl
from lumir.dialects.cublaslt import MatmulOp
from lumir.egraph_bridge.sorts import DTYPE, egg_string
from lumir.egraph_bridge.terms import (
    TENSOR_SIGNATURES,
    CallFields,
    egg_float,
    shape_text,
    sort_literal,
)
from lumir.matmul_descriptor import TERM_FIELDS
from lumir.verifier import matmul_diagnostics


@dataclass(frozen=True)
class TermOp:
    """An op the pass rewrites, and the term the encoder wrote for it.

    `operands` are value indices (None for an absent optional operand); together with
    `kind` and `fields` they identify the op's own e-node after saturation, so the
    decoder can keep the op as written when the extractor chooses it.
    """

    op: Operation
    index: int
    kind: str
    fields: tuple[object, ...]
    operands: tuple[int | None, ...]


@dataclass
class EncodedBlock:
    """A block as egglog facts, and what is needed to map terms back to IR."""

    block: Block
    values: list[SSAValue] = field(default_factory=list)
    """Value index -> SSA value (leaves and term results alike)."""
    leaves: dict[str, SSAValue] = field(default_factory=dict)
    """Leaf key -> the SSA value it stands for."""
    term_ops: list[TermOp] = field(default_factory=list)
    """The ops replaced by terms, in block order."""
    facts: list[str] = field(default_factory=list)
    """The egglog commands that build the block's terms."""

    @property
    def program(self) -> str:
        """The facts as one egglog program text."""
        return "\n".join(self.facts) + "\n"


def tensor_type(value: SSAValue) -> TensorType[Attribute] | None:
    """The value's tensor type, or None for a non-tensor value."""
    return value.type if isinstance(value.type, TensorType) else None


def dtype_text(element_type: Attribute) -> str:
    """The dtype name the rules compare: cuBLASLt's (`bf16`) or the MLIR spelling."""
    dtype = DataType.from_element_type(element_type)
    return dtype.value if dtype is not None else str(element_type)


def ty_term(tensor: TensorType[Attribute]) -> str:
    """The `(Ty dtype shape rank last-dim)` term of a tensor type."""
    shape = tensor.get_shape()
    last = shape[-1] if shape else 0
    return (
        f"(Ty {DTYPE.term(dtype_text(tensor.element_type))} {egg_string(shape_text(shape))} "
        f"{len(shape)} {last})"
    )


def _static(value: SSAValue) -> bool:
    tensor = tensor_type(value)
    return tensor is not None and all(dim >= 0 for dim in tensor.get_shape())


def call_fields(op: MatmulOp) -> CallFields:
    """The rewritable part of a `cublaslt.matmul`'s descriptor, as the term holds it."""
    desc = op.descriptor()
    values = {f.name: getattr(desc, f.name) for f in TERM_FIELDS}
    return CallFields(
        **{
            f.name: values[f.name].value if f.enum is not None else float(values[f.name]) + 0.0
            for f in TERM_FIELDS
        }
    )


def _matmul_term(op: MatmulOp) -> tuple[str, tuple[object, ...], list[SSAValue | None]] | None:
    """A legal matmul with static shapes and finite scales; anything else stays opaque."""
    operands = [op.a, op.b, op.c, op.bias, op.d]
    if not all(_static(v) for v in operands if v is not None):
        return None
    if matmul_diagnostics(op):
        return None
    fields = call_fields(op)
    if not (math.isfinite(fields.alpha) and math.isfinite(fields.beta)):
        return None
    return "Matmul", (fields,), [op.a, op.b, op.c, op.bias]


def term_of(op: Operation) -> tuple[str, tuple[object, ...], list[SSAValue | None]] | None:
    """(constructor, fields, operands) of an op the rules rewrite, or None if opaque."""
    if isinstance(op, MatmulOp):
        return _matmul_term(op)
    if len(op.results) != 1 or tensor_type(op.results[0]) is None:
        return None
    if not all(tensor_type(v) is not None for v in op.operands):
        return None
    if isinstance(op, hl.AddOp):
        return "Add", (), [op.lhs, op.rhs]
    if isinstance(op, hl.MulOp):
        return "Mul", (), [op.lhs, op.rhs]
    if isinstance(op, hl.ReluOp):
        return "Relu", (), [op.input]
    if isinstance(op, hl.GeluOp):
        return "Gelu", (op.approximate.data,), [op.input]
    if isinstance(op, hl.CastOp):
        result = tensor_type(op.result)
        assert result is not None
        if DataType.from_element_type(result.element_type) is None:
            return None
        return "Cast", (dtype_text(result.element_type),), [op.input]
    if isinstance(op, hl.TransposeOp):
        permutation = ",".join(str(int(p)) for p in op.permutation.get_values())
        return "Transpose", (permutation,), [op.input]
    if isinstance(op, hl.ReshapeOp):
        result = tensor_type(op.result)
        assert result is not None
        if not _static(op.result):
            return None
        return "Reshape", (shape_text(result.get_shape()),), [op.input]
    return None


def splat_value(op: Operation) -> float | None:
    """The value of a finite floating-point splat `hl.constant`, else None."""
    if not isinstance(op, hl.ConstantOp):
        return None
    value = op.value
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return None
    first = hl.splat_element(value)
    if not isinstance(first, float) or not math.isfinite(first):
        return None
    return first


def has_call(block: Block) -> bool:
    """True when the block holds a cublaslt.matmul (otherwise there is nothing to fuse)."""
    return any(isinstance(op, MatmulOp) for op in block.ops)


class _Encoder:
    """Numbers the block's values in first-use order and writes their facts."""

    def __init__(self, block: Block):
        self.encoded = EncodedBlock(block)
        self.index_of: dict[SSAValue, int] = {}
        self.position: dict[Operation, int] = {op: i for i, op in enumerate(block.ops)}
        self.outside = 0

    def leaf_key(self, value: SSAValue) -> str:
        block = self.encoded.block
        if isinstance(value, BlockArgument) and value.block is block:
            return f"a{value.index}"
        owner = value.owner
        if isinstance(owner, Operation) and owner in self.position:
            return f"v{self.position[owner]}.{owner.results.index(value)}"
        self.outside += 1
        return f"x{self.outside - 1}"

    def new_value(self, value: SSAValue, term: str) -> int:
        encoded = self.encoded
        index = len(encoded.values)
        encoded.values.append(value)
        self.index_of[value] = index
        encoded.facts.append(f"(set (value {index}) {term})")
        tensor = tensor_type(value)
        assert tensor is not None, "only tensors are encoded"
        encoded.facts.append(f"(set (ty (value {index})) {ty_term(tensor)})")
        return index

    def operand(self, value: SSAValue) -> int:
        """The index of an operand, numbering it as a leaf on first sight."""
        if value in self.index_of:
            return self.index_of[value]
        key = self.leaf_key(value)
        self.encoded.leaves[key] = value
        index = self.new_value(value, f"(Leaf {egg_string(key)})")
        owner = value.owner
        splat = splat_value(owner) if isinstance(owner, Operation) else None
        if splat is not None:
            self.encoded.facts.append(f"(set (splat (value {index})) {egg_float(splat)})")
        return index

    def encode(self, op: Operation) -> None:
        term = term_of(op)
        if term is None:
            return
        kind, fields, operands = term
        indices = tuple(None if v is None else self.operand(v) for v in operands)
        text = _term_text(kind, fields, indices)
        index = self.new_value(op.results[0], text)
        if kind == "Cast":
            self.encoded.facts.append(f"(cast-site (value {index}))")
        self.encoded.term_ops.append(TermOp(op, index, kind, fields, indices))


def _ref(index: int | None) -> str:
    return f"(value {index})"


def _opt(index: int | None) -> str:
    return "(NoTensor)" if index is None else f"(SomeTensor {_ref(index)})"


def _term_text(kind: str, fields: tuple[object, ...], operands: tuple[int | None, ...]) -> str:
    if kind == "Matmul":
        (call,) = fields
        assert isinstance(call, CallFields)
        a, b, c, bias = operands
        return f"(Matmul {call.call_term([_ref(a), _ref(b), _opt(c), _opt(bias)])})"
    args = " ".join(_ref(i) for i in operands)
    sorts = TENSOR_SIGNATURES[kind][len(operands) :]
    extra = "".join(f" {sort_literal(sort, f)}" for sort, f in zip(sorts, fields, strict=True))
    return f"({kind} {args}{extra})"


def encode_block(block: Block) -> EncodedBlock:
    """The block's terms and facts; ops the rules do not rewrite become leaves."""
    encoder = _Encoder(block)
    for op in block.ops:
        encoder.encode(op)
    return encoder.encoded
