"""The `hl` dialect: the core-ATen subset a transformer needs, on builtin tensors.

Level 1 of lumir (value semantics). Each op is the ATen operation of the same name, with
the same broadcasting and dtype rules, so the torch importer is a table and the CPU
reference executor can run an op as the torch call it came from. Shapes are static
(dynamic dimensions are specialised by the frontend before import).

Ops verify what ATen would reject: operand/result element types, broadcast shapes,
reduction dimensions and the shapes of matmuls, so no pass can hand a shape-inconsistent
op to the next.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


def _tensor(value: SSAValue | Attribute) -> TensorType:
    typ = value.type if isinstance(value, SSAValue) else value
    assert isinstance(typ, TensorType)
    return typ


def _shape(value: SSAValue | Attribute) -> tuple[int, ...]:
    """The static shape of a tensor value or type.

    hl shapes are static (the frontend specialises dynamic dimensions before import);
    a `?` dimension is reported here rather than compared as the number -1.
    """
    tensor = _tensor(value)
    shape = tuple(tensor.get_shape())
    if any(dim < 0 for dim in shape):
        raise VerifyException(
            f"hl ops need static shapes, got {tensor}: the frontend specialises dynamic "
            "dimensions before import"
        )
    return shape


def _elem(value: SSAValue | Attribute) -> Attribute:
    return _tensor(value).element_type


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """NumPy/ATen broadcasting of static shapes, or None if they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for axis in range(rank):
        size = 1
        for shape in shapes:
            offset = axis - (rank - len(shape))
            if offset < 0:
                continue
            dim = shape[offset]
            if dim == 1:
                continue
            if size not in (1, dim):
                return None
            size = dim
        out.append(size)
    return tuple(out)


def _check_result(op: IRDLOperation, shape: Sequence[int], element: Attribute) -> None:
    result = op.results[0]
    if _shape(result) != tuple(shape) or _elem(result) != element:
        expected = TensorType(element, list(shape))
        raise VerifyException(
            f"'{op.name}' result type {result.type} does not match the inferred type {expected}"
        )


def _norm_dim(op: IRDLOperation, dim: int, rank: int) -> int:
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise VerifyException(f"'{op.name}' dimension {dim} is out of range for rank {rank}")
    return dim % max(rank, 1)


def _check_float(op: IRDLOperation, value: SSAValue) -> None:
    """ATen computes some ops (mean, softmax) only on floating-point tensors."""
    if not isinstance(_elem(value), AnyFloat):
        raise VerifyException(f"'{op.name}' needs a floating-point input, got {value.type}")


def _check_same_element(op: IRDLOperation, **values: SSAValue) -> None:
    """ATen does not promote across these operands: they must share an element type."""
    elements = {name: _elem(value) for name, value in values.items()}
    if len(set(elements.values())) > 1:
        listed = ", ".join(f"{name} {element}" for name, element in elements.items())
        raise VerifyException(
            f"'{op.name}' operand element types differ: {listed} (insert an hl.cast)"
        )


def _int(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def _ints(attr: DenseArrayBase) -> tuple[int, ...]:
    return tuple(int(v) for v in attr.get_values())


# --- elementwise -----------------------------------------------------------------


class ElementwiseBinaryOp(IRDLOperation, abc.ABC):
    """lhs op rhs with ATen broadcasting; operands and result share an element type."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            shape = broadcast_shapes(_shape(lhs), _shape(rhs))
            assert shape is not None, "operands do not broadcast"
            result_type = TensorType(_elem(lhs), shape)
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        if _elem(self.lhs) != _elem(self.rhs):
            raise VerifyException(
                f"'{self.name}' operand element types differ: {_elem(self.lhs)} and "
                f"{_elem(self.rhs)} (insert an hl.cast)"
            )
        shape = broadcast_shapes(_shape(self.lhs), _shape(self.rhs))
        if shape is None:
            raise VerifyException(
                f"'{self.name}' operand shapes {list(_shape(self.lhs))} and "
                f"{list(_shape(self.rhs))} do not broadcast"
            )
        _check_result(self, shape, _elem(self.lhs))


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """aten.add.Tensor (alpha = 1)."""

    name = "hl.add"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """aten.sub.Tensor (alpha = 1)."""

    name = "hl.sub"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """aten.mul.Tensor."""

    name = "hl.mul"


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    """aten.div.Tensor (true division)."""

    name = "hl.div"


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """aten.pow.Tensor_Tensor (a scalar exponent is a 0-d constant)."""

    name = "hl.pow"


@irdl_op_definition
class MaximumOp(ElementwiseBinaryOp):
    """aten.maximum."""

    name = "hl.maximum"


class ElementwiseUnaryOp(IRDLOperation, abc.ABC):
    """f(input) elementwise; the result has the input's type."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])

    def verify_(self) -> None:
        _check_result(self, _shape(self.input), _elem(self.input))


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    """aten.neg."""

    name = "hl.neg"


@irdl_op_definition
class RsqrtOp(ElementwiseUnaryOp):
    """aten.rsqrt."""

    name = "hl.rsqrt"


@irdl_op_definition
class SqrtOp(ElementwiseUnaryOp):
    """aten.sqrt."""

    name = "hl.sqrt"


@irdl_op_definition
class ExpOp(ElementwiseUnaryOp):
    """aten.exp."""

    name = "hl.exp"


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp):
    """aten.relu."""

    name = "hl.relu"


@irdl_op_definition
class SiluOp(ElementwiseUnaryOp):
    """aten.silu."""

    name = "hl.silu"


@irdl_op_definition
class SigmoidOp(ElementwiseUnaryOp):
    """aten.sigmoid."""

    name = "hl.sigmoid"


@irdl_op_definition
class TanhOp(ElementwiseUnaryOp):
    """aten.tanh."""

    name = "hl.tanh"


class GeluApproximation(StrEnum):
    """aten.gelu's `approximate`: exact erf form, or the tanh form cuBLASLt's GELU uses."""

    NONE = "none"
    TANH = "tanh"


@irdl_op_definition
class GeluOp(IRDLOperation):
    """aten.gelu; `approximate` is "none" (erf) or "tanh".

    Only the tanh form equals cuBLASLt's GELU epilogue; the fusion rules rely on this
    property to refuse the exact form.
    """

    name = "hl.gelu"

    input = operand_def(TensorType)
    result = result_def(TensorType)
    approximate = prop_def(StringAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, approximate: str = "none"):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"approximate": StringAttr(approximate)},
        )

    def verify_(self) -> None:
        values = [a.value for a in GeluApproximation]
        if self.approximate.data not in values:
            raise VerifyException(
                f"'hl.gelu' approximate must be one of {values}, got '{self.approximate.data}'"
            )
        _check_result(self, _shape(self.input), _elem(self.input))


@irdl_op_definition
class CastOp(IRDLOperation):
    """aten._to_copy / .to(dtype): convert the element type, keep the shape."""

    name = "hl.cast"

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, element_type: Attribute):
        super().__init__(operands=[input], result_types=[TensorType(element_type, _shape(input))])

    def verify_(self) -> None:
        if _shape(self.result) != _shape(self.input):
            raise VerifyException(
                f"'hl.cast' changes the shape from {list(_shape(self.input))} to "
                f"{list(_shape(self.result))}; a cast only changes the element type"
            )


# --- reductions and softmax -----------------------------------------------------


class ReductionOp(IRDLOperation, abc.ABC):
    """Reduce `input` over `dims` (ATen's dim list), keeping them as 1 if `keepdim`.

    As in ATen, an empty `dims` reduces over every dimension, and a dimension may not
    be named twice (`[1, -1]` on a 2-D input is rejected).
    """

    input = operand_def(TensorType)
    result = result_def(TensorType)
    dims = prop_def(DenseArrayBase.constr(i64))
    keepdim = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, dims: Sequence[int], keepdim: bool, result_type: Attribute):
        props: dict[str, Attribute] = {"dims": DenseArrayBase.from_list(i64, list(dims))}
        if keepdim:
            props["keepdim"] = UnitAttr()
        super().__init__(operands=[input], result_types=[result_type], properties=props)

    def verify_(self) -> None:
        shape = _shape(self.input)
        named = [_norm_dim(self, d, len(shape)) for d in _ints(self.dims)]
        if len(set(named)) != len(named):
            raise VerifyException(
                f"'{self.name}' dims {list(_ints(self.dims))} name a dimension more than once"
            )
        dims = set(named) if named else set(range(len(shape)))
        if self.keepdim is not None:
            expected = [1 if i in dims else s for i, s in enumerate(shape)]
        else:
            expected = [s for i, s in enumerate(shape) if i not in dims]
        _check_result(self, expected, _elem(self.input))


@irdl_op_definition
class SumOp(ReductionOp):
    """aten.sum.dim_IntList."""

    name = "hl.sum"


@irdl_op_definition
class MeanOp(ReductionOp):
    """aten.mean.dim."""

    name = "hl.mean"

    def verify_(self) -> None:
        _check_float(self, self.input)
        super().verify_()


@irdl_op_definition
class AmaxOp(ReductionOp):
    """aten.amax."""

    name = "hl.amax"


@irdl_op_definition
class SoftmaxOp(IRDLOperation):
    """aten._softmax along `dim`."""

    name = "hl.softmax"

    input = operand_def(TensorType)
    result = result_def(TensorType)
    dim = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def verify_(self) -> None:
        _check_float(self, self.input)
        _norm_dim(self, _int(self.dim), len(_shape(self.input)))
        _check_result(self, _shape(self.input), _elem(self.input))


# --- matrix products ------------------------------------------------------------


def matmul_shape(lhs: Sequence[int], rhs: Sequence[int]) -> tuple[int, ...] | None:
    """The result shape of aten.matmul for ranks >= 2, or None if they do not agree."""
    if len(lhs) < 2 or len(rhs) < 2 or lhs[-1] != rhs[-2]:
        return None
    batch = broadcast_shapes(lhs[:-2], rhs[:-2])
    if batch is None:
        return None
    return (*batch, lhs[-2], rhs[-1])


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """aten.mm / bmm / matmul for ranks >= 2: lhs[..., M, K] @ rhs[..., K, N]."""

    name = "hl.matmul"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        shape = matmul_shape(_shape(lhs), _shape(rhs))
        assert shape is not None, "matmul operand shapes do not agree"
        super().__init__(operands=[lhs, rhs], result_types=[TensorType(_elem(lhs), shape)])

    def verify_(self) -> None:
        if _elem(self.lhs) != _elem(self.rhs):
            raise VerifyException(
                f"'hl.matmul' operand element types differ: {_elem(self.lhs)} and {_elem(self.rhs)}"
            )
        shape = matmul_shape(_shape(self.lhs), _shape(self.rhs))
        if shape is None:
            raise VerifyException(
                f"'hl.matmul' cannot multiply {list(_shape(self.lhs))} by "
                f"{list(_shape(self.rhs))}: expected [..., M, K] @ [..., K, N]"
            )
        _check_result(self, shape, _elem(self.lhs))


@irdl_op_definition
class LinearOp(IRDLOperation):
    """aten.linear: input[..., K] @ weight[N, K]^T (+ bias[N]).

    hl-canonicalize splits it into transpose + matmul (+ add) so that the fusion rules
    see one shape of each idiom.
    """

    name = "hl.linear"

    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict"
        " `:` type($input) `,` type($weight) `->` type($result)"
    )

    def verify_(self) -> None:
        x, w = _shape(self.input), _shape(self.weight)
        if len(w) != 2 or not x or x[-1] != w[1]:
            raise VerifyException(
                f"'hl.linear' expects input [..., K] and weight [N, K], got {list(x)} and {list(w)}"
            )
        operands = {"input": self.input, "weight": self.weight}
        if self.bias is not None:
            operands["bias"] = self.bias
        _check_same_element(self, **operands)
        if self.bias is not None and _shape(self.bias) != (w[0],):
            raise VerifyException(
                f"'hl.linear' bias must be [{w[0]}], got {list(_shape(self.bias))}"
            )
        _check_result(self, (*x[:-1], w[0]), _elem(self.input))


@irdl_op_definition
class AddmmOp(IRDLOperation):
    """aten.addmm: bias + lhs @ rhs (beta = alpha = 1)."""

    name = "hl.addmm"

    bias = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$bias `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        lhs, rhs = _shape(self.lhs), _shape(self.rhs)
        if len(lhs) != 2 or len(rhs) != 2 or lhs[1] != rhs[0]:
            raise VerifyException(
                f"'hl.addmm' expects [M, K] @ [K, N], got {list(lhs)} and {list(rhs)}"
            )
        _check_same_element(self, bias=self.bias, lhs=self.lhs, rhs=self.rhs)
        shape = (lhs[0], rhs[1])
        if broadcast_shapes(_shape(self.bias), shape) != shape:
            raise VerifyException(
                f"'hl.addmm' bias {list(_shape(self.bias))} does not broadcast to {list(shape)}"
            )
        _check_result(self, shape, _elem(self.lhs))


@irdl_op_definition
class ScaledDotProductAttentionOp(IRDLOperation):
    """aten.scaled_dot_product_attention on [..., L, E] query, [..., S, E] key, [..., S, Ev] value.

    The batch dimensions broadcast (the result is [*batch, L, Ev]); an optional `mask`
    is i1 (true takes part) or the query's element type, broadcastable to
    [*batch, L, S], and cannot be combined with `is_causal`.
    """

    name = "hl.sdpa"

    query = operand_def(TensorType)
    key = operand_def(TensorType)
    value = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    result = result_def(TensorType)
    is_causal = opt_prop_def(UnitAttr)
    scale = opt_prop_def(FloatAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict"
        " `:` type($query) `,` type($key) `,` type($value) `->` type($result)"
    )

    def verify_(self) -> None:
        q, k, v = _shape(self.query), _shape(self.key), _shape(self.value)
        if len(q) < 2 or len(k) != len(q) or len(v) != len(q):
            raise VerifyException("'hl.sdpa' expects query, key and value of one rank >= 2")
        _check_same_element(self, query=self.query, key=self.key, value=self.value)
        batch = broadcast_shapes(q[:-2], k[:-2], v[:-2])
        if q[-1] != k[-1] or k[-2] != v[-2] or batch is None:
            raise VerifyException(
                f"'hl.sdpa' shapes disagree: query {list(q)}, key {list(k)}, value {list(v)}"
            )
        if self.mask is not None:
            self._verify_mask((*batch, q[-2], k[-2]))
        _check_result(self, (*batch, q[-2], v[-1]), _elem(self.query))

    def _verify_mask(self, scores: tuple[int, ...]) -> None:
        assert self.mask is not None
        if self.is_causal is not None:
            raise VerifyException("'hl.sdpa' takes a mask or is_causal, not both")
        if _elem(self.mask) not in (i1, _elem(self.query)):
            raise VerifyException(
                f"'hl.sdpa' mask must be i1 or the query's {_elem(self.query)}, "
                f"got {_elem(self.mask)}"
            )
        if broadcast_shapes(_shape(self.mask), scores) != scores:
            raise VerifyException(
                f"'hl.sdpa' mask {list(_shape(self.mask))} does not broadcast to the "
                f"attention scores {list(scores)}"
            )


# --- shapes ---------------------------------------------------------------------


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """aten.permute / aten.transpose / aten.t: result dim i is input dim permutation[i]."""

    name = "hl.transpose"

    input = operand_def(TensorType)
    result = result_def(TensorType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, permutation: Sequence[int]):
        shape = _shape(input)
        super().__init__(
            operands=[input],
            result_types=[TensorType(_elem(input), [shape[p] for p in permutation])],
            properties={"permutation": DenseArrayBase.from_list(i64, list(permutation))},
        )

    def verify_(self) -> None:
        perm = _ints(self.permutation)
        shape = _shape(self.input)
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(
                f"'hl.transpose' permutation {list(perm)} is not a permutation of "
                f"{len(shape)} dimensions"
            )
        _check_result(self, [shape[p] for p in perm], _elem(self.input))


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """aten.view / aten.reshape / aten._unsafe_view: same elements, new static shape."""

    name = "hl.reshape"

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        if _elem(self.input) != _elem(self.result):
            raise VerifyException("'hl.reshape' cannot change the element type")
        source, target = _shape(self.input), _shape(self.result)
        if math.prod(source) != math.prod(target):
            raise VerifyException(
                f"'hl.reshape' cannot reshape {list(source)} to {list(target)}: "
                "element counts differ"
            )


@irdl_op_definition
class ExpandOp(IRDLOperation):
    """aten.expand: broadcast size-1 (or missing leading) dims to the result shape."""

    name = "hl.expand"

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        target = _shape(self.result)
        if broadcast_shapes(_shape(self.input), target) != target:
            raise VerifyException(
                f"'hl.expand' cannot expand {list(_shape(self.input))} to {list(target)}"
            )
        if _elem(self.input) != _elem(self.result):
            raise VerifyException("'hl.expand' cannot change the element type")


@irdl_op_definition
class SliceOp(IRDLOperation):
    """aten.slice.Tensor: input[..., start:end:step, ...] along `dim`."""

    name = "hl.slice"

    input = operand_def(TensorType)
    result = result_def(TensorType)
    dim = prop_def(IntegerAttr)
    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)
    step = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        shape = list(_shape(self.input))
        dim = _norm_dim(self, _int(self.dim), len(shape))
        start, end, step = _int(self.start), _int(self.end), _int(self.step)
        if step <= 0:
            raise VerifyException(f"'hl.slice' step must be positive, got {step}")
        shape[dim] = len(range(*slice(start, end, step).indices(shape[dim])))
        _check_result(self, shape, _elem(self.input))


@irdl_op_definition
class CatOp(IRDLOperation):
    """aten.cat along `dim`."""

    name = "hl.cat"

    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    dim = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result)"

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("'hl.cat' needs at least one input")
        shapes = [_shape(v) for v in self.inputs]
        rank = len(shapes[0])
        if rank == 0:
            raise VerifyException("'hl.cat' cannot concatenate 0-d tensors")
        dim = _norm_dim(self, _int(self.dim), rank)
        for shape in shapes:
            others = [s for i, s in enumerate(shape) if i != dim]
            if len(shape) != rank or others != [s for i, s in enumerate(shapes[0]) if i != dim]:
                raise VerifyException(
                    f"'hl.cat' input shapes {[list(s) for s in shapes]} differ outside dim {dim}"
                )
        if any(_elem(v) != _elem(self.inputs[0]) for v in self.inputs):
            raise VerifyException("'hl.cat' inputs must share an element type")
        out = list(shapes[0])
        out[dim] = sum(s[dim] for s in shapes)
        _check_result(self, out, _elem(self.inputs[0]))


@irdl_op_definition
class EmbeddingOp(IRDLOperation):
    """aten.embedding: rows of `weight` [V, E] gathered by i32 or i64 `indices`."""

    name = "hl.embedding"

    weight = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$weight `,` $indices attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        indices = _elem(self.indices)
        integer = isinstance(indices, IntegerType) and indices.width.data in (32, 64)
        if len(_shape(self.weight)) != 2 or not integer:
            raise VerifyException(
                "'hl.embedding' expects a 2-D weight and i32 or i64 indices, got "
                f"{self.weight.type} and {self.indices.type}"
            )
        _check_result(self, (*_shape(self.indices), _shape(self.weight)[1]), _elem(self.weight))


class ComparePredicate(StrEnum):
    """The comparison of `hl.compare`."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


@irdl_op_definition
class CompareOp(IRDLOperation):
    """aten.eq/ne/lt/le/gt/ge: broadcast comparison giving an i1 tensor."""

    name = "hl.compare"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    predicate = prop_def(StringAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        values = [p.value for p in ComparePredicate]
        if self.predicate.data not in values:
            raise VerifyException(
                f"'hl.compare' predicate must be one of {values}, got '{self.predicate.data}'"
            )
        if _elem(self.lhs) != _elem(self.rhs):
            raise VerifyException("'hl.compare' operands must share an element type")
        shape = broadcast_shapes(_shape(self.lhs), _shape(self.rhs))
        if shape is None:
            raise VerifyException("'hl.compare' operand shapes do not broadcast")
        _check_result(self, shape, i1)


@irdl_op_definition
class WhereOp(IRDLOperation):
    """aten.where.self: condition ? lhs : rhs, broadcast."""

    name = "hl.where"

    condition = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        if _elem(self.condition) != i1:
            raise VerifyException(f"'hl.where' condition must be i1, got {_elem(self.condition)}")
        if _elem(self.lhs) != _elem(self.rhs):
            raise VerifyException("'hl.where' branches must share an element type")
        shape = broadcast_shapes(_shape(self.condition), _shape(self.lhs), _shape(self.rhs))
        if shape is None:
            raise VerifyException("'hl.where' operand shapes do not broadcast")
        _check_result(self, shape, _elem(self.lhs))


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A constant tensor: a dense literal (a splat for scalars and fills)."""

    name = "hl.constant"

    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def verify_(self) -> None:
        if self.value.type != self.result.type:
            raise VerifyException(
                f"'hl.constant' value type {self.value.type} differs from result type "
                f"{self.result.type}"
            )


def splat(value: float, element_type: Attribute, shape: Sequence[int] = ()) -> ConstantOp:
    """An `hl.constant` filled with `value` (a 0-d scalar by default)."""
    dense = DenseIntOrFPElementsAttr.from_list(TensorType(element_type, list(shape)), [value])
    return ConstantOp(dense)


HL = Dialect(
    "hl",
    [
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        PowOp,
        MaximumOp,
        NegOp,
        RsqrtOp,
        SqrtOp,
        ExpOp,
        ReluOp,
        SiluOp,
        SigmoidOp,
        TanhOp,
        GeluOp,
        CastOp,
        SumOp,
        MeanOp,
        AmaxOp,
        SoftmaxOp,
        MatmulOp,
        LinearOp,
        AddmmOp,
        ScaledDotProductAttentionOp,
        TransposeOp,
        ReshapeOp,
        ExpandOp,
        SliceOp,
        CatOp,
        EmbeddingOp,
        CompareOp,
        WhereOp,
        ConstantOp,
    ],
    [],
)

__all__ = ["HL", "broadcast_shapes", "matmul_shape", "splat"]
