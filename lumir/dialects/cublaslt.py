"""The `cublaslt` dialect: one cuBLASLt matmul call, its whole descriptor in IR.

Level 2 of lumir (value semantics). `cublaslt.matmul` computes

    D = epilogue(alpha * op(A) op(B) + beta * C (+ bias))

exactly as `cublasLtMatmul` does, with every field of the operation descriptor and
matrix layouts held as a property, so a pass can read or rewrite any of them and the
verifier can check them all together.

Operand tensors are dense row-major buffers (what torch hands over). Each is read as
a matrix through its `order` and leading dimension: a tensor `tensor<[B x] R x C>` in
COL order is a C x R column-major matrix with `ld = C`; in ROW order it is an R x C
row-major matrix with `ld = C`. The usual row-major `Y[M,N] = X[M,K] W[K,N]` therefore
becomes A = W, B = X, m = N, n = M, k = K in cuBLASLt's column-major view.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping

from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    TensorType,
    f64,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose
from lumir.matmul_descriptor import (
    DESCRIPTOR_FIELDS,
    PRINT_ORDER,
    DescriptorField,
    MatmulDescriptor,
)
from lumir.verifier import FindingsVerifyException, matmul_diagnostics


@irdl_attr_definition
class DataTypeAttr(EnumAttribute[DataType], SpacedOpaqueSyntaxAttribute):
    """A matrix or scale data type, printed `#cublaslt<dtype bf16>`."""

    name = "cublaslt.dtype"


@irdl_attr_definition
class ComputeTypeAttr(EnumAttribute[ComputeType], SpacedOpaqueSyntaxAttribute):
    """The accumulation type, printed `#cublaslt<compute compute_32f>`."""

    name = "cublaslt.compute"


@irdl_attr_definition
class EpilogueAttr(EnumAttribute[Epilogue], SpacedOpaqueSyntaxAttribute):
    """The epilogue, printed `#cublaslt<epilogue relu_bias>`."""

    name = "cublaslt.epilogue"


@irdl_attr_definition
class OrderAttr(EnumAttribute[Order], SpacedOpaqueSyntaxAttribute):
    """A matrix layout order, printed `#cublaslt<order col>`."""

    name = "cublaslt.order"


@irdl_attr_definition
class TransposeAttr(EnumAttribute[Transpose], SpacedOpaqueSyntaxAttribute):
    """Whether an operand is read transposed, printed `#cublaslt<trans t>`."""

    name = "cublaslt.trans"


ATTRIBUTE_OF_ENUM: dict[type, type[EnumAttribute]] = {  # type: ignore[type-arg]
    Transpose: TransposeAttr,
    Order: OrderAttr,
    DataType: DataTypeAttr,
    ComputeType: ComputeTypeAttr,
    Epilogue: EpilogueAttr,
}
"""The IR attribute that carries each descriptor enum."""

INT_FIELDS = tuple(f.name for f in PRINT_ORDER if f.python_type is int)
"""The integer (size) fields of the descriptor, in print order."""


def _property_type(field: DescriptorField) -> type[Attribute] | object:
    if field.python_type is int:
        return IntegerAttr
    if field.python_type is float:
        return FloatAttr[AnyFloat]
    return ATTRIBUTE_OF_ENUM[field.python_type]


def with_descriptor_properties(cls: type) -> type:
    """Give `cls` one `prop_def` per `MatmulDescriptor` field, in declaration order.

    The definitions are generated from `DESCRIPTOR_FIELDS` (the one declaration of the
    descriptor) before `irdl_op_definition` reads the class, so every op holding a
    descriptor has exactly its fields.
    """
    for field in DESCRIPTOR_FIELDS:
        setattr(cls, field.name, prop_def(_property_type(field)))
    return cls


@with_descriptor_properties
class DescriptorProperties(IRDLOperation, abc.ABC):
    """The properties of an op that carries a whole `MatmulDescriptor`.

    `cublaslt.matmul` and the runtime's `cublaslt_rt.plan` hold the same descriptor; both
    inherit its property definitions from here (generated from `DESCRIPTOR_FIELDS`), and
    `descriptor()` reads them back.
    """

    def descriptor(self) -> MatmulDescriptor:
        """The op's properties as a plain `MatmulDescriptor`."""
        return descriptor_from_properties(self.properties)


@irdl_op_definition
class MatmulOp(DescriptorProperties):
    """One `cublasLtMatmul` call: D = epilogue(alpha*op(A)op(B) + beta*C + bias)."""

    name = "cublaslt.matmul"

    a = operand_def(TensorType)
    b = operand_def(TensorType)
    c = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    d = result_def(TensorType)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())

    assembly_format = (
        "$a `,` $b (`c` `(` $c^ `:` type($c) `)`)? (`bias` `(` $bias^ `:` type($bias) `)`)?"
        " attr-dict `:` type($a) `,` type($b) `->` type($d)"
    )

    def __init__(
        self,
        descriptor: MatmulDescriptor,
        a: SSAValue,
        b: SSAValue,
        result_type: Attribute,
        c: SSAValue | None = None,
        bias: SSAValue | None = None,
    ):
        super().__init__(
            operands=[a, b, [c] if c is not None else [], [bias] if bias is not None else []],
            result_types=[result_type],
            properties=descriptor_properties(descriptor),
        )

    def verify_(self) -> None:
        problems = matmul_diagnostics(self)
        if problems:
            raise FindingsVerifyException(problems)


def descriptor_from_properties(properties: Mapping[str, Attribute]) -> MatmulDescriptor:
    """A `MatmulDescriptor` from a property dictionary that holds one.

    Both `cublaslt.matmul` and the runtime's `cublaslt_rt.plan` carry the descriptor as
    the same properties, so this is the one reader of them.
    """
    values: dict[str, object] = {}
    for field in PRINT_ORDER:
        attr = properties[field.name]
        if field.enum is not None:
            values[field.name] = attr.data  # type: ignore[attr-defined]
        else:
            assert isinstance(attr, IntegerAttr | FloatAttr)
            values[field.name] = attr.value.data
    return MatmulDescriptor(**values)  # type: ignore[arg-type]


def descriptor_properties(descriptor: MatmulDescriptor) -> dict[str, Attribute]:
    """The property dictionary of a `cublaslt.matmul` carrying `descriptor`."""
    props: dict[str, Attribute] = {}
    for field in PRINT_ORDER:
        value = getattr(descriptor, field.name)
        if field.python_type is int:
            props[field.name] = IntegerAttr(value, i64)
        elif field.python_type is float:
            props[field.name] = FloatAttr(float(value), f64)
        else:
            props[field.name] = ATTRIBUTE_OF_ENUM[field.python_type](value)
    return props


Cublaslt = Dialect(
    "cublaslt",
    [MatmulOp],
    [DataTypeAttr, ComputeTypeAttr, EpilogueAttr, OrderAttr, TransposeAttr],
)

__all__ = [
    "ComputeTypeAttr",
    "Cublaslt",
    "DataTypeAttr",
    "DescriptorProperties",
    "EpilogueAttr",
    "MatmulDescriptor",
    "MatmulOp",
    "OrderAttr",
    "TransposeAttr",
    "descriptor_from_properties",
    "descriptor_properties",
]
