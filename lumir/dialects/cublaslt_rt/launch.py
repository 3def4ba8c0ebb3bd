"""`cublaslt_rt.launch` and `cublaslt_rt.fused_launch`: the kernels that are no GEMM.

A launch runs the `hl` op it names, with that op's properties, from input buffers into
an output buffer, and verifies that the `hl` op accepts its buffers' types; a fused
launch runs a bufferized `hl.fused` body (one generated Triton kernel on CUDA).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    MemRefType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    MemoryReadEffect,
    MemoryWriteEffect,
)
from xdsl.utils.exceptions import VerifyException

from lumir.dialects.cublaslt_rt.buffers import require_buffer, tensor_of
from lumir.dialects.cublaslt_rt.effects import Access, BufferOp


def hl_op_class(kernel: str) -> type[IRDLOperation] | None:
    """The `hl` op class a launch of `kernel` runs, or None if `kernel` names none."""
    from lumir.dialects.hl import HL

    for op_class in HL.operations:
        if op_class.name == kernel and issubclass(op_class, IRDLOperation):
            return op_class
    return None


IN_PLACE_KERNELS = (
    "hl.index_copy",
    "hl.add",
    "hl.sub",
    "hl.mul",
    "hl.div",
    "hl.maximum",
    "hl.neg",
    "hl.cast",
)
"""Kernels that may write their first input in place (`outs` is `ins[0]`): each output
element depends only on the same element of the first input (or, for index_copy, the
slices it replaces), so reading and writing one buffer gives what two buffers give.
The torch backend uses this to update a model's KV cache where it lives."""


STRIDED_KERNELS = ("hl.sdpa",)
"""Kernels that read inputs and write their result through strided views of buffers
(`input_windows`, `input_permutations`, `output_permutation`): torch's SDPA and lumir's
attention kernels take query, key and value of any strides whose last dimension is
contiguous, so a slice or transpose of an operand or of the result need not be a copy
kernel of its own."""


Permutation = tuple[int, ...]


@dataclass(frozen=True)
class Window:
    """A launch input read as `hl.reshape(hl.slice(buffer, -1, start, end), shape)`:
    elements [start, end) of the buffer's last dimension, that dimension then split
    into `shape`'s trailing dimensions (a strided view: rows keep the buffer's stride)."""

    start: int
    end: int
    shape: tuple[int, ...]

    def values(self) -> list[int]:
        """The `array<i64: start, end, shape...>` it is written as."""
        return [self.start, self.end, *self.shape]

    @staticmethod
    def from_values(values: Sequence[int]) -> Window | None:
        """The window of an `input_windows` entry (None for an empty one)."""
        if not values:
            return None
        start, end, *shape = values
        return Window(start, end, tuple(shape))

    def problem(self, buffer_shape: Sequence[int]) -> str | None:
        """Why this window is not a view of a buffer of `buffer_shape` (None when it is)."""
        if not buffer_shape:
            return "a rank-0 buffer has no last dimension to slice"
        *lead, last = buffer_shape
        if not 0 <= self.start < self.end <= last:
            return f"[{self.start}, {self.end}) is not a non-empty range of the last {last}"
        if list(self.shape[: len(lead)]) != list(lead) or len(self.shape) < len(buffer_shape):
            return (
                f"shape {list(self.shape)} does not keep the leading dimensions {lead} and "
                f"split only the last"
            )
        if math.prod(self.shape[len(lead) :]) != self.end - self.start:
            return f"shape {list(self.shape)} does not split {self.end - self.start} elements"
        return None


def inverse_permutation(permutation: Permutation) -> Permutation:
    """The permutation that undoes `permutation` (transpose by one, then the other)."""
    inverse = [0] * len(permutation)
    for position, dim in enumerate(permutation):
        inverse[dim] = position
    return tuple(inverse)


def permuted_shape(shape: tuple[int, ...], permutation: Permutation) -> tuple[int, ...]:
    """The shape of `hl.transpose` of a `shape` value by `permutation`."""
    return tuple(shape[dim] for dim in permutation)


@irdl_op_definition
class LaunchOp(BufferOp):
    """A non-GEMM kernel: the `hl` op named by `kernel`, run from buffers into a buffer.

    `params` holds the properties of that `hl` op (absent when it has none). The launch
    reads `inputs` and writes `output`, which it may not also read, except that a kernel
    of `IN_PLACE_KERNELS` may write its first input in place (`outs` is `ins[0]`, of the
    same type).

    A kernel of `STRIDED_KERNELS` may read and write through strided views instead of
    the dense buffers themselves, so that a slice or transpose next to it is no copy:
    `input_windows` (one `array<i64>` per input, empty or `[start, end, shape...]`, a
    `Window`) makes input i's value `hl.reshape(hl.slice(input i, -1, start, end),
    shape)`, as q, k and v are column blocks of one fused projection's result;
    `input_permutations` (one `array<i64>` per input) makes the op's operand i
    `hl.transpose(value i, permutation i)`, a strided view of input i's bytes, and
    `output_permutation` q makes the output buffer hold `hl.transpose(result, q)`,
    i.e. the kernel writes its result into the output buffer viewed permuted by q's
    inverse. Every permutation keeps the last dimension last (its stride stays 1).
    """

    name = "cublaslt_rt.launch"

    inputs = var_operand_def(MemRefType)
    output = operand_def(MemRefType)
    kernel = prop_def(StringAttr)
    params = opt_prop_def(DictionaryAttr)
    input_windows = opt_prop_def(ArrayAttr[DenseArrayBase])
    input_permutations = opt_prop_def(ArrayAttr[DenseArrayBase])
    output_permutation = opt_prop_def(DenseArrayBase)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$kernel ($params^)? `ins` `(` ($inputs^ `:` type($inputs))? `)`"
        " `outs` `(` $output `:` type($output) `)` attr-dict"
    )

    def __init__(
        self,
        kernel: str,
        inputs: list[SSAValue],
        output: SSAValue,
        params: Mapping[str, Attribute] | None = None,
        input_permutations: Sequence[Permutation] | None = None,
        output_permutation: Permutation | None = None,
        input_windows: Sequence[Window | None] | None = None,
    ):
        properties: dict[str, Attribute] = {"kernel": StringAttr(kernel)}
        if params:
            properties["params"] = DictionaryAttr(dict(params))
        if input_windows is not None:
            properties["input_windows"] = ArrayAttr(
                [
                    DenseArrayBase.from_list(i64, window.values() if window else [])
                    for window in input_windows
                ]
            )
        if input_permutations is not None:
            properties["input_permutations"] = ArrayAttr(
                [DenseArrayBase.from_list(i64, list(p)) for p in input_permutations]
            )
        if output_permutation is not None:
            properties["output_permutation"] = DenseArrayBase.from_list(
                i64, list(output_permutation)
            )
        super().__init__(operands=[inputs, output], properties=properties)

    def kernel_params(self) -> dict[str, Attribute]:
        """The `hl` op's properties (an empty dict when it has none)."""
        return dict(self.params.data) if self.params is not None else {}

    def read_windows(self) -> list[Window | None]:
        """The window each input is read through (None where it is read whole)."""
        if self.input_windows is None:
            return [None for _ in self.inputs]
        return [
            Window.from_values([int(v) for v in w.get_values()]) for w in self.input_windows.data
        ]

    def read_permutations(self) -> list[Permutation]:
        """The permutation each input is read through (the identity when there is none)."""
        if self.input_permutations is None:
            return [_identity(value) for value in self.inputs]
        return [tuple(int(v) for v in p.get_values()) for p in self.input_permutations.data]

    def write_permutation(self) -> Permutation:
        """How the output buffer holds the result: `hl.transpose(result, this)`."""
        if self.output_permutation is None:
            return _identity(self.output)
        return tuple(int(v) for v in self.output_permutation.get_values())

    def buffer_access(self) -> Access:
        """Its inputs are read; its output is written."""
        return Access(tuple(self.inputs), (self.output,))

    def verify_(self) -> None:
        kernel = self.kernel.data
        op_class = hl_op_class(kernel)
        if op_class is None or kernel in ("hl.constant", "hl.fused", "hl.yield"):
            raise VerifyException(
                f"'{self.name}' kernel \"{kernel}\" is not an hl op that runs as a kernel "
                f"(constants are cublaslt_rt.constant)"
            )
        input_types = [require_buffer(self, "input", value) for value in self.inputs]
        output_type = require_buffer(self, "output", self.output)
        in_place = (
            kernel in IN_PLACE_KERNELS
            and bool(self.inputs)
            and self.inputs[0] is self.output
            and input_types[0] == output_type
        )
        if any(value is self.output for value in self.inputs[1 if in_place else 0 :]):
            raise VerifyException(
                f"'{self.name}' {kernel} reads the buffer it writes (only "
                f"{', '.join(IN_PLACE_KERNELS)} may write their first input in place)"
            )
        operand_types, result_type = self._viewed_types(input_types, output_type)
        problem = _hl_problem(op_class, self.kernel_params(), operand_types, result_type)
        if problem is not None:
            raise VerifyException(f"'{self.name}' {kernel} on these buffers: {problem}")

    def _viewed_types(
        self, input_types: list[MemRefType[Attribute]], output_type: MemRefType[Attribute]
    ) -> tuple[list[TensorType[Attribute]], TensorType[Attribute]]:
        """The tensor types the kernel sees through its permuted views (checked here)."""
        kernel = self.kernel.data
        operands = [tensor_of(t) for t in input_types]
        result = tensor_of(output_type)
        strided = (self.input_windows, self.input_permutations, self.output_permutation)
        if all(attribute is None for attribute in strided):
            return operands, result
        if kernel not in STRIDED_KERNELS:
            raise VerifyException(
                f"'{self.name}' {kernel} reads and writes dense buffers; only "
                f"{', '.join(STRIDED_KERNELS)} takes input_windows, input_permutations or "
                f"output_permutation"
            )
        if self.input_windows is not None and len(self.input_windows.data) != len(input_types):
            raise VerifyException(
                f"'{self.name}' input_windows has {len(self.input_windows.data)} entries for "
                f"{len(input_types)} inputs; give one window (or an empty array) per input"
            )
        shapes = [tuple(t.get_shape()) for t in input_types]
        for index, window in enumerate(self.read_windows()):
            if window is None:
                continue
            problem = window.problem(shapes[index])
            if problem is not None:
                raise VerifyException(
                    f"'{self.name}' input {index} window on {input_types[index]}: {problem}"
                )
            shapes[index] = window.shape
        if self.input_permutations is not None:
            count = len(self.input_permutations.data)
            if count != len(input_types):
                raise VerifyException(
                    f"'{self.name}' input_permutations has {count} entries for "
                    f"{len(input_types)} inputs; give one permutation per input"
                )
        for index, (permutation, buffer) in enumerate(
            zip(self.read_permutations(), input_types, strict=True)
        ):
            shape = _checked_shape(self, f"input {index}", permutation, shapes[index], buffer)
            operands[index] = TensorType(buffer.element_type, permuted_shape(shape, permutation))
        permutation = self.write_permutation()
        output_shape = tuple(output_type.get_shape())
        shape = _checked_shape(self, "output", permutation, output_shape, output_type)
        inverse = inverse_permutation(permutation)
        result = TensorType(output_type.element_type, permuted_shape(shape, inverse))
        return operands, result


def _identity(value: SSAValue) -> Permutation:
    assert isinstance(value.type, MemRefType)
    return tuple(range(value.type.get_num_dims()))


def _checked_shape(
    op: Operation,
    role: str,
    permutation: Permutation,
    shape: tuple[int, ...],
    buffer: MemRefType[Attribute],
) -> tuple[int, ...]:
    """`shape` (of `buffer`, or of its window), once `permutation` is known to be a view
    the kernel can read."""
    rank = len(shape)
    if sorted(permutation) != list(range(rank)):
        raise VerifyException(
            f"'{op.name}' {role} permutation {list(permutation)} is not a permutation of "
            f"the {rank} dimensions of {buffer}"
            + ("" if shape == tuple(buffer.get_shape()) else f" viewed as {list(shape)}")
        )
    if rank and permutation[-1] != rank - 1:
        raise VerifyException(
            f"'{op.name}' {role} permutation {list(permutation)} moves the last dimension; "
            f"the kernel needs it last and contiguous (stride 1)"
        )
    return shape


def _hl_problem(
    op_class: type[IRDLOperation],
    params: dict[str, Attribute],
    input_types: list[TensorType[Attribute]],
    output_type: TensorType[Attribute],
) -> str | None:
    """What the `hl` op's own verifier says about running on values of these types.

    The op is built on detached block arguments of the buffers' tensor types, verified
    and dropped: the launch then accepts exactly what the `hl` op accepts.
    """
    block = Block(arg_types=input_types)
    try:
        probe = op_class.create(
            operands=list(block.args),
            result_types=[output_type],
            properties=params,
        )
    except (ValueError, TypeError) as error:
        return str(error)
    try:
        probe.verify()
    except VerifyException as error:
        return str(error)
    finally:
        probe.drop_all_references()
    return None


@irdl_op_definition
class FusedLaunchOp(BufferOp):
    """A fused kernel (`hl.fused`, bufferized): its body run from buffers into buffers.

    The body is the `hl.fused` body unchanged, on the tensor types of `inputs` (its
    block arguments) and yielding values of the tensor types of `outputs`. It reads
    `inputs` and writes every one of `outputs`, none of which it may also read, with
    one exception (`may_overwrite`): an output may occupy exactly the bytes of an input
    of its own type when the body is elementwise, so that every element is read before
    the same element is written. On CPU the executor runs the body op by op; on CUDA it
    is one generated Triton kernel.
    """

    name = "cublaslt_rt.fused_launch"

    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)
    body = region_def("single_block")

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "`ins` `(` ($inputs^ `:` type($inputs))? `)`"
        " `outs` `(` $outputs `:` type($outputs) `)` attr-dict-with-keyword $body"
    )

    def __init__(self, inputs: list[SSAValue], outputs: list[SSAValue], body: Region):
        super().__init__(operands=[inputs, outputs], regions=[body])

    def may_overwrite(self, output: SSAValue, input: SSAValue) -> bool:
        """Whether `output` may be written over exactly the bytes of `input`.

        True when both have one type and every op of the body is elementwise (no
        reduction, slice, cat or transpose): each output element then depends on the
        input only at its own index, which the kernel reads before it writes there, in
        any order of rows and columns (on CPU the whole body runs before any output is
        written). The buffer plan uses it to compute SiLU(gate) * up over gate's bytes.
        """
        from lumir.dialects.hl.row_program import is_elementwise

        if output not in self.outputs or input not in self.inputs or output.type != input.type:
            return False
        return is_elementwise(self.body.block.ops)

    def buffer_access(self) -> Access:
        """Its inputs are read; every output is written."""
        return Access(tuple(self.inputs), tuple(self.outputs))

    def verify_(self) -> None:
        from lumir.dialects.hl.fused import body_problem

        input_types = [require_buffer(self, "input", value) for value in self.inputs]
        output_types = [require_buffer(self, "output", value) for value in self.outputs]
        if not output_types:
            raise VerifyException(f"'{self.name}' must write at least one buffer")
        for output in self.outputs:
            if any(
                value is output and not self.may_overwrite(output, value) for value in self.inputs
            ):
                raise VerifyException(
                    f"'{self.name}' reads a buffer it writes, which only an elementwise body may do"
                )
        problem = body_problem(
            self.body.block,
            [tensor_of(t) for t in input_types],
            [tensor_of(t) for t in output_types],
        )
        if problem is not None:
            raise VerifyException(f"'{self.name}' {problem}")
