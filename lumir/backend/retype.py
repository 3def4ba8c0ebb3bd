"""Specialise a fused program to new sizes without fusing again.

Fusion (equality saturation and extraction) depends on which ops feed which, not on
how long the sequence is. So the backend fuses a graph once, at its first concrete
length, and keeps a `FusedTemplate`: the prepared (pre-fusion) module and the fused
one. For a new length it prepares the graph again (cheap), and when the prepared module
has the same structure as the template's (the same ops, operands, size-independent
properties and literal values, in the same order) it rebuilds the fused module with the
new sizes:

- every value takes the shape of the prepared value with the same name (`name_values`
  named them before fusion and fusion keeps names on the ops it rebuilds), and keeps
  its own element type (fusion may have chosen f32 for it); an op fusion created
  without a name keeps its size when its operands keep theirs, a cast or unary op takes
  its operand's, a binary elementwise op, comparison or `where` the broadcast of its
  operands', a call the shape its operands and descriptor give D, and a reshape
  that merged leading dimensions merges the new ones;
- slices and constants take their new bounds and literals from the prepared module
  (a float literal whose value depends on a size and that a product reads, such as
  `x * x.shape[0]`, makes the structures differ instead: fusion may have folded it into
  a call's alpha or beta, so such a graph fuses once per value; `structure`);
- every `cublaslt.matmul` gets a descriptor re-derived from its new operand shapes
  (m, n, k, leading dimensions, batch count and strides), everything else kept.

The result is verified like any module (V1-V10 included); a template that does not fit
(`RetypeError`) means a full compile for that length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from lumir.diagnostics import verify_module
from lumir.dialects import cublaslt, hl
from lumir.dialects.cublaslt import INT_FIELDS, descriptor_properties
from lumir.dialects.hl.infer import broadcast_shapes
from lumir.egraph_bridge.descriptors import UndecodableCallError, call_descriptor
from lumir.egraph_bridge.encoder import call_fields, splat_value
from lumir.operand_layout import dense_shape, tensor_op_dims
from lumir.runtime.interpreter import find_function

_SIZE_PROPERTIES: dict[str, tuple[str, ...]] = {
    "hl.slice": ("start", "end"),
    "hl.constant": ("value",),
    "hl.arange": ("start", "end", "step"),
    "hl.pad": ("pad",),
    "cublaslt.matmul": INT_FIELDS,
    "func.func": ("function_type",),
}
"""Per op, the properties that depend on sizes (all others must match the template)."""


_SHAPE_PRESERVING = (
    hl.CastOp,
    hl.NegOp,
    hl.RsqrtOp,
    hl.SqrtOp,
    hl.ExpOp,
    hl.ReluOp,
    hl.SiluOp,
    hl.SigmoidOp,
    hl.TanhOp,
    hl.GeluOp,
    hl.CosOp,
    hl.SinOp,
    hl.LogOp,
    hl.Log1pOp,
    hl.Expm1Op,
    hl.ErfOp,
    hl.FloorOp,
    hl.CeilOp,
    hl.RoundOp,
    hl.TruncOp,
    hl.SignOp,
    hl.AtanOp,
    hl.TanOp,
    hl.AbsOp,
    hl.CumulativeOp,
    hl.IndexCopyOp,
)
"""hl ops whose result has their (first) operand's shape."""

_BROADCASTING = (hl.ElementwiseBinaryOp, hl.CompareOp, hl.WhereOp)
"""hl ops whose result has the broadcast shape of their operands (a scale fusion moved
ahead of a reshape: Whisper's `q_proj(x) * scaling`)."""


class RetypeError(ValueError):
    """The template does not fit the module prepared for the new sizes."""


def structure(module: ModuleOp) -> tuple[object, ...]:
    """The module with every size left out: op names, operand wiring, other properties,
    result ranks and element types, and each floating-point splat's value. Two
    preparations of one graph at different lengths have equal structures exactly when
    one fused template serves both.

    The splat values are what cublaslt-fuse reads of literals (`splat_value`: a product
    times a splat becomes the call's alpha, and beta with it), so a float literal that
    depends on a size (`(a @ w) * a.shape[0]`) must not reuse a template fused at
    another value. The fusion rules read a splat only as a factor of an `hl.mul` whose
    other factor may be a call's result (`_scales_of_calls`), so only such a splat
    counts: a divisor (a GroupNorm's count of elements, `sum / n`) or a factor of index
    arithmetic (an interpolation's `arange(n) * (4 / n)`) takes its new value from the
    prepared module, as integer literals (a decode step's `arange(n) + past`) do, and
    the graph fuses once."""
    ids: dict[SSAValue, int] = {}
    items: list[object] = []
    scales = _scales_of_calls(module)
    for op in module.walk():
        skipped = _SIZE_PROPERTIES.get(op.name, ())
        properties = tuple(
            sorted((k, str(v)) for k, v in op.properties.items() if k not in skipped)
        )
        if isinstance(op, hl.ConstantOp) and op.result in scales:
            properties += (("splat", splat_value(op)),)
        operands = tuple(ids.get(value, -1) for value in op.operands)
        results = tuple(_rank_and_element(r.type) for r in op.results)
        items.append((op.name, operands, properties, results))
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    ids[arg] = len(ids)
                    items.append(("arg", _rank_and_element(arg.type)))
        for result in op.results:
            ids[result] = len(ids)
    return tuple(items)


_CALL_TERMS = (
    hl.AddOp,
    hl.MulOp,
    hl.ReluOp,
    hl.GeluOp,
    hl.CastOp,
    hl.TransposeOp,
    hl.ReshapeOp,
)
"""hl ops that are e-graph terms (egraph_bridge.encoder.term_of) other than the call:
every other op is an opaque leaf, which no rule makes equal to a call."""


def _scales_of_calls(module: ModuleOp) -> set[SSAValue]:
    """The constants that cublaslt-fuse may fold into a call's alpha or beta: a factor
    of an `hl.mul` (the only term whose splat the rules read) whose other factor may be
    a call's result, that is, a chain of term ops over a product (a bias add, an
    activation, a cast, a view). An over-approximation: the rules need more (a default
    epilogue, no broadcast)."""
    products: set[SSAValue] = set()
    scales: set[SSAValue] = set()
    for op in module.walk():
        if isinstance(op, cublaslt.MatmulOp | hl.MatmulOp | hl.LinearOp | hl.AddmmOp):
            products.update(op.results)
        elif isinstance(op, _CALL_TERMS) and any(v in products for v in op.operands):
            products.update(op.results)
            if isinstance(op, hl.MulOp):
                scales.update(op.operands)
    return {v for v in scales if isinstance(v.owner, hl.ConstantOp)}


def _rank_and_element(value_type: Attribute) -> tuple[object, ...]:
    if isinstance(value_type, TensorType):
        return (value_type.get_num_dims(), str(value_type.element_type))
    return (str(value_type),)


@dataclass
class FusedTemplate:
    """A graph fused once: its prepared structure and the fused module."""

    structure: tuple[object, ...]
    fused: ModuleOp

    def specialise(self, prepared: ModuleOp) -> ModuleOp:
        """The fused module at the sizes of `prepared`, verified; `RetypeError` if it
        does not fit."""
        if structure(prepared) != self.structure:
            raise RetypeError("the graph prepares to a different structure at these sizes")
        module = _rebuild(self.fused, prepared)
        problems = verify_module(module)
        if problems:
            raise RetypeError("; ".join(str(p) for p in problems))
        return module


def _by_name(module: ModuleOp) -> dict[str, Operation]:
    return {
        result.name_hint: op
        for op in module.walk()
        for result in op.results
        if result.name_hint is not None
    }


def _rebuild(template: ModuleOp, prepared: ModuleOp) -> ModuleOp:
    source = find_function(template)
    target = find_function(prepared)
    sized = _by_name(prepared)
    block = Block(arg_types=[arg.type for arg in target.body.block.args])
    values: dict[SSAValue, SSAValue] = dict(zip(source.body.block.args, block.args, strict=True))
    for op in source.body.block.ops:
        operands = [values[v] for v in op.operands]
        new = _respecialised(op, operands, sized)
        new.location = op.location
        for old, fresh in zip(op.results, new.results, strict=True):
            fresh.name_hint = old.name_hint
            values[old] = fresh
        block.add_op(new)
    results = [v.type for v in block.last_op.operands] if block.last_op else []
    func = FuncOp.from_region(
        source.sym_name.data, [arg.type for arg in block.args], results, Region(block)
    )
    return ModuleOp([func])


def _respecialised(
    op: Operation, operands: list[SSAValue], sized: dict[str, Operation]
) -> Operation:
    """A copy of `op` over `operands` with the result types and size properties the
    prepared module gives its value."""
    result_types = [_new_type(result, operands, sized) for result in op.results]
    properties = dict(op.properties)
    counterpart = sized.get(op.results[0].name_hint or "") if op.results else None
    if op.name in ("hl.slice", "hl.constant", "hl.arange", "hl.pad"):
        if counterpart is None or counterpart.name != op.name:
            raise RetypeError(f"no {op.name} named {op.results[0].name_hint} at these sizes")
        for key in _SIZE_PROPERTIES[op.name]:
            properties[key] = counterpart.properties[key]
        if op.name == "hl.constant":
            result_types = [counterpart.results[0].type]
    if isinstance(op, cublaslt.MatmulOp):
        properties.update(_matmul_properties(op, operands, result_types[0]))
    return type(op).create(
        operands=operands,
        result_types=result_types,
        properties=properties,
        attributes=dict(op.attributes),
    )


def _new_type(result: SSAValue, operands: list[SSAValue], sized: dict[str, Operation]) -> Attribute:
    assert isinstance(result.type, TensorType), "fused functions compute tensors"
    element = result.type.element_type
    owner = sized.get(result.name_hint or "")
    if owner is not None:
        match = next(r for r in owner.results if r.name_hint == result.name_hint)
        assert isinstance(match.type, TensorType)
        return TensorType(element, match.type.get_shape())
    owner_op = result.owner
    assert isinstance(owner_op, Operation)
    if [v.type for v in owner_op.operands] == [v.type for v in operands]:
        return result.type  # nothing it reads changed size, so neither does it
    if isinstance(owner_op, _SHAPE_PRESERVING) and operands:
        operand_type = operands[0].type
        assert isinstance(operand_type, TensorType)
        return TensorType(element, operand_type.get_shape())
    if isinstance(owner_op, _BROADCASTING):
        shape = broadcast_shapes(*(_static_shape(v) for v in operands))
        if shape is not None:
            return TensorType(element, shape)
    if isinstance(owner_op, cublaslt.MatmulOp):
        return TensorType(element, _call_result_shape(owner_op, operands))
    if isinstance(owner_op, hl.ReshapeOp):
        flattened = _flattened_like(owner_op, operands[0])
        if flattened is not None:
            return TensorType(element, flattened)
    raise RetypeError(f"no size known for the value {result.name_hint or result}")


def _flattened_like(op: hl.ReshapeOp, operand: SSAValue) -> list[int] | None:
    """The new shape of a reshape that merged its input's leading dimensions into one
    (what the fusion rules insert to read a batched value as a matrix), or None when
    the template reshape is not such a merge."""
    before, after = _static_shape(op.input), _static_shape(op.result)
    kept = len(after) - 1
    if kept < 0 or kept >= len(before):
        return None
    trailing = before[len(before) - kept :]
    if tuple(after[1:]) != trailing or math.prod(before[: len(before) - kept]) != after[0]:
        return None
    new = _static_shape(operand)
    return [math.prod(new[: len(new) - kept]), *new[len(new) - kept :]]


def _call_result_shape(op: cublaslt.MatmulOp, operands: list[SSAValue]) -> list[int]:
    """D's shape for a call over `operands`: op(A) is m x k, op(B) is k x n, D is m x n
    in D's order (stored [n, m] when column-major), batched like the old D."""
    desc = op.descriptor()
    a, b = (_static_shape(v) for v in operands[:2])
    m = tensor_op_dims(a, desc.order_a, desc.transa)[0]
    n = tensor_op_dims(b, desc.order_b, desc.transb)[1]
    matrix = dense_shape(m, n, desc.order_d)
    assert isinstance(op.d.type, TensorType)
    if op.d.type.get_num_dims() == 3:
        batch = max(shape[0] for shape in (a, b) if len(shape) == 3)
        return [batch, *matrix]
    return matrix


def _static_shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def _matmul_properties(
    op: cublaslt.MatmulOp, operands: list[SSAValue], d_type: Attribute
) -> dict[str, Attribute]:
    fields = call_fields(op)
    a, b = operands[0].type, operands[1].type
    c = operands[2].type if op.c is not None else None
    assert isinstance(a, TensorType) and isinstance(b, TensorType)
    assert isinstance(d_type, TensorType) and (c is None or isinstance(c, TensorType))
    try:
        return descriptor_properties(call_descriptor(fields, a, b, c, d_type))
    except UndecodableCallError as error:
        raise RetypeError(str(error)) from None
