"""Unit tests of the dtype-guard verifier: each invariant V1-V10 firing and holding.

Every case starts from one legal call (the row-major bf16 product Y[8,32] = X[8,64]
W[64,32] in cuBLASLt's column-major view) and changes the one thing the invariant is
about, so a failure names exactly the check that moved.
"""

from __future__ import annotations

import dataclasses

import pytest
from xdsl.dialects.builtin import (
    Float8E4M3FNType,
    Float8E5M2Type,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
    i8,
    i32,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Region
from xdsl.utils.exceptions import VerifyException

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose
from lumir.diagnostics import LumirDiagnosticError
from lumir.dialects.cublaslt import MatmulDescriptor, MatmulOp
from lumir.passes.cublaslt_verify import CublasltVerifyPass
from lumir.verifier import (
    SUPPORTED_ROWS,
    MatmulDiagnostic,
    check_matmul,
    find_row,
    format_tensor_type,
    matmul_diagnostics,
)

E4M3 = Float8E4M3FNType()
E5M2 = Float8E5M2Type()

BASE = MatmulDescriptor(
    transa=Transpose.N,
    transb=Transpose.N,
    order_a=Order.COL,
    order_b=Order.COL,
    order_c=Order.COL,
    order_d=Order.COL,
    m=32,
    n=8,
    k=64,
    lda=32,
    ldb=64,
    ldc=32,
    ldd=32,
    batch_count=1,
    stride_a=0,
    stride_b=0,
    stride_c=0,
    stride_d=0,
    a_dtype=DataType.BF16,
    b_dtype=DataType.BF16,
    c_dtype=DataType.BF16,
    d_dtype=DataType.BF16,
    compute_type=ComputeType.COMPUTE_32F,
    scale_type=DataType.F32,
    alpha=1.0,
    beta=0.0,
    epilogue=Epilogue.DEFAULT,
)


def tensor(element: Attribute, *shape: int) -> TensorType[Attribute]:
    return TensorType(element, list(shape))


W = tensor(bf16, 64, 32)
X = tensor(bf16, 8, 64)
D = tensor(bf16, 8, 32)


def check(
    desc: MatmulDescriptor = BASE,
    a: TensorType[Attribute] = W,
    b: TensorType[Attribute] = X,
    c: TensorType[Attribute] | None = None,
    bias: TensorType[Attribute] | None = None,
    d: TensorType[Attribute] = D,
    **changes: object,
) -> list[str]:
    """The diagnostics (as strings) of BASE with `changes`, over the given types."""
    return [str(p) for p in check_matmul(dataclasses.replace(desc, **changes), a, b, c, bias, d)]


def ids(messages: list[str]) -> list[str]:
    return [message.split(":", 1)[0] for message in messages]


def test_base_call_is_legal() -> None:
    assert check() == []


def test_diagnostic_str_is_id_and_message() -> None:
    diagnostic = MatmulDiagnostic("V4", "beta = 1.0 reads C")
    assert str(diagnostic) == "V4: beta = 1.0 reads C"


def test_format_tensor_type() -> None:
    assert format_tensor_type(tensor(bf16, 6, 2048)) == "tensor<6x2048xbf16>"
    assert format_tensor_type(tensor(E4M3, -1, 16)) == "tensor<?x16xf8E4M3FN>"
    assert format_tensor_type(tensor(i64, 3)) == "tensor<3xi64>"


# --- V1 -------------------------------------------------------------------------------


def test_v1_mixed_16_bit_inputs() -> None:
    messages = check(b=tensor(f16, 8, 64), b_dtype=DataType.F16)
    assert messages == [
        "V1: a_dtype = bf16 but b_dtype = f16; cuBLASLt needs A and B to share a dtype "
        "unless they are a mixed FP8 pair (f8E4M3FN with f8E5M2)"
    ]


def test_v1_allows_mixed_fp8_pair() -> None:
    messages = check(
        a=tensor(E4M3, 64, 32),
        b=tensor(E5M2, 8, 64),
        a_dtype=DataType.F8E4M3,
        b_dtype=DataType.F8E5M2,
    )
    assert messages == []


# --- V2 -------------------------------------------------------------------------------


def test_v2_compute_16f_needs_f16_inputs() -> None:
    messages = check(compute_type=ComputeType.COMPUTE_16F, scale_type=DataType.F16)
    assert ids(messages) == ["V2"]
    assert "(compute compute_16f, scale f16, A bf16, B bf16, C bf16, D bf16)" in messages[0]
    assert "compute_32f/f32/bf16/bf16" in messages[0]


def test_v2_e5m2_pair_has_no_row() -> None:
    fp8 = {"a_dtype": DataType.F8E5M2, "b_dtype": DataType.F8E5M2}
    messages = check(a=tensor(E5M2, 64, 32), b=tensor(E5M2, 8, 64), **fp8)
    assert ids(messages) == ["V2"]
    assert messages[0].endswith("no row reads A f8E5M2 with B f8E5M2")


def test_v2_integer_row_runs_default_epilogue_only() -> None:
    ints = {
        "a": tensor(i8, 64, 32),
        "b": tensor(i8, 8, 64),
        "d": tensor(i32, 8, 32),
        "a_dtype": DataType.I8,
        "b_dtype": DataType.I8,
        "c_dtype": DataType.I32,
        "d_dtype": DataType.I32,
        "compute_type": ComputeType.COMPUTE_32I,
        "scale_type": DataType.I32,
    }
    assert check(**ints) == []  # type: ignore[arg-type]
    messages = check(epilogue=Epilogue.RELU, **ints)  # type: ignore[arg-type]
    assert messages == [
        "V2: the row (compute compute_32i, scale i32, A/B i8, C/D i32) runs only the "
        "default epilogue, but epilogue = relu"
    ]


def test_v2_silent_when_v1_or_v3_explain_the_call() -> None:
    assert ids(check(b=tensor(f16, 8, 64), b_dtype=DataType.F16)) == ["V1"]
    assert ids(check(d=tensor(f32, 8, 32), d_dtype=DataType.F32)) == ["V3"]


@pytest.mark.parametrize(
    ("compute", "scale", "element", "dtype"),
    [
        (ComputeType.COMPUTE_16F, DataType.F16, f16, DataType.F16),
        (ComputeType.COMPUTE_16F_PEDANTIC, DataType.F16, f16, DataType.F16),
        (ComputeType.COMPUTE_32F_PEDANTIC, DataType.F32, bf16, DataType.BF16),
        (ComputeType.COMPUTE_32F_FAST_16F, DataType.F32, f32, DataType.F32),
        (ComputeType.COMPUTE_32F_FAST_16BF, DataType.F32, f32, DataType.F32),
        (ComputeType.COMPUTE_32F_FAST_TF32, DataType.F32, f32, DataType.F32),
        (ComputeType.COMPUTE_64F, DataType.F64, f64, DataType.F64),
        (ComputeType.COMPUTE_64F_PEDANTIC, DataType.F64, f64, DataType.F64),
    ],
)
def test_v2_rows_with_one_type_throughout(
    compute: ComputeType, scale: DataType, element: Attribute, dtype: DataType
) -> None:
    messages = check(
        a=tensor(element, 64, 32),
        b=tensor(element, 8, 64),
        d=tensor(element, 8, 32),
        a_dtype=dtype,
        b_dtype=dtype,
        c_dtype=dtype,
        d_dtype=dtype,
        compute_type=compute,
        scale_type=scale,
    )
    assert messages == []


def test_table_has_unique_keys_and_the_documented_rows() -> None:
    keys = [row.key for row in SUPPORTED_ROWS]
    assert len(keys) == len(set(keys))
    assert find_row(
        ComputeType.COMPUTE_32F,
        DataType.F32,
        DataType.BF16,
        DataType.BF16,
        DataType.F32,
        DataType.F32,
    )
    assert find_row(
        ComputeType.COMPUTE_32F,
        DataType.F32,
        DataType.F8E4M3,
        DataType.F8E4M3,
        DataType.BF16,
        DataType.F8E4M3,
    )
    assert not find_row(
        ComputeType.COMPUTE_32F,
        DataType.F32,
        DataType.F8E4M3,
        DataType.F8E4M3,
        DataType.BF16,
        DataType.F8E5M2,
    )
    assert not any(row.c_dtype != row.d_dtype for row in SUPPORTED_ROWS if not row.is_fp8)


# --- V3 -------------------------------------------------------------------------------


def test_v3_c_and_d_share_a_dtype() -> None:
    messages = check(d=tensor(f32, 8, 32), d_dtype=DataType.F32)
    assert messages == [
        "V3: c_dtype = bf16 but d_dtype = f32; C and D share a dtype outside the FP8 rows "
        "(A bf16, B bf16)"
    ]
    assert check(d=tensor(f32, 8, 32), c_dtype=DataType.F32, d_dtype=DataType.F32) == []


def test_v3_fp8_rows_let_c_differ_from_d() -> None:
    messages = check(
        a=tensor(E4M3, 64, 32),
        b=tensor(E4M3, 8, 64),
        d=tensor(E4M3, 8, 32),
        a_dtype=DataType.F8E4M3,
        b_dtype=DataType.F8E4M3,
        d_dtype=DataType.F8E4M3,
    )
    assert messages == []


# --- V4: the docs/design.md bug ------------------------------------------------------------


LLAMA = dataclasses.replace(
    BASE,
    transa=Transpose.T,
    m=2048,
    n=6,
    k=2048,
    lda=2048,
    ldb=2048,
    ldc=2048,
    ldd=2048,
    c_dtype=DataType.F32,
    d_dtype=DataType.F32,
    beta=1.0,
)


def test_v4_bf16_residual_under_f32_c_is_the_design_bug() -> None:
    messages = check(
        LLAMA,
        a=tensor(bf16, 2048, 2048),
        b=tensor(bf16, 6, 2048),
        c=tensor(bf16, 6, 2048),
        d=tensor(f32, 6, 2048),
    )
    assert messages == ["V4: beta = 1.0 reads C as f32, but operand C is tensor<6x2048xbf16>"]


def test_v4_residual_cast_to_f32_is_legal() -> None:
    messages = check(
        LLAMA,
        a=tensor(bf16, 2048, 2048),
        b=tensor(bf16, 6, 2048),
        c=tensor(f32, 6, 2048),
        d=tensor(f32, 6, 2048),
    )
    assert messages == []


def test_v4_beta_without_c() -> None:
    assert check(beta=1.0) == ["V4: beta = 1.0 reads C, but the op has no C operand"]


def test_v4_c_shape_and_order() -> None:
    assert check(c=tensor(bf16, 8, 16), ldc=16, beta=1.0) == [
        "V4: beta = 1.0 reads C with D's shape (tensor<8x32xbf16>), "
        "but operand C is tensor<8x16xbf16>"
    ]
    assert check(c=D, order_c=Order.ROW, beta=-0.5) == [
        "V4: beta = -0.5 reads C in D's layout, but order_c = row and order_d = col"
    ]


def test_v4_nan_beta_reads_c() -> None:
    assert ids(check(beta=float("nan"))) == ["V4"]


# --- V5 -------------------------------------------------------------------------------


def test_v5_beta_zero_drops_c() -> None:
    assert check(c=D) == [
        "V5: beta = 0.0 does not read C, but the op has operand C tensor<8x32xbf16>"
    ]
    assert check(c=D, beta=-0.0) == [
        "V5: beta = -0.0 does not read C, but the op has operand C tensor<8x32xbf16>"
    ]


# --- V6 -------------------------------------------------------------------------------


BIAS = tensor(bf16, 32)


def test_v6_bias_epilogues_need_a_bias() -> None:
    assert check(epilogue=Epilogue.BIAS) == [
        "V6: epilogue bias adds a bias, but the op has no bias operand"
    ]
    assert check(bias=BIAS, epilogue=Epilogue.RELU_AUX_BIAS) == []


def test_v6_bias_length_is_m() -> None:
    assert check(bias=tensor(bf16, 8), epilogue=Epilogue.BIAS) == [
        "V6: epilogue bias adds a 1-D bias of length m = 32 (rows of D), "
        "but operand bias is tensor<8xbf16>"
    ]
    assert ids(check(bias=tensor(bf16, 1, 32), epilogue=Epilogue.BIAS)) == ["V6"]


def test_v6_bias_dtype_follows_d() -> None:
    f32_call = {"d": tensor(f32, 8, 32), "c_dtype": DataType.F32, "d_dtype": DataType.F32}
    assert check(bias=BIAS, epilogue=Epilogue.BIAS, **f32_call) == [  # type: ignore[arg-type]
        "V6: epilogue bias with C f32 and D f32 takes a bias of f32, "
        "but operand bias is tensor<32xbf16>"
    ]
    assert check(bias=tensor(f32, 32), epilogue=Epilogue.BIAS, **f32_call) == []  # type: ignore[arg-type]


def test_v6_fp8_f32_output_takes_bf16_bias() -> None:
    fp8 = {
        "a": tensor(E4M3, 64, 32),
        "b": tensor(E4M3, 8, 64),
        "d": tensor(f32, 8, 32),
        "a_dtype": DataType.F8E4M3,
        "b_dtype": DataType.F8E4M3,
        "c_dtype": DataType.F32,
        "d_dtype": DataType.F32,
        "epilogue": Epilogue.GELU_BIAS,
    }
    assert check(bias=BIAS, **fp8) == []  # type: ignore[arg-type]
    assert ids(check(bias=tensor(f32, 32), **fp8)) == ["V6"]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "epilogue",
    [e for e in Epilogue if not e.reads_bias],
)
def test_v6_other_epilogues_take_no_bias(epilogue: Epilogue) -> None:
    assert check(epilogue=epilogue) == []
    assert check(bias=BIAS, epilogue=epilogue) == [
        f"V6: epilogue {epilogue} takes no bias, but the op has operand bias tensor<32xbf16>"
    ]


# --- V7 -------------------------------------------------------------------------------

ROW_VIEW = {
    "order_a": Order.ROW,
    "order_b": Order.ROW,
    "order_c": Order.ROW,
    "order_d": Order.ROW,
    "m": 8,
    "n": 32,
    "lda": 64,
    "ldb": 32,
}


@pytest.mark.parametrize(
    "epilogue",
    [Epilogue.RELU_BIAS, Epilogue.GELU_BIAS, Epilogue.RELU_AUX_BIAS, Epilogue.GELU_AUX_BIAS],
)
def test_v7_activation_with_bias_refuses_row_d(epilogue: Epilogue) -> None:
    messages = check(a=X, b=W, bias=tensor(bf16, 8), epilogue=epilogue, **ROW_VIEW)  # type: ignore[arg-type]
    assert messages == [
        f"V7: epilogue {epilogue} is not supported with order_d = row; "
        f"emit the call in the column-major view"
    ]


def test_v7_plain_bias_and_col_view_are_fine() -> None:
    assert check(a=X, b=W, bias=tensor(bf16, 8), epilogue=Epilogue.BIAS, **ROW_VIEW) == []  # type: ignore[arg-type]
    assert check(a=X, b=W, epilogue=Epilogue.RELU, **ROW_VIEW) == []  # type: ignore[arg-type]
    assert check(bias=BIAS, epilogue=Epilogue.RELU_BIAS) == []


# --- V8 -------------------------------------------------------------------------------


def test_v8_m_n_k_against_shapes() -> None:
    assert check(m=16) == [
        "V8: op(A) must be m x k = 16 x 64, but operand A tensor<64x32xbf16> read in col "
        "order with transa = n is 32 x 64",
        "V8: D must be m x n = 16 x 8, but result D tensor<8x32xbf16> read in col order is 32 x 8",
    ]
    assert ids(check(n=4)) == ["V8", "V8"]
    assert ids(check(k=32)) == ["V8", "V8"]
    assert ids(check(transb=Transpose.T)) == ["V8"]


def test_v8_linear_layer_weight_read_transposed() -> None:
    assert check(a=tensor(bf16, 32, 64), transa=Transpose.T, lda=64) == []


def test_v8_leading_dimensions_are_dense() -> None:
    assert check(lda=64) == [
        "V8: lda = 64, but operand A tensor<64x32xbf16> is dense with leading dimension 32"
    ]
    assert ids(check(ldb=65)) == ["V8"]
    assert ids(check(ldd=8)) == ["V8"]
    assert ids(check(c=D, beta=1.0, ldc=8)) == ["V8"]


def test_v8_c_layout_is_ds_without_c() -> None:
    assert check(ldc=0) == [
        "V8: ldc = 0, but without a C operand the C layout is D's, with leading dimension 32"
    ]
    assert check(order_c=Order.ROW) == [
        "V8: order_c = row, but without a C operand the C layout is D's (order_d = col)"
    ]


def test_v8_rank() -> None:
    assert check(a=tensor(bf16, 1, 1, 64, 32)) == [
        "V8: operand A tensor<1x1x64x32xbf16> is 4-D; cuBLASLt matrices are 2-D, "
        "or 3-D for a strided batch"
    ]


BATCHED = {
    "a": tensor(bf16, 4, 64, 32),
    "b": tensor(bf16, 4, 8, 64),
    "d": tensor(bf16, 4, 8, 32),
    "batch_count": 4,
    "stride_a": 2048,
    "stride_b": 512,
    "stride_c": 256,
    "stride_d": 256,
}


def test_v8_strided_batch() -> None:
    assert check(**BATCHED) == []  # type: ignore[arg-type]
    assert ids(check(**{**BATCHED, "batch_count": 2})) == ["V8", "V8", "V8"]  # type: ignore[arg-type]
    assert check(**{**BATCHED, "stride_c": 0}) == [  # type: ignore[arg-type]
        "V8: stride_c = 0, but without a C operand the C layout is D's, with stride 256"
    ]
    assert check(**{**BATCHED, "batch_count": 0}) == [  # type: ignore[arg-type]
        "V8: batch_count = 0, but it must be at least 1"
    ]


def test_v8_shared_2d_operand_has_stride_zero() -> None:
    shared = {**BATCHED, "a": W, "stride_a": 0}
    assert check(**shared) == []  # type: ignore[arg-type]
    assert check(**{**shared, "stride_a": 2048}) == [  # type: ignore[arg-type]
        "V8: stride_a = 2048, but operand A tensor<64x32xbf16> is 2-D, shared by every "
        "batch with stride 0"
    ]


def test_v8_batched_call_needs_batched_d() -> None:
    messages = check(**{**BATCHED, "d": D, "stride_c": 0, "stride_d": 0})  # type: ignore[arg-type]
    assert messages == [
        "V8: batch_count = 4, but result D tensor<8x32xbf16> is 2-D and holds one matrix"
    ]


def test_v8_single_batch_has_zero_strides() -> None:
    assert check(stride_d=256) == [
        "V8: stride_d = 256, but batch_count = 1 calls have every stride 0"
    ]
    one = tensor(bf16, 1, 8, 64)
    assert check(b=one, d=tensor(bf16, 1, 8, 32)) == []


def test_v8_dynamic_dimensions_are_not_compared() -> None:
    assert check(b=tensor(bf16, -1, 64), d=tensor(bf16, -1, 32), n=8) == []


# --- V9 -------------------------------------------------------------------------------


def test_v9_element_types_match_dtypes() -> None:
    assert check(a=tensor(f16, 64, 32)) == [
        "V9: a_dtype = bf16, but operand A is tensor<64x32xf16>"
    ]
    assert check(d=tensor(f32, 8, 32)) == ["V9: d_dtype = bf16, but result D is tensor<8x32xf32>"]
    assert check(b=tensor(i64, 8, 64)) == ["V9: b_dtype = bf16, but operand B is tensor<8x64xi64>"]


def test_v9_reports_unread_c_and_leaves_read_c_to_v4() -> None:
    assert ids(check(c=tensor(f32, 8, 32))) == ["V5", "V9"]
    assert ids(check(c=tensor(f32, 8, 32), beta=1.0)) == ["V4"]


# --- V10 ------------------------------------------------------------------------------


FP8_TN = {
    "a": tensor(E4M3, 32, 64),
    "b": tensor(E4M3, 8, 64),
    "transa": Transpose.T,
    "lda": 64,
    "a_dtype": DataType.F8E4M3,
    "b_dtype": DataType.F8E4M3,
}


def test_v10_fp8_alignment() -> None:
    assert check(**FP8_TN) == []  # type: ignore[arg-type]
    messages = check(
        **{  # type: ignore[arg-type]
            **FP8_TN,
            "a": tensor(E4M3, 32, 40),
            "b": tensor(E4M3, 8, 40),
            "k": 40,
            "lda": 40,
            "ldb": 40,
        }
    )
    assert messages == [
        "V10: FP8 calls need 16-byte-aligned leading dimensions, but lda = 40 of f8E4M3FN "
        "is 40 bytes",
        "V10: FP8 calls need 16-byte-aligned leading dimensions, but ldb = 40 of f8E4M3FN "
        "is 40 bytes",
        "V10: FP8 calls need k to be a multiple of 16, but k = 40",
    ]


def test_v10_counts_bytes_of_each_matrix_type() -> None:
    # ldd = 36 bf16 elements is 72 bytes: misaligned, though 36 e4m3 would be too.
    messages = check(
        **{**FP8_TN, "a": tensor(E4M3, 36, 64)},  # type: ignore[arg-type]
        d=tensor(bf16, 8, 36),
        m=36,
        ldc=36,
        ldd=36,
    )
    assert messages == [
        "V10: FP8 calls need 16-byte-aligned leading dimensions, but ldd = 36 of bf16 is 72 bytes"
    ]


def test_v10_does_not_apply_without_fp8() -> None:
    assert (
        check(
            a=tensor(bf16, 32, 40), b=tensor(bf16, 8, 40), transa=Transpose.T, k=40, lda=40, ldb=40
        )
        == []
    )


# --- the op and the pass --------------------------------------------------------------


def _module(*calls: tuple[MatmulDescriptor, TensorType[Attribute] | None]) -> ModuleOp:
    """A module with one function per call: A = W, B = X, an optional C argument."""
    funcs = []
    for desc, c_type in calls:
        arg_types = [W, X] + ([c_type] if c_type is not None else [])
        block = Block(arg_types=arg_types)
        c = block.args[2] if c_type is not None else None
        op = MatmulOp(desc, block.args[0], block.args[1], tensor(f32, 8, 32), c=c)
        block.add_ops([op, ReturnOp(op.d)])
        funcs.append(FuncOp("f", (arg_types, [tensor(f32, 8, 32)]), Region(block)))
    return ModuleOp(funcs)


BUGGY = dataclasses.replace(BASE, c_dtype=DataType.F32, d_dtype=DataType.F32, beta=1.0)


def test_matmul_op_verify_raises_with_every_diagnostic() -> None:
    module = _module((BUGGY, D))
    op = next(o for o in module.walk() if isinstance(o, MatmulOp))
    assert [str(p) for p in matmul_diagnostics(op)] == [
        "V4: beta = 1.0 reads C as f32, but operand C is tensor<8x32xbf16>"
    ]
    with pytest.raises(VerifyException, match=r"V4: beta = 1\.0 reads C as f32"):
        op.verify()


def test_pass_reports_all_violations_of_all_ops() -> None:
    legal = dataclasses.replace(BUGGY, beta=0.0)
    module = _module(
        (BUGGY, D), (legal, None), (dataclasses.replace(legal, lda=7), tensor(f32, 8, 32))
    )
    with pytest.raises(LumirDiagnosticError) as raised:
        CublasltVerifyPass().apply(None, module)  # type: ignore[arg-type]
    assert [d.message for d in raised.value.diagnostics] == [
        "V4: beta = 1.0 reads C as f32, but operand C is tensor<8x32xbf16>",
        "V5: beta = 0.0 does not read C, but the op has operand C tensor<8x32xf32>",
        "V8: lda = 7, but operand A tensor<64x32xbf16> is dense with leading dimension 32",
    ]


def test_pass_leaves_legal_ir_alone() -> None:
    module = _module((dataclasses.replace(BUGGY, beta=0.0), None))
    before = str(module)
    CublasltVerifyPass().apply(None, module)  # type: ignore[arg-type]
    assert str(module) == before


def test_pass_reports_malformed_op_once() -> None:
    module = _module((dataclasses.replace(BUGGY, beta=0.0), None))
    op = next(o for o in module.walk() if isinstance(o, MatmulOp))
    del op.properties["lda"]
    with pytest.raises(LumirDiagnosticError) as raised:
        CublasltVerifyPass().apply(None, module)  # type: ignore[arg-type]
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.message.startswith("malformed cublaslt.matmul: property 'lda' expected")
