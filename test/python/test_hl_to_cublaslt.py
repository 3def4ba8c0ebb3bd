"""hl-canonicalize and hl-to-cublaslt, checked by running the IR they produce.

The lit tests pin the exact IR; these tests check that it computes the right numbers.
Each case is a small `hl` function; it is run once as written (torch ops, `torch.matmul`
for products) and once after `hl-canonicalize,hl-to-cublaslt`, where every
`cublaslt.matmul` is evaluated by reading flat buffers through the descriptor exactly
as cuBLASLt does (column-major, leading dimension, batch stride, transpose flags). The
reference reader below is written from docs/conventions.md, not from the builder, so a
wrong ld, stride or flag shows up as wrong numbers (or an out-of-range read).

The `cuda` test runs the same lowered calls through cuBLASLt itself on a GPU.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from io import StringIO

import pytest
import torch
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
    i32,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.printer import Printer

from lumir.context import lumir_context
from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose
from lumir.diagnostics import LumirDiagnosticError
from lumir.dialects import cublaslt, hl
from lumir.parsing import LocatedParser
from lumir.passes.cublaslt_builders import (
    UnsupportedMatmulError,
    dense_layout,
    row_major_matmul,
    row_major_matmul_op,
    swaps_last_two,
)
from lumir.passes.hl_canonicalize import HLCanonicalizePass, is_exact_widening
from lumir.passes.hl_to_cublaslt import HLToCublasltPass
from lumir.runtime.cuda_cublaslt import CublasLtMatmulPlan, cublaslt_available
from lumir.testing.fuzz_programs import random_program
from lumir.verifier import check_matmul

TORCH_DTYPE: dict[type[Attribute], torch.dtype] = {
    Float16Type: torch.float16,
    BFloat16Type: torch.bfloat16,
    Float32Type: torch.float32,
    Float64Type: torch.float64,
    Float8E4M3FNType: torch.float8_e4m3fn,
    Float8E5M2Type: torch.float8_e5m2,
}


def torch_dtype(element_type: Attribute) -> torch.dtype:
    return TORCH_DTYPE[type(element_type)]


def tensor_type(value: SSAValue) -> TensorType[Attribute]:
    assert isinstance(value.type, TensorType)
    return value.type


# --- a tiny interpreter of the ops these passes read and write ----------------------------

MatmulRunner = Callable[[cublaslt.MatmulOp, torch.Tensor, torch.Tensor], torch.Tensor]


def reference_cublaslt(op: cublaslt.MatmulOp, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """D of a plain call, read from A's and B's dense buffers as cuBLASLt reads them.

    A COL-order matrix with r rows and leading dimension ld has element (i, j) at
    i + j * ld of its batch's slice, which starts at batch * stride.
    """
    desc = op.descriptor()
    assert (desc.order_a, desc.order_b, desc.order_d) == (Order.COL,) * 3
    assert desc.beta == 0.0 and desc.epilogue == Epilogue.DEFAULT

    def read(buffer: torch.Tensor, trans: Transpose, rows: int, cols: int, ld: int, stride: int):
        # op(X) is rows x cols; X itself is stored transposed when trans = t.
        stored = (rows, cols) if trans == Transpose.N else (cols, rows)
        flat = buffer.reshape(-1).to(torch.float64)
        matrices = flat.as_strided((desc.batch_count, *stored), (stride, 1, ld))
        return matrices if trans == Transpose.N else matrices.transpose(1, 2)

    op_a = read(a, desc.transa, desc.m, desc.k, desc.lda, desc.stride_a)
    op_b = read(b, desc.transb, desc.k, desc.n, desc.ldb, desc.stride_b)
    d_shape = tensor_type(op.d).get_shape()
    out = torch.zeros(max(desc.batch_count * desc.stride_d, desc.ldd * desc.n), dtype=torch.float64)
    view = out.as_strided((desc.batch_count, desc.m, desc.n), (desc.stride_d, 1, desc.ldd))
    view.copy_(desc.alpha * (op_a @ op_b))
    return out[: math.prod(d_shape)].reshape(d_shape)


def cuda_cublaslt(op: cublaslt.MatmulOp, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """D of a call as cuBLASLt computes it on the GPU (flat byte buffers, one plan)."""
    d_type = tensor_type(op.d)
    dtype = torch_dtype(d_type.element_type)

    def buffer(tensor: torch.Tensor, value: SSAValue) -> torch.Tensor:
        # The interpreter holds float64; cuBLASLt reads the operand's own element type.
        typed = tensor.to(torch_dtype(tensor_type(value).element_type))
        return typed.contiguous().cuda().reshape(-1).view(torch.uint8)

    d = torch.empty(d_type.get_shape(), dtype=dtype, device="cuda")
    a_buffer, b_buffer = buffer(a, op.a), buffer(b, op.b)
    d_buffer = d.reshape(-1).view(torch.uint8)
    with CublasLtMatmulPlan(op.descriptor(), a_buffer, b_buffer, d_buffer) as plan:
        plan.run()
    torch.cuda.synchronize()
    return d.cpu().to(torch.float64)


def run_function(
    func: FuncOp, args: list[torch.Tensor], matmul: MatmulRunner
) -> list[torch.Tensor]:
    """Evaluate `func` op by op: computed in float64, rounded to each result's type."""
    env: dict[SSAValue, torch.Tensor] = dict(zip(func.body.block.args, args, strict=True))
    for op in func.body.block.ops:
        if isinstance(op, ReturnOp):
            return [env[value] for value in op.operands]
        result = evaluate(op, [env[v] for v in op.operands], matmul)
        element = tensor_type(op.results[0]).element_type
        env[op.results[0]] = result.to(torch_dtype(element)).to(torch.float64)
    raise AssertionError("function without func.return")


def evaluate(op: Operation, ins: list[torch.Tensor], matmul: MatmulRunner) -> torch.Tensor:
    out_type = tensor_type(op.results[0])
    shape = out_type.get_shape()
    if isinstance(op, hl.MatmulOp):
        return torch.matmul(ins[0], ins[1])
    if isinstance(op, hl.LinearOp):
        return torch.nn.functional.linear(*ins)
    if isinstance(op, hl.AddmmOp):
        return torch.addmm(*ins)
    if isinstance(op, hl.AddOp):
        return ins[0] + ins[1]
    if isinstance(op, hl.MulOp):
        return ins[0] * ins[1]
    if isinstance(op, hl.TransposeOp):
        return ins[0].permute(*(int(p) for p in op.permutation.get_values()))
    if isinstance(op, hl.ReshapeOp):
        return ins[0].reshape(shape)
    if isinstance(op, hl.ExpandOp):
        return ins[0].expand(shape).contiguous()
    if isinstance(op, hl.CastOp):
        return ins[0]
    if isinstance(op, hl.ConstantOp):
        values = op.value.get_values()
        return torch.tensor(values, dtype=torch.float64).reshape(shape)
    if isinstance(op, cublaslt.MatmulOp):
        return matmul(op, ins[0], ins[1])
    raise AssertionError(f"the test interpreter does not run {op.name}")


# --- the cases -------------------------------------------------------------------------


def parse(text: str) -> ModuleOp:
    return LocatedParser(lumir_context(), text, "<test>").parse_module()


def print_module(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def transpose_text(name: str, shape: tuple[int, ...], perm: list[int], elem: str) -> str:
    src = "x".join(map(str, shape))
    dst = "x".join(str(shape[p]) for p in perm)
    perm_text = ", ".join(map(str, perm))
    return (
        f"  %{name}_t = hl.transpose %{name} {{permutation = array<i64: {perm_text}>}} : "
        f"tensor<{src}x{elem}> -> tensor<{dst}x{elem}>\n"
    )


def swap_last(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (*shape[:-2], shape[-1], shape[-2])


def swap_last_permutation(rank: int) -> list[int]:
    return [*range(rank - 2), rank - 1, rank - 2]


def matmul_case(
    lhs: tuple[int, ...], rhs: tuple[int, ...], t_lhs: bool, t_rhs: bool, elem: str = "f32"
) -> tuple[str, list[tuple[int, ...]]]:
    """An `hl` function computing op(x) @ op(w), with op a last-two-dims transpose."""
    x_shape = swap_last(lhs) if t_lhs else lhs
    w_shape = swap_last(rhs) if t_rhs else rhs
    out = (*torch.broadcast_shapes(lhs[:-2], rhs[:-2]), lhs[-2], rhs[-1])

    def ty(shape: tuple[int, ...]) -> str:
        return f"tensor<{'x'.join(map(str, shape))}x{elem}>"

    body = ""
    x_name, w_name = "%x", "%w"
    if t_lhs:
        body += transpose_text("x", x_shape, swap_last_permutation(len(lhs)), elem)
        x_name = "%x_t"
    if t_rhs:
        body += transpose_text("w", w_shape, swap_last_permutation(len(rhs)), elem)
        w_name = "%w_t"
    text = (
        f"func.func @f(%x: {ty(x_shape)}, %w: {ty(w_shape)}) -> {ty(out)} {{\n{body}"
        f"  %y = hl.matmul {x_name}, {w_name} : ({ty(lhs)}, {ty(rhs)}) -> {ty(out)}\n"
        f"  func.return %y : {ty(out)}\n}}\n"
    )
    return text, [x_shape, w_shape]


SHAPES = [
    ((5, 7), (7, 3)),  # plain
    ((2, 5, 7), (2, 7, 3)),  # bmm
    ((2, 5, 7), (7, 3)),  # batched lhs, shared rhs: one [B*M, K] GEMM
    ((5, 7), (4, 7, 3)),  # shared lhs: stride 0
    ((2, 3, 5, 7), (2, 3, 7, 3)),  # rank 4, flattened batch
    ((2, 1, 5, 7), (3, 7, 3)),  # partial broadcast: expand
    ((1, 5, 7), (1, 7, 3)),  # batch of one
    ((1, 1, 5, 7), (7, 3)),  # unit batch dims of rank 4
    ((2, 3, 5, 7), (7, 3)),  # rank-4 lhs, shared rhs
]
FLAGS = list(itertools.product([False, True], repeat=2))


def lower(module: ModuleOp, **options: bool) -> None:
    ctx = lumir_context()
    HLCanonicalizePass().apply(ctx, module)
    HLToCublasltPass(**options).apply(ctx, module)
    module.verify()


def random_inputs(
    shapes: list[tuple[int, ...]], dtype: torch.dtype, seed: int
) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    # Round to the element type first: both sides then compute in float64 from equal inputs.
    return [torch.randn(s, generator=generator).to(dtype).to(torch.float64) for s in shapes]


def check_case(
    text: str,
    shapes: list[tuple[int, ...]],
    matmul: MatmulRunner,
    tol: float,
    dtype: torch.dtype = torch.float32,
    **options: bool,
) -> None:
    args = random_inputs(shapes, dtype, seed=len(text))
    (expected,) = run_function(next(iter(parse(text).ops)), args, matmul)  # type: ignore[arg-type]
    module = parse(text)
    lower(module, **options)
    func = next(iter(module.ops))
    assert isinstance(func, FuncOp)
    assert not any(isinstance(op, hl.MatmulOp) for op in func.walk())
    (actual,) = run_function(func, args, matmul)
    assert actual.shape == expected.shape
    # Relative to the output's scale: rounding errors of cancelling sums are absolute.
    scale = max(1.0, float(expected.abs().max()))
    torch.testing.assert_close(actual, expected, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("flatten", [True, False], ids=["flatten", "strided"])
@pytest.mark.parametrize(("t_lhs", "t_rhs"), FLAGS, ids=lambda f: "t" if f else "n")
@pytest.mark.parametrize(("lhs", "rhs"), SHAPES, ids=str)
def test_lowered_matmul_matches_torch(lhs, rhs, t_lhs, t_rhs, flatten) -> None:
    text, shapes = matmul_case(lhs, rhs, t_lhs, t_rhs)
    # Both sides sum float64 products (in different orders) and round to f32 once.
    check_case(text, shapes, reference_cublaslt, 1e-6, flatten_batched_lhs=flatten)


PERMUTED = [
    (
        """
func.func @f(%x: tensor<5x2x7xf32>, %w: tensor<2x7x3xf32>) -> tensor<2x5x3xf32> {
  %xp = hl.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<5x2x7xf32> -> tensor<2x5x7xf32>
  %y = hl.matmul %xp, %w : (tensor<2x5x7xf32>, tensor<2x7x3xf32>) -> tensor<2x5x3xf32>
  func.return %y : tensor<2x5x3xf32>
}
""",
        [(5, 2, 7), (2, 7, 3)],
    ),
    (
        """
func.func @f(%q: tensor<2x3x4x8xf32>, %k: tensor<2x5x3x8xf32>) -> tensor<2x3x4x5xf32> {
  %kp = hl.transpose %k {permutation = array<i64: 0, 2, 3, 1>}
      : tensor<2x5x3x8xf32> -> tensor<2x3x8x5xf32>
  %s = hl.matmul %q, %kp : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %s : tensor<2x3x4x5xf32>
}
""",
        [(2, 3, 4, 8), (2, 5, 3, 8)],
    ),
]


@pytest.mark.parametrize(("text", "shapes"), PERMUTED, ids=["batch-swap", "kv-layout"])
def test_permuting_transposes_are_not_folded(text, shapes) -> None:
    """A transpose that moves batch dims is no trans flag; the result must stay right."""
    check_case(text, shapes, reference_cublaslt, 1e-6)


LAYER = """
func.func @layer(%x: tensor<2x3x8xbf16>, %w: tensor<16x8xbf16>, %b: tensor<16xbf16>,
                 %m: tensor<16x16xbf16>, %c: tensor<3x16xbf16>) -> tensor<2x3x16xbf16> {
  %y = hl.linear %x, %w bias(%b : tensor<16xbf16>)
      : tensor<2x3x8xbf16>, tensor<16x8xbf16> -> tensor<2x3x16xbf16>
  %s = hl.constant {value = dense<0.5> : tensor<bf16>} : tensor<bf16>
  %ys = hl.mul %s, %y : (tensor<bf16>, tensor<2x3x16xbf16>) -> tensor<2x3x16xbf16>
  %f = hl.cast %ys : tensor<2x3x16xbf16> -> tensor<2x3x16xf32>
  %g = hl.cast %f : tensor<2x3x16xf32> -> tensor<2x3x16xbf16>
  %r = hl.reshape %g : tensor<2x3x16xbf16> -> tensor<6x16xbf16>
  %z = hl.addmm %b, %r, %m
      : (tensor<16xbf16>, tensor<6x16xbf16>, tensor<16x16xbf16>) -> tensor<6x16xbf16>
  %z3 = hl.reshape %z : tensor<6x16xbf16> -> tensor<2x3x16xbf16>
  func.return %z3 : tensor<2x3x16xbf16>
}
"""


def test_canonicalized_and_lowered_layer_matches_torch() -> None:
    """linear, a scale on the lhs, an exact cast round trip, reshapes and addmm."""
    shapes = [(2, 3, 8), (16, 8), (16,), (16, 16), (3, 16)]
    # linear rounds once, matmul + add twice: results may differ by a bf16 ulp.
    check_case(LAYER, shapes, reference_cublaslt, 2e-2, dtype=torch.bfloat16)


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
@pytest.mark.parametrize("elem", ["f32", "bf16", "f16"])
@pytest.mark.parametrize(("lhs", "rhs"), SHAPES, ids=str)
def test_lowered_matmul_on_cublaslt(lhs, rhs, elem) -> None:
    dtype = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[elem]
    # Output rounding dominates: f32 with compute_32f is true fp32 (no TF32).
    tol = {"f32": 1e-5, "bf16": 2e-2, "f16": 4e-3}[elem]
    for t_lhs, t_rhs in FLAGS:
        text, shapes = matmul_case(lhs, rhs, t_lhs, t_rhs, elem)
        check_case(text, shapes, cuda_cublaslt, tol, dtype=dtype)


# --- pass behaviour beyond the numbers ---------------------------------------------------


def test_error_leaves_module_unchanged() -> None:
    text = """
    func.func @f(%a: tensor<2x2xf32>, %x: tensor<4x8xi32>, %w: tensor<8x16xi32>)
        -> (tensor<2x2xf32>, tensor<4x16xi32>) {
      %b = hl.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      %y = hl.matmul %x, %w : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
      func.return %b, %y : tensor<2x2xf32>, tensor<4x16xi32>
    }
    """
    module = parse(text)
    before = print_module(module)
    with pytest.raises(LumirDiagnosticError) as error:
        HLToCublasltPass().apply(lumir_context(), module)
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.op_name == "hl.matmul"
    assert diagnostic.location is not None and diagnostic.location.line == 5
    assert "i32 operands" in diagnostic.message
    assert print_module(module) == before


def test_output_is_deterministic() -> None:
    text, _ = matmul_case((2, 3, 5, 7), (2, 3, 7, 3), True, True)
    outputs = set()
    for _ in range(3):
        module = parse(text + LAYER)
        lower(module)
        outputs.add(print_module(module))
    assert len(outputs) == 1


# --- the public builder API --------------------------------------------------------------


def test_row_major_matmul_linear_weight() -> None:
    """Y[M,N] = X[M,K] W[N,K]^T: the docs/conventions.md example, field by field."""
    desc = row_major_matmul(TensorType(bf16, [6, 64]), TensorType(bf16, [32, 64]), False, True)
    assert (desc.transa, desc.transb) == (Transpose.T, Transpose.N)
    assert (desc.m, desc.n, desc.k) == (32, 6, 64)
    assert (desc.lda, desc.ldb, desc.ldc, desc.ldd) == (64, 64, 32, 32)
    assert desc.batch_count == 1
    assert (desc.stride_a, desc.stride_b, desc.stride_c, desc.stride_d) == (0, 0, 0, 0)
    assert (desc.a_dtype, desc.b_dtype, desc.c_dtype, desc.d_dtype) == (DataType.BF16,) * 4
    assert (desc.compute_type, desc.scale_type) == (ComputeType.COMPUTE_32F, DataType.F32)
    assert (desc.alpha, desc.beta, desc.epilogue) == (1.0, 0.0, Epilogue.DEFAULT)


def test_row_major_matmul_op_with_residual_and_f32_output() -> None:
    """A fused call rebuilt through the API (out dtype, beta, C, bias) verifies."""
    block_args = [
        TensorType(bf16, [6, 64]),
        TensorType(bf16, [32, 64]),
        TensorType(f32, [6, 32]),
        TensorType(f32, [32]),
    ]
    func = FuncOp("f", FunctionType.from_lists(block_args, []))
    x, w, c, bias = func.body.block.args
    op = row_major_matmul_op(
        x, w, False, True, DataType.F32, c=c, bias=bias, beta=1.0, epilogue=Epilogue.BIAS
    )
    assert op.a is w and op.b is x and op.c is c and op.bias is bias
    assert tensor_type(op.d) == TensorType(f32, [6, 32])
    desc = op.descriptor()
    assert (desc.c_dtype, desc.d_dtype, desc.a_dtype) == (DataType.F32, DataType.F32, DataType.BF16)
    op.verify()


def test_row_major_matmul_batched_strides() -> None:
    desc = row_major_matmul(TensorType(f16, [4, 8]), TensorType(f16, [3, 8, 16]))
    assert (desc.batch_count, desc.stride_a, desc.stride_b, desc.stride_d) == (3, 128, 0, 64)
    d = TensorType(f16, [3, 4, 16])
    a, b = TensorType(f16, [3, 8, 16]), TensorType(f16, [4, 8])
    assert check_matmul(desc, a, b, None, None, d) == []


def test_row_major_matmul_f64() -> None:
    desc = row_major_matmul(TensorType(f64, [2, 3]), TensorType(f64, [3, 4]))
    assert (desc.compute_type, desc.scale_type) == (ComputeType.COMPUTE_64F, DataType.F64)


@pytest.mark.parametrize(
    ("lhs", "rhs", "message"),
    [
        (TensorType(f32, [4, 8]), TensorType(f32, [7, 16]), "expected [M, K] @ [K, N]"),
        (TensorType(f32, [2, 2, 4, 8]), TensorType(f32, [8, 16]), "4-D"),
        (TensorType(f32, [2, 4, 8]), TensorType(f32, [3, 8, 16]), "one batch count"),
        (TensorType(i32, [4, 8]), TensorType(i32, [8, 16]), "no default compute type"),
        (TensorType(f32, [4, 8]), TensorType(bf16, [8, 16]), "expected one dtype"),
        (TensorType(f32, [0, 8]), TensorType(f32, [8, 16]), "zero dimension"),
    ],
)
def test_row_major_matmul_refuses(lhs, rhs, message) -> None:
    with pytest.raises(UnsupportedMatmulError, match=re.escape(message)):
        row_major_matmul(lhs, rhs)


def test_layout_helpers() -> None:
    assert dense_layout((3, 4, 8), batch_count=3) == (8, 32)
    assert dense_layout((3, 4, 8), batch_count=1) == (8, 0)
    assert dense_layout((4, 8), batch_count=3) == (8, 0)
    assert swaps_last_two([1, 0]) and swaps_last_two([0, 1, 3, 2])
    assert not swaps_last_two([1, 0, 2]) and not swaps_last_two([0, 1]) and not swaps_last_two([0])


# --- the cast-chain rule, checked against torch's conversions -----------------------------

FLOATS: list[Attribute] = [Float8E4M3FNType(), Float8E5M2Type(), f16, bf16, f32, f64]


def all_values(element: Attribute) -> torch.Tensor:
    """Every value of an 8- or 16-bit float type; a sample with specials for wider ones."""
    dtype = torch_dtype(element)
    if dtype.itemsize == 1:
        return torch.arange(256, dtype=torch.int16).to(torch.uint8).view(dtype)
    if dtype.itemsize == 2:
        return torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16).view(dtype)
    generator = torch.Generator().manual_seed(0)
    # Magnitudes from f32's subnormals to beyond its range, and the special values.
    exponents = torch.randint(-45, 40, (20000,), generator=generator)
    normal = torch.randn(20000, generator=generator, dtype=torch.float64)
    special = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-310, 3.4e38, 7e-46]
    sample = torch.cat([normal * 10.0**exponents, torch.tensor(special, dtype=torch.float64)])
    return sample.to(dtype)


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    both_nan = a64.isnan() & b64.isnan()
    equal = (a64 == b64) & (torch.signbit(a64) == torch.signbit(b64))
    return bool((both_nan | equal).all())


@pytest.mark.parametrize("source", FLOATS, ids=str)
def test_exact_widening_table_matches_torch(source: Attribute) -> None:
    """is_exact_widening(S, I) holds exactly when S -> I -> S gives back every S value."""
    values = all_values(source)
    for middle in FLOATS:
        round_trip = values.to(torch_dtype(middle)).to(values.dtype)
        assert is_exact_widening(source, middle) == same(round_trip, values), (source, middle)


@pytest.mark.parametrize("source", FLOATS, ids=str)
def test_folded_cast_chains_equal_torch(source: Attribute) -> None:
    """Every chain FoldExactCastChain folds gives torch's direct conversion's values."""
    values = all_values(source)
    for middle, target in itertools.product(FLOATS, FLOATS):
        if not is_exact_widening(source, middle):
            continue
        chained = values.to(torch_dtype(middle)).to(torch_dtype(target))
        direct = values.to(torch_dtype(target))
        assert same(chained, direct), (source, middle, target)


# --- one owner of transpose folding -------------------------------------------------

OWNER_PROGRAMS = 40
"""Fuzzer programs (seed 0) checked for transposes left under a call; about 10 s."""


def _reads_foldable_transpose(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, hl.TransposeOp) and swaps_last_two(
        [int(v) for v in owner.permutation.get_values()]
    )


def test_hl_to_cublaslt_is_the_one_owner_of_transpose_folding() -> None:
    """No call reads a last-two-dims transpose once hl-to-cublaslt has run.

    That is why cublaslt-fuse has no transpose rule (docs/passes/cublaslt-fuse.md): its
    rules only build calls over operands of existing calls, so a fold rule there could
    never fire. The fuzzer's programs store operands transposed on purpose; at least one
    must come out with a trans flag set, or the check proves nothing.
    """
    ctx = lumir_context()
    transposed_calls = 0
    for index in range(OWNER_PROGRAMS):
        program = random_program(0, index)
        module = LocatedParser(ctx, program.text(), "fuzz.mlir").parse_module()
        HLCanonicalizePass().apply(ctx, module)
        HLToCublasltPass().apply(ctx, module)
        for op in module.walk():
            if not isinstance(op, cublaslt.MatmulOp):
                continue
            assert not any(_reads_foldable_transpose(v) for v in (op.a, op.b)), program.text()
            desc = op.descriptor()
            transposed_calls += Transpose.T in (desc.transa, desc.transb)
    assert transposed_calls > 0
