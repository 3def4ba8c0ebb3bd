"""The invariants V1-V10 of docs/design.md, one small check function per invariant.

Every check takes a `MatmulCall` (the descriptor plus the builtin tensor types of the
operands and the result) and returns the violations it finds as `MatmulDiagnostic`s
that name the invariant and the concrete values involved. Nothing here prints or
parses IR, so the e-graph extractor can afford to run `check_matmul` on every
candidate it considers.

Shapes follow docs/conventions.md: a dense row-major tensor `[B x] R x C` is read in
COL order as a C x R column-major matrix and in ROW order as an R x C row-major
matrix; either way its leading dimension is C. A dynamic dimension (`?`) is not
compared with the descriptor here: the runtime plans each concrete shape separately.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property

from xdsl.dialects.builtin import NoneAttr, TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from lumir.cublaslt_enums import DataType, Epilogue, Operand, Order
from lumir.matmul_descriptor import MatmulDescriptor
from lumir.operand_layout import OPERAND_FIELDS, tensor_op_dims
from lumir.verifier.type_table import (
    TypeRow,
    find_row,
    is_fp8_ab_pair,
    is_supported_ab_pair,
    rows_for_inputs,
)

FP8_ALIGNMENT_BYTES = 16
"""Byte alignment FP8 calls need for every leading dimension, and for k (V10)."""


class Invariant(StrEnum):
    """The invariants of docs/verifier.md; the value is the id every diagnostic starts with."""

    V1 = "V1"
    V2 = "V2"
    V3 = "V3"
    V4 = "V4"
    V5 = "V5"
    V6 = "V6"
    V7 = "V7"
    V8 = "V8"
    V9 = "V9"
    V10 = "V10"


@dataclass(frozen=True)
class MatmulDiagnostic:
    """One violated invariant: which one, and what is wrong, with values."""

    invariant: Invariant
    message: str

    def __str__(self) -> str:
        return f"{self.invariant}: {self.message}"


class FindingsVerifyException(VerifyException):
    """An op's `verify_` failure that keeps its findings apart, one message each.

    xDSL prints a verify failure as one text, so the text joins them; the diagnostics
    machinery reads `findings` and reports each at the op, never splitting text again.
    """

    def __init__(self, findings: Sequence[object]):
        self.findings = tuple(str(finding) for finding in findings)
        super().__init__("\n".join(self.findings))


@dataclass(frozen=True)
class MatmulCall:
    """A `cublaslt.matmul` as the checks see it: descriptor and operand types.

    `c` and `bias` are None when the op has no such operand. D's shape and the
    type-table row are computed on first use and kept, because several checks need them.
    """

    desc: MatmulDescriptor
    a: TensorType[Attribute]
    b: TensorType[Attribute]
    c: TensorType[Attribute] | None
    bias: TensorType[Attribute] | None
    d: TensorType[Attribute]

    @cached_property
    def d_shape(self) -> tuple[int, ...]:
        return self.d.get_shape()

    @property
    def reads_c(self) -> bool:
        """True when cuBLASLt reads C: any beta other than zero (NaN included)."""
        return self.desc.beta != 0.0

    @cached_property
    def row(self) -> TypeRow | None:
        """The type-table row of the declared types, or None if there is none."""
        desc = self.desc
        return find_row(
            desc.compute_type,
            desc.scale_type,
            desc.a_dtype,
            desc.b_dtype,
            desc.c_dtype,
            desc.d_dtype,
        )


# --- formatting --------------------------------------------------------------------


def format_tensor_type(tensor: TensorType[Attribute]) -> str:
    """`tensor<6x2048xbf16>` without going through xDSL's printer (cheap, exact)."""
    if not isinstance(tensor.encoding, NoneAttr):
        return str(tensor)
    dims = "".join(f"{_format_dim(dim)}x" for dim in tensor.get_shape())
    return f"tensor<{dims}{_element_text(tensor.element_type)}>"


@cache
def _element_text(element_type: Attribute) -> str:
    """How the printer spells an element type; few distinct ones exist, so remember them."""
    return str(element_type)


def _format_dim(dim: int) -> str:
    return "?" if dim < 0 else str(dim)


def _format_float(value: float) -> str:
    return repr(float(value))


def _known(*dims: int) -> bool:
    return all(dim >= 0 for dim in dims)


def _differs(actual: int, expected: int) -> bool:
    """True when a static dimension contradicts the descriptor (dynamic ones never do)."""
    return _known(actual) and actual != expected


# --- V1-V3: the type table ------------------------------------------------------------


def check_v1_ab_dtypes(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V1: A and B share a dtype, except the mixed FP8 pairs the table lists."""
    desc = call.desc
    if desc.a_dtype == desc.b_dtype or is_supported_ab_pair(desc.a_dtype, desc.b_dtype):
        return []
    return [
        MatmulDiagnostic(
            Invariant.V1,
            f"a_dtype = {desc.a_dtype} but b_dtype = {desc.b_dtype}; cuBLASLt needs A and B "
            f"to share a dtype unless they are a mixed FP8 pair (f8E4M3FN with f8E5M2)",
        )
    ]


def check_v2_type_table_row(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V2: (compute, scale, A, B, C, D) is a row of the table, and the row allows the epilogue.

    Not reported when V1 or V3 already fire: a pair that breaks them has no row, and
    their messages say more precisely what is wrong.
    """
    desc = call.desc
    if _breaks_v1(desc) or _breaks_v3(desc):
        return []
    row = call.row
    if row is None:
        return [MatmulDiagnostic(Invariant.V2, _no_row_message(desc))]
    if not row.supports_epilogues and desc.epilogue != Epilogue.DEFAULT:
        return [
            MatmulDiagnostic(
                Invariant.V2,
                f"the row (compute {desc.compute_type}, scale {desc.scale_type}, "
                f"A/B {desc.a_dtype}, C/D {desc.d_dtype}) runs only the default epilogue, "
                f"but epilogue = {desc.epilogue}",
            )
        ]
    return []


def _no_row_message(desc: MatmulDescriptor) -> str:
    types = (
        f"(compute {desc.compute_type}, scale {desc.scale_type}, A {desc.a_dtype}, "
        f"B {desc.b_dtype}, C {desc.c_dtype}, D {desc.d_dtype})"
    )
    rows = rows_for_inputs(desc.a_dtype, desc.b_dtype)
    if not rows:
        return (
            f"{types} is not in cuBLASLt's supported-type table: no row reads "
            f"A {desc.a_dtype} with B {desc.b_dtype}"
        )
    options = ", ".join(
        f"{row.compute_type}/{row.scale_type}/{row.c_dtype}/{row.d_dtype}" for row in rows
    )
    return (
        f"{types} is not in cuBLASLt's supported-type table; with these A and B it "
        f"supports compute/scale/C/D {options}"
    )


def _breaks_v1(desc: MatmulDescriptor) -> bool:
    return desc.a_dtype != desc.b_dtype and not is_supported_ab_pair(desc.a_dtype, desc.b_dtype)


def _breaks_v3(desc: MatmulDescriptor) -> bool:
    return desc.c_dtype != desc.d_dtype and not is_fp8_ab_pair(desc.a_dtype, desc.b_dtype)


def check_v3_cd_dtypes(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V3: C and D share a dtype unless A and B select the FP8 table."""
    desc = call.desc
    if not _breaks_v3(desc):
        return []
    return [
        MatmulDiagnostic(
            Invariant.V3,
            f"c_dtype = {desc.c_dtype} but d_dtype = {desc.d_dtype}; C and D share a dtype "
            f"outside the FP8 rows (A {desc.a_dtype}, B {desc.b_dtype})",
        )
    ]


# --- V4-V7: operand list, C, bias ------------------------------------------------------


def check_v4_beta_reads_c(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V4: beta != 0 reads C, so C exists with c_dtype, D's shape and D's order.

    This is the invariant the docs/design.md bug broke: a C declared f32 over a bf16 buffer.
    """
    desc = call.desc
    if not call.reads_c:
        return []
    beta = _format_float(desc.beta)
    if call.c is None:
        return [
            MatmulDiagnostic(Invariant.V4, f"beta = {beta} reads C, but the op has no C operand")
        ]
    found: list[MatmulDiagnostic] = []
    c_text = format_tensor_type(call.c)
    if DataType.from_element_type(call.c.element_type) != desc.c_dtype:
        found.append(
            MatmulDiagnostic(
                Invariant.V4, f"beta = {beta} reads C as {desc.c_dtype}, but operand C is {c_text}"
            )
        )
    if call.c.get_shape() != call.d_shape:
        found.append(
            MatmulDiagnostic(
                Invariant.V4,
                f"beta = {beta} reads C with D's shape ({format_tensor_type(call.d)}), "
                f"but operand C is {c_text}",
            )
        )
    if desc.order_c != desc.order_d:
        found.append(
            MatmulDiagnostic(
                Invariant.V4,
                f"beta = {beta} reads C in D's layout, but order_c = {desc.order_c} "
                f"and order_d = {desc.order_d}",
            )
        )
    return found


def check_v5_beta_zero_no_c(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V5: beta = 0 does not read C, so the op has no C operand."""
    if call.reads_c or call.c is None:
        return []
    return [
        MatmulDiagnostic(
            Invariant.V5,
            f"beta = {_format_float(call.desc.beta)} does not read C, but the op has "
            f"operand C {format_tensor_type(call.c)}",
        )
    ]


def allowed_bias_dtypes(call: MatmulCall) -> tuple[DataType, ...]:
    """The bias types cuBLASLt accepts: the row's, or D's when no row matches (V2 fires)."""
    row = call.row
    if row is not None and row.supports_epilogues:
        return row.bias_dtypes
    return (call.desc.d_dtype,)


def check_v6_bias(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V6: BIAS epilogues take a 1-D bias of length m with an allowed dtype; others none.

    The gradient epilogues (DRELU_BGRAD, DGELU_BGRAD, BGRADA, BGRADB) write their bias
    gradient as an output in cuBLASLt, so they take no bias operand either.
    """
    desc = call.desc
    epilogue = desc.epilogue
    if not epilogue.reads_bias:
        if call.bias is None:
            return []
        return [
            MatmulDiagnostic(
                Invariant.V6,
                f"epilogue {epilogue} takes no bias, but the op has operand bias "
                f"{format_tensor_type(call.bias)}",
            )
        ]
    if call.bias is None:
        return [
            MatmulDiagnostic(
                Invariant.V6, f"epilogue {epilogue} adds a bias, but the op has no bias operand"
            )
        ]
    found: list[MatmulDiagnostic] = []
    bias_text = format_tensor_type(call.bias)
    shape = call.bias.get_shape()
    if len(shape) != 1 or _differs(shape[0], desc.m):
        found.append(
            MatmulDiagnostic(
                Invariant.V6,
                f"epilogue {epilogue} adds a 1-D bias of length m = {desc.m} (rows of D), "
                f"but operand bias is {bias_text}",
            )
        )
    allowed = allowed_bias_dtypes(call)
    if DataType.from_element_type(call.bias.element_type) not in allowed:
        found.append(
            MatmulDiagnostic(
                Invariant.V6,
                f"epilogue {epilogue} with C {desc.c_dtype} and D {desc.d_dtype} takes a "
                f"bias of {' or '.join(str(dtype) for dtype in allowed)}, "
                f"but operand bias is {bias_text}",
            )
        )
    return found


def check_v7_bias_activation_order(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V7: a bias with an activation (RELU/GELU + BIAS, AUX forms too) needs a COL-order D.

    Measured on the H200: RELU_BIAS with a row-major D returns
    CUBLAS_STATUS_NOT_SUPPORTED; the column-major view avoids it.
    """
    desc = call.desc
    epilogue = desc.epilogue
    if not (epilogue.reads_bias and epilogue.activation is not None):
        return []
    if desc.order_d != Order.ROW:
        return []
    return [
        MatmulDiagnostic(
            Invariant.V7,
            f"epilogue {epilogue} is not supported with order_d = {desc.order_d}; "
            f"emit the call in the column-major view",
        )
    ]


# --- V8: shapes, leading dimensions, batches -----------------------------------------


@dataclass(frozen=True)
class _Operand:
    """One matrix operand for the V8 checks: its role, tensor and layout fields."""

    role: str
    tensor: TensorType[Attribute]
    ld_field: str
    ld: int
    stride_field: str
    stride: int

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tensor.get_shape()

    @property
    def label(self) -> str:
        kind = "result" if self.role == "D" else "operand"
        return f"{kind} {self.role} {format_tensor_type(self.tensor)}"


def check_v8_shapes(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V8: m, n, k, leading dimensions, batch count and strides agree with the shapes.

    - op(A) is m x k, op(B) is k x n, D is m x n (docs/conventions.md).
    - Operands are dense: every ld equals the tensor's last dimension.
    - Without a C operand cuBLASLt still takes a C layout, and lumir passes D's:
      order_c, ldc and stride_c must then equal D's.
    - Batches: a 3-D operand `B x R x C` holds `batch_count = B` matrices with stride
      R*C; a 2-D operand in a batched call is shared with stride 0; D is 3-D whenever
      batch_count > 1. A call with batch_count = 1 has every stride 0 (one rule, so
      equal calls compare equal), even for a 3-D operand with leading dimension 1.
    """
    desc = call.desc
    tensors = {Operand.A: call.a, Operand.B: call.b, Operand.C: call.c, Operand.D: call.d}
    operands = [
        _Operand(
            fields.operand.value,
            tensor,
            fields.ld,
            getattr(desc, fields.ld),
            fields.stride,
            getattr(desc, fields.stride),
        )
        for fields in OPERAND_FIELDS.values()
        if (tensor := tensors[fields.operand]) is not None
    ]
    found: list[MatmulDiagnostic] = []
    well_formed: list[_Operand] = []
    for operand in operands:
        if len(operand.shape) in (2, 3):
            well_formed.append(operand)
        else:
            found.append(
                MatmulDiagnostic(
                    Invariant.V8,
                    f"{operand.label} is {len(operand.shape)}-D; cuBLASLt matrices are 2-D, "
                    f"or 3-D for a strided batch",
                )
            )
    by_role = {operand.role: operand for operand in well_formed}
    found += _check_matrix_dims(desc, by_role)
    found += _check_leading_dims(call, well_formed, by_role.get("D"))
    found += _check_batches(call, well_formed, by_role.get("D"))
    return found


def _check_matrix_dims(
    desc: MatmulDescriptor, by_role: dict[str, _Operand]
) -> list[MatmulDiagnostic]:
    found: list[MatmulDiagnostic] = []
    for fields in (OPERAND_FIELDS[Operand.A], OPERAND_FIELDS[Operand.B], OPERAND_FIELDS[Operand.D]):
        role = fields.operand.value
        operand = by_role.get(role)
        if operand is None:
            continue
        name = role if fields.trans is None else f"op({role})"
        dims_name = " x ".join(fields.op_dims)
        expected = fields.op_sizes(desc)
        order, trans = getattr(desc, fields.order), fields.transpose(desc)
        actual = tensor_op_dims(operand.shape, order, trans)
        if not any(_differs(have, want) for have, want in zip(actual, expected, strict=True)):
            continue
        how = f"read in {order} order"
        if fields.trans is not None:
            how += f" with {fields.trans} = {trans}"
        found.append(
            MatmulDiagnostic(
                Invariant.V8,
                f"{name} must be {dims_name} = {expected[0]} x {expected[1]}, but "
                f"{operand.label} {how} is {_format_dim(actual[0])} x {_format_dim(actual[1])}",
            )
        )
    return found


def _check_leading_dims(
    call: MatmulCall, operands: list[_Operand], d: _Operand | None
) -> list[MatmulDiagnostic]:
    desc = call.desc
    found: list[MatmulDiagnostic] = []
    for operand in operands:
        dense_ld = operand.shape[-1]
        if _differs(dense_ld, operand.ld):
            found.append(
                MatmulDiagnostic(
                    Invariant.V8,
                    f"{operand.ld_field} = {operand.ld}, but {operand.label} is dense with "
                    f"leading dimension {dense_ld}",
                )
            )
    if call.c is None:
        if desc.order_c != desc.order_d:
            found.append(
                MatmulDiagnostic(
                    Invariant.V8,
                    f"order_c = {desc.order_c}, but without a C operand the C layout is D's "
                    f"(order_d = {desc.order_d})",
                )
            )
        if d is not None and _differs(d.shape[-1], desc.ldc):
            found.append(
                MatmulDiagnostic(
                    Invariant.V8,
                    f"ldc = {desc.ldc}, but without a C operand the C layout is D's, "
                    f"with leading dimension {d.shape[-1]}",
                )
            )
    return found


def _expected_stride(operand: _Operand, batch_count: int) -> int | None:
    """The stride lumir's layout rule gives an operand, or None if it is dynamic."""
    if batch_count == 1 or len(operand.shape) == 2:
        return 0
    rows, cols = operand.shape[-2], operand.shape[-1]
    return rows * cols if _known(rows, cols) else None


def _stride_reason(operand: _Operand, batch_count: int, expected: int) -> str:
    if batch_count == 1:
        return "batch_count = 1 calls have every stride 0"
    if len(operand.shape) == 2:
        return f"{operand.label} is 2-D, shared by every batch with stride 0"
    return f"{operand.label} is a strided batch with stride {expected}"


def _check_batches(
    call: MatmulCall, operands: list[_Operand], d: _Operand | None
) -> list[MatmulDiagnostic]:
    desc = call.desc
    batch_count = desc.batch_count
    if batch_count < 1:
        return [
            MatmulDiagnostic(
                Invariant.V8, f"batch_count = {batch_count}, but it must be at least 1"
            )
        ]
    found: list[MatmulDiagnostic] = []
    for operand in operands:
        if len(operand.shape) == 3 and _differs(operand.shape[0], batch_count):
            found.append(
                MatmulDiagnostic(
                    Invariant.V8,
                    f"batch_count = {batch_count}, but {operand.label} holds "
                    f"{operand.shape[0]} matrices",
                )
            )
    if d is not None and batch_count > 1 and len(d.shape) == 2:
        found.append(
            MatmulDiagnostic(
                Invariant.V8,
                f"batch_count = {batch_count}, but {d.label} is 2-D and holds one matrix",
            )
        )
    for operand in operands:
        expected = _expected_stride(operand, batch_count)
        if expected is not None and operand.stride != expected:
            found.append(
                MatmulDiagnostic(
                    Invariant.V8,
                    f"{operand.stride_field} = {operand.stride}, but "
                    f"{_stride_reason(operand, batch_count, expected)}",
                )
            )
    if call.c is None and d is not None:
        expected = _expected_stride(d, batch_count)
        if expected is not None and desc.stride_c != expected:
            found.append(
                MatmulDiagnostic(
                    Invariant.V8,
                    f"stride_c = {desc.stride_c}, but without a C operand the C layout is "
                    f"D's, with stride {expected}",
                )
            )
    return found


# --- V9, V10 -------------------------------------------------------------------------


def check_v9_element_types(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V9: A, B and D have the declared element types; so does a C that V4 does not read.

    A C that beta reads is V4's to report (that is the docs/design.md bug's own check).
    """
    desc = call.desc
    pairs: list[tuple[str, DataType, str, TensorType[Attribute]]] = [
        ("a_dtype", desc.a_dtype, "operand A", call.a),
        ("b_dtype", desc.b_dtype, "operand B", call.b),
    ]
    if call.c is not None and not call.reads_c:
        pairs.append(("c_dtype", desc.c_dtype, "operand C", call.c))
    pairs.append(("d_dtype", desc.d_dtype, "result D", call.d))
    return [
        MatmulDiagnostic(
            Invariant.V9, f"{field} = {declared}, but {label} is {format_tensor_type(tensor)}"
        )
        for field, declared, label, tensor in pairs
        if DataType.from_element_type(tensor.element_type) != declared
    ]


def check_v10_fp8_alignment(call: MatmulCall) -> list[MatmulDiagnostic]:
    """V10: a call with FP8 A or B needs 16-byte leading dimensions and k % 16 == 0.

    cuBLASLt's FP8 kernels load 16-byte vectors: every leading dimension times its
    matrix's byte width must be a multiple of 16 (`ld * byte_width % 16 == 0`, for
    A, B, D, and C when present), and k must be a multiple of 16. Calls without FP8
    inputs have no alignment requirement here: cuBLASLt picks a slower kernel.
    """
    desc = call.desc
    if not (desc.a_dtype.is_fp8 or desc.b_dtype.is_fp8):
        return []
    found: list[MatmulDiagnostic] = []
    for operand, fields in OPERAND_FIELDS.items():
        if operand is Operand.C and call.c is None:
            continue
        field, ld = fields.ld, getattr(desc, fields.ld)
        dtype: DataType = getattr(desc, fields.dtype)
        size = ld * dtype.byte_width
        if size % FP8_ALIGNMENT_BYTES:
            found.append(
                MatmulDiagnostic(
                    Invariant.V10,
                    f"FP8 calls need {FP8_ALIGNMENT_BYTES}-byte-aligned leading dimensions, "
                    f"but {field} = {ld} of {dtype} is {size} bytes",
                )
            )
    if desc.k % FP8_ALIGNMENT_BYTES:
        found.append(
            MatmulDiagnostic(
                Invariant.V10,
                f"FP8 calls need k to be a multiple of {FP8_ALIGNMENT_BYTES}, but k = {desc.k}",
            )
        )
    return found


# --- entry points --------------------------------------------------------------------

INVARIANT_CHECKS: tuple[tuple[Invariant, Callable[[MatmulCall], list[MatmulDiagnostic]]], ...] = (
    (Invariant.V1, check_v1_ab_dtypes),
    (Invariant.V2, check_v2_type_table_row),
    (Invariant.V3, check_v3_cd_dtypes),
    (Invariant.V4, check_v4_beta_reads_c),
    (Invariant.V5, check_v5_beta_zero_no_c),
    (Invariant.V6, check_v6_bias),
    (Invariant.V7, check_v7_bias_activation_order),
    (Invariant.V8, check_v8_shapes),
    (Invariant.V9, check_v9_element_types),
    (Invariant.V10, check_v10_fp8_alignment),
)
"""Every invariant's id and check, in id order (the order diagnostics come out in)."""


def check_matmul(
    desc: MatmulDescriptor,
    a_type: TensorType[Attribute],
    b_type: TensorType[Attribute],
    c_type: TensorType[Attribute] | None,
    bias_type: TensorType[Attribute] | None,
    d_type: TensorType[Attribute],
) -> list[MatmulDiagnostic]:
    """All violations of V1-V10 by one cuBLASLt call, in invariant order.

    An empty list means the call is legal. Pure Python over the descriptor and the
    builtin tensor types, so the extractor can call it per candidate e-node.
    """
    call = MatmulCall(desc, a_type, b_type, c_type, bias_type, d_type)
    found: list[MatmulDiagnostic] = []
    for _, check in INVARIANT_CHECKS:
        found += check(call)
    return found
