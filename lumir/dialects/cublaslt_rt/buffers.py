"""`cublaslt_rt` buffers: the ops that make them, and how their bytes relate.

A buffer is a dense row-major `memref` (static shape, no layout, no memory space); at
run time it is a flat `torch.uint8` tensor of raw bytes (docs/conventions.md).
`alloc` and `constant` make one when a program loads; `view` names bytes of another
without a copy. Every overlap question the verifiers and passes ask goes through
`byte_range`, which follows views to the buffer they alias.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    MemoryAllocEffect,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from lumir.dialects.cublaslt_rt.effects import Access, BufferOp
from lumir.dtypes import element_byte_width as dtype_byte_width


def dense_memref_problem(value_type: Attribute) -> str | None:
    """Why `value_type` is not a runtime buffer type, or None if it is one.

    A buffer is a dense row-major memref: a static shape, the identity layout and the
    default memory space, so that its bytes are exactly its elements in row-major order.
    """
    if not isinstance(value_type, MemRefType):
        return f"expected a memref buffer, got {value_type}"
    if any(dim < 0 for dim in value_type.get_shape()):
        return f"buffer {value_type} has a dynamic dimension; buffers have static shapes"
    if not isinstance(value_type.layout, NoneAttr):
        return f"buffer {value_type} has a layout; buffers are dense and row-major"
    if not isinstance(value_type.memory_space, NoneAttr):
        return f"buffer {value_type} has a memory space; executors place every buffer"
    if dtype_byte_width(value_type.element_type) is None:
        return (
            f"buffer {value_type} holds {value_type.element_type}, which has no byte width; "
            "buffers hold elements of a fixed width (f32, bf16, i64, ...)"
        )
    return None


def members_lack_buffers(members: Iterable[Operation]) -> bool:
    """Whether an operand of a group's member is no runtime buffer (`dense_memref_problem`).

    A group's checks compare the byte ranges of its members' buffers, which such an
    operand has none of; the member's own verifier reports it, located at the member,
    so the group says nothing more (it asserted on a `memref<index>`).
    """
    return any(
        dense_memref_problem(value.type) is not None
        for member in members
        for value in member.operands
    )


def require_buffer(op: Operation, role: str, value: SSAValue) -> MemRefType[Attribute]:
    problem = dense_memref_problem(value.type)
    if problem is not None:
        raise VerifyException(f"'{op.name}' {role}: {problem}")
    assert isinstance(value.type, MemRefType)
    return value.type


def tensor_of(buffer_type: MemRefType[Attribute]) -> TensorType[Attribute]:
    """The value-semantics type whose data a buffer of `buffer_type` holds."""
    return TensorType(buffer_type.element_type, buffer_type.get_shape())


def buffer_of(tensor_type: TensorType[Attribute]) -> MemRefType[Attribute]:
    """The buffer type that holds a value of `tensor_type` (bufferization's type map)."""
    return MemRefType(tensor_type.element_type, tensor_type.get_shape())


def int_value(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


@irdl_op_definition
class AllocOp(BufferOp):
    """A new buffer, owned by the program; executors allocate it once, at load time."""

    name = "cublaslt_rt.alloc"

    memref = result_def(MemRefType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($memref)"

    def __init__(self, buffer_type: MemRefType[Attribute]):
        super().__init__(result_types=[buffer_type])

    def buffer_access(self) -> Access:
        """Nothing at run time: the buffer is made when the program loads."""
        return Access()  # made when the program loads

    def verify_(self) -> None:
        problem = dense_memref_problem(self.memref.type)
        if problem is not None:
            raise VerifyException(f"'{self.name}' {problem}")


@irdl_op_definition
class ConstantOp(BufferOp):
    """A buffer holding a literal (an `hl.constant`), filled once at load time."""

    name = "cublaslt_rt.constant"

    value = prop_def(DenseIntOrFPElementsAttr)
    memref = result_def(MemRefType)
    traits = traits_def(MemoryAllocEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($memref)"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        value_type = value.get_type()
        assert isinstance(value_type, TensorType)
        super().__init__(properties={"value": value}, result_types=[buffer_of(value_type)])

    def buffer_access(self) -> Access:
        """Nothing at run time: the literal is written when the program loads."""
        return Access()  # filled when the program loads

    def verify_(self) -> None:
        buffer_type = require_buffer(self, "result", self.memref)
        value_type = self.value.get_type()
        if value_type != tensor_of(buffer_type):
            raise VerifyException(
                f"'{self.name}' value of type {value_type} does not fill a buffer of type "
                f"{buffer_type}; expected a value of type {tensor_of(buffer_type)}"
            )


def element_byte_width(element_type: Attribute) -> int:
    """Bytes one element of a buffer takes (i1 is a byte, as in torch.bool)."""
    width = dtype_byte_width(element_type)
    assert width is not None, f"no byte width for {element_type}"
    return width


def buffer_bytes(buffer_type: MemRefType[Attribute]) -> int:
    """Bytes a dense buffer of `buffer_type` holds."""
    count = 1
    for dim in buffer_type.get_shape():
        count *= dim
    return count * element_byte_width(buffer_type.element_type)


@irdl_op_definition
class ViewOp(BufferOp):
    """A buffer that is bytes [byte_offset, byte_offset + its size) of another buffer.

    No allocation and no copy: the result aliases `source`. The lowering uses it for
    shape ops that keep a dense buffer's bytes in place (a reshape, a slice of leading
    rows, a transpose or expand that only moves unit dimensions) and to place the
    intermediates of a function in one shared arena (`memref<Nxi8>`) by its buffer
    plan. The result may have any element type; its offset is a multiple of that
    type's byte width, so the view is a typed tensor over the same storage.
    """

    name = "cublaslt_rt.view"

    source = operand_def(MemRefType)
    byte_offset = prop_def(IntegerAttr)
    result = result_def(MemRefType)

    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, byte_offset: int, result_type: MemRefType[Attribute]):
        super().__init__(
            operands=[source],
            properties={"byte_offset": IntegerAttr(byte_offset, i64)},
            result_types=[result_type],
        )

    def offset(self) -> int:
        return int_value(self.byte_offset)

    def buffer_access(self) -> Access:
        """Nothing at run time: a view is an alias, resolved when the program loads."""
        return Access()  # an alias, resolved when the program loads

    def verify_(self) -> None:
        source = require_buffer(self, "source", self.source)
        result = require_buffer(self, "result", self.result)
        offset, width = self.offset(), element_byte_width(result.element_type)
        if offset < 0 or offset % width:
            raise VerifyException(
                f"'{self.name}' byte_offset = {offset}, but it must be a non-negative "
                f"multiple of {width} (the byte width of {result.element_type})"
            )
        end, size = offset + buffer_bytes(result), buffer_bytes(source)
        if end > size:
            raise VerifyException(
                f"'{self.name}' a {result} at byte {offset} ends at byte {end}, past the "
                f"{size} bytes of its source {source}"
            )


def byte_range(value: SSAValue) -> tuple[SSAValue, int, int]:
    """(root buffer, first byte, end byte) of a buffer value, following views to their root.

    Two buffers overlap exactly when they share a root and their ranges intersect.
    """
    assert isinstance(value.type, MemRefType)
    start, end = 0, buffer_bytes(value.type)
    while isinstance(value.owner, ViewOp):
        view = value.owner
        start, end = start + view.offset(), end + view.offset()
        value = view.source
    return value, start, end


def overlap(first: SSAValue, second: SSAValue) -> bool:
    """Whether two buffer values share any byte (views resolved to their roots)."""
    root_a, start_a, end_a = byte_range(first)
    root_b, start_b, end_b = byte_range(second)
    return root_a is root_b and start_a < end_b and start_b < end_a


def buffer_elements(value: SSAValue) -> int:
    """How many elements the buffer `value` holds."""
    assert isinstance(value.type, MemRefType)
    return math.prod(value.type.get_shape())


def element_of(value: SSAValue) -> Attribute:
    """The element type of the buffer `value`."""
    assert isinstance(value.type, MemRefType)
    return value.type.element_type


def view_users(value: SSAValue) -> list[Operation]:
    """The ops that use the buffer `value` or a view of it (views followed, not listed),
    in the order the uses are found, each once."""
    found: dict[Operation, None] = {}  # insertion-ordered, each op once
    pending = [value]
    while pending:
        for use in pending.pop().uses:
            user = use.operation
            if isinstance(user, ViewOp):
                pending.append(user.result)
            else:
                found.setdefault(user)
    return list(found)
