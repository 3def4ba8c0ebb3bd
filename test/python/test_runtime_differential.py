"""Fused cuBLASLt programs on the CPU executor against the unfused hl programs they replace.

For every fusion family of docs/design.md, in f32, f16 and bf16, a hand-built fused
`cublaslt.matmul` (what `cublaslt-fuse` should produce) is lowered with
`lower-to-cublaslt-rt`, loaded on the CPU reference executor (which reads its buffers
byte by byte through the descriptor) and compared with the hl program it stands for, run
op by op as torch calls. Inputs are fresh standard-normal values, never zeros, so a C or
bias that is dropped or misread shows. Then docs/design.md's bug: the same comparison catches
a C declared f32 over a bf16 buffer, and the legal program passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, bf16, f16, f32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from lumir.cublaslt_enums import DataType, Epilogue
from lumir.diagnostics import LumirDiagnosticError
from lumir.dialects import hl
from lumir.passes.cublaslt_builders import row_major_matmul_op
from lumir.passes.lower_to_cublaslt_rt import LowerToCublasltRtPass
from lumir.runtime import interpret, load
from lumir.runtime.buffers import torch_dtype
from lumir.runtime.cuda_cublaslt import cublaslt_available

M, N, K, BATCH = 6, 40, 24, 3
TOLERANCE = {f32: 2e-5, f16: 5e-3, bf16: 2e-2}
"""Largest allowed max|fused - unfused| / max|unfused|: a few roundings of the input type,
since the fused call rounds once where the unfused program rounds after every op."""


class Emitter:
    """Appends ops to a function body and hands back their results."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def __call__(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]


Body = Callable[[Emitter, dict[str, SSAValue]], SSAValue]


def build(arguments: dict[str, TensorType[Attribute]], body: Body) -> ModuleOp:
    """A module with one function `@f(arguments...)` whose body `body` emits."""
    block = Block(arg_types=list(arguments.values()))
    values = dict(zip(arguments, block.args, strict=True))
    for name, value in values.items():
        value.name_hint = name
    emit = Emitter()
    result = body(emit, values)
    block.add_ops([*emit.ops, ReturnOp(result)])
    func = FuncOp("f", (list(arguments.values()), [result.type]), Region(block))
    module = ModuleOp([func])
    module.verify()
    return module


def linear(emit: Emitter, x: SSAValue, w: SSAValue) -> SSAValue:
    """hl for X @ W^T, W a Linear weight [N, K]."""
    return emit(hl.MatmulOp(x, emit(hl.TransposeOp(w, [1, 0]))))


@dataclass(frozen=True)
class Family:
    """A fusion family: the unfused hl program and the one fused cuBLASLt call for it."""

    name: str
    arguments: Callable[[Attribute], dict[str, TensorType[Attribute]]]
    unfused: Body
    fused: Body
    half_only: bool = False


def linear_args(element: Attribute) -> dict[str, TensorType[Attribute]]:
    return {
        "x": TensorType(element, [M, K]),
        "w": TensorType(element, [N, K]),
        "bias": TensorType(element, [N]),
        "r": TensorType(element, [M, N]),
    }


def batched_args(element: Attribute) -> dict[str, TensorType[Attribute]]:
    return {
        "x": TensorType(element, [BATCH, M, K]),
        "w": TensorType(element, [BATCH, K, N]),
        "r": TensorType(element, [BATCH, M, N]),
    }


def shared_weight_args(element: Attribute) -> dict[str, TensorType[Attribute]]:
    return {"x": TensorType(element, [BATCH, M, K]), "w": TensorType(element, [K, N])}


def transposed_args(element: Attribute) -> dict[str, TensorType[Attribute]]:
    return {"xt": TensorType(element, [K, M]), "w": TensorType(element, [K, N])}


def fused_linear(**options: object) -> Body:
    """The fused call X @ W^T with `options` (epilogue, alpha, beta, out dtype...)."""

    def body(emit: Emitter, v: dict[str, SSAValue]) -> SSAValue:
        epilogue = options.get("epilogue", Epilogue.DEFAULT)
        assert isinstance(epilogue, Epilogue)
        c = v["r"] if options.get("beta", 0.0) else None
        if options.get("cast_c"):
            c = emit(hl.CastOp(v["r"], f32))
        return emit(
            row_major_matmul_op(
                v["x"],
                v["w"],
                transpose_rhs=True,
                out_dtype=options.get("out_dtype"),  # type: ignore[arg-type]
                c=c,
                bias=v["bias"] if epilogue.reads_bias else None,
                alpha=float(options.get("alpha", 1.0)),  # type: ignore[arg-type]
                beta=float(options.get("beta", 0.0)),  # type: ignore[arg-type]
                epilogue=epilogue,
            )
        )

    return body


def scalar(emit: Emitter, like: SSAValue, value: float) -> SSAValue:
    assert isinstance(like.type, TensorType)
    return emit(hl.splat(value, like.type.element_type))


FAMILIES = (
    Family(
        "plain",
        linear_args,
        lambda e, v: linear(e, v["x"], v["w"]),
        fused_linear(),
    ),
    Family(
        "bias",
        linear_args,
        lambda e, v: e(hl.AddOp(linear(e, v["x"], v["w"]), v["bias"])),
        fused_linear(epilogue=Epilogue.BIAS),
    ),
    Family(
        "relu",
        linear_args,
        lambda e, v: e(hl.ReluOp(linear(e, v["x"], v["w"]))),
        fused_linear(epilogue=Epilogue.RELU),
    ),
    Family(
        "gelu",
        linear_args,
        lambda e, v: e(hl.GeluOp(linear(e, v["x"], v["w"]), "tanh")),
        fused_linear(epilogue=Epilogue.GELU),
    ),
    Family(
        "relu_bias",
        linear_args,
        lambda e, v: e(hl.ReluOp(e(hl.AddOp(linear(e, v["x"], v["w"]), v["bias"])))),
        fused_linear(epilogue=Epilogue.RELU_BIAS),
    ),
    Family(
        "gelu_bias",
        linear_args,
        lambda e, v: e(hl.GeluOp(e(hl.AddOp(linear(e, v["x"], v["w"]), v["bias"])), "tanh")),
        fused_linear(epilogue=Epilogue.GELU_BIAS),
    ),
    Family(
        "residual",
        linear_args,
        lambda e, v: e(hl.AddOp(linear(e, v["x"], v["w"]), v["r"])),
        fused_linear(beta=1.0),
    ),
    Family(
        "alpha",
        linear_args,
        lambda e, v: e(hl.MulOp(linear(e, v["x"], v["w"]), scalar(e, v["x"], 0.5))),
        fused_linear(alpha=0.5),
    ),
    Family(
        "alpha_residual",
        linear_args,
        lambda e, v: e(
            hl.AddOp(e(hl.MulOp(linear(e, v["x"], v["w"]), scalar(e, v["x"], -2.0))), v["r"])
        ),
        fused_linear(alpha=-2.0, beta=1.0),
    ),
    Family(
        "cast_f32",
        linear_args,
        lambda e, v: e(hl.CastOp(linear(e, v["x"], v["w"]), f32)),
        fused_linear(out_dtype=DataType.F32),
        half_only=True,
    ),
    Family(
        "cast_f32_residual",
        linear_args,
        lambda e, v: e(hl.CastOp(e(hl.AddOp(linear(e, v["x"], v["w"]), v["r"])), f32)),
        fused_linear(out_dtype=DataType.F32, beta=1.0, cast_c=True),
        half_only=True,
    ),
    Family(
        "batched",
        batched_args,
        lambda e, v: e(hl.MatmulOp(v["x"], v["w"])),
        lambda e, v: e(row_major_matmul_op(v["x"], v["w"])),
    ),
    Family(
        "batched_residual",
        batched_args,
        lambda e, v: e(hl.AddOp(e(hl.MatmulOp(v["x"], v["w"])), v["r"])),
        lambda e, v: e(row_major_matmul_op(v["x"], v["w"], c=v["r"], beta=1.0)),
    ),
    Family(
        "batched_shared_weight",
        shared_weight_args,
        lambda e, v: e(hl.MatmulOp(v["x"], v["w"])),
        lambda e, v: e(row_major_matmul_op(v["x"], v["w"])),
    ),
    Family(
        "transposed",
        transposed_args,
        lambda e, v: e(hl.MatmulOp(e(hl.TransposeOp(v["xt"], [1, 0])), v["w"])),
        lambda e, v: e(row_major_matmul_op(v["xt"], v["w"], transpose_lhs=True)),
    ),
)

CASES = [
    pytest.param(family, element, id=f"{family.name}-{element}")
    for family in FAMILIES
    for element in (f32, f16, bf16)
    if not (family.half_only and element == f32)
]


def random_inputs(arguments: dict[str, TensorType[Attribute]], seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [
        torch.randn(tuple(t.get_shape()), generator=generator).to(torch_dtype(t.element_type))
        for t in arguments.values()
    ]


def lowered(module: ModuleOp) -> ModuleOp:
    LowerToCublasltRtPass().apply(Context(), module)
    return module


def relative_error(got: torch.Tensor, want: torch.Tensor) -> float:
    """max|got - want| / max|want|, in float64."""
    error = (got.double() - want.double()).abs().max()
    return float(error / want.double().abs().max())


@pytest.mark.parametrize(("family", "element"), CASES)
def test_fused_program_matches_unfused(family: Family, element: Attribute) -> None:
    arguments = family.arguments(element)
    unfused = build(arguments, family.unfused)
    fused = build(arguments, family.fused)
    inputs = random_inputs(arguments, seed=len(family.name))
    (expected,) = interpret(unfused, inputs)

    # The fused call, as unfused torch ops on its operands (the interpreter's reading).
    (interpreted,) = interpret(fused, inputs)
    assert interpreted.dtype == expected.dtype
    assert relative_error(interpreted, expected) <= TOLERANCE[element]

    # The fused call on the CPU executor, which reads the buffers as cuBLASLt does.
    program = load(lowered(fused))
    got = program(*inputs)
    assert isinstance(got, torch.Tensor)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert relative_error(got, expected) <= TOLERANCE[element]


@pytest.mark.cuda
@pytest.mark.skipif(not cublaslt_available(), reason="needs nvmath-python and a CUDA device")
@pytest.mark.parametrize(("family", "element"), CASES)
def test_fused_program_on_cuda_matches_unfused(family: Family, element: Attribute) -> None:
    """The same fused calls through cuBLASLt, replayed from a CUDA graph."""
    arguments = family.arguments(element)
    unfused = build(arguments, family.unfused)
    fused = build(arguments, family.fused)
    inputs = random_inputs(arguments, seed=len(family.name))
    (expected,) = interpret(unfused, inputs)
    program = load(lowered(fused), device="cuda")
    got = program(*[value.cuda() for value in inputs])
    assert isinstance(got, torch.Tensor)
    assert got.is_cuda and got.dtype == expected.dtype
    assert relative_error(got.cpu(), expected) <= TOLERANCE[element]
    program.close()


@pytest.mark.parametrize("element", [f16, bf16], ids=str)
def test_wrong_program_is_caught(element: Attribute) -> None:
    """Sanity: a fused call that forgets the residual differs from the unfused program."""
    arguments = linear_args(element)
    unfused = build(arguments, lambda e, v: e(hl.AddOp(linear(e, v["x"], v["w"]), v["r"])))
    forgot = build(arguments, fused_linear())
    inputs = random_inputs(arguments, seed=11)
    (expected,) = interpret(unfused, inputs)
    got = load(lowered(forgot))(*inputs)
    assert isinstance(got, torch.Tensor)
    assert relative_error(got, expected) > 0.1


# --- docs/design.md's bug ------------------------------------------------------------------


def residual_cast_args() -> dict[str, TensorType[Attribute]]:
    return {
        "x": TensorType(bf16, [M, K]),
        "w": TensorType(bf16, [N, K]),
        "r": TensorType(bf16, [M, N]),
    }


def residual_then_cast(emit: Emitter, v: dict[str, SSAValue]) -> SSAValue:
    """The unfused block: (X @ W^T + R) in bf16, cast to f32."""
    return emit(hl.CastOp(emit(hl.AddOp(linear(emit, v["x"], v["w"]), v["r"])), f32))


def buggy_fusion(emit: Emitter, v: dict[str, SSAValue]) -> SSAValue:
    """The bad rule's output: writes f32 but keeps the bf16 residual as C (c_dtype f32)."""
    return emit(
        row_major_matmul_op(
            v["x"], v["w"], transpose_rhs=True, out_dtype=DataType.F32, c=v["r"], beta=1.0
        )
    )


def test_bug_is_refused_by_the_verifier() -> None:
    program = lowered(build_unverified(residual_cast_args(), buggy_fusion))
    with pytest.raises(
        LumirDiagnosticError,
        match=r"V4: beta = 1.0 reads C as f32, but operand C is memref<6x40xbf16>",
    ):
        load(program)


def test_bug_unverified_reads_past_the_residual_buffer() -> None:
    program = lowered(build_unverified(residual_cast_args(), buggy_fusion))
    with pytest.raises(LumirDiagnosticError) as caught:
        load(program, verify=False)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.op_name == "cublaslt_rt.matmul"
    assert (
        "'cublaslt_rt.matmul' @plan0: operand C is read as a f32 40 x 6 col-order"
        in diagnostic.message
    )
    assert "reaches byte 960, but its buffer holds 480 bytes" in diagnostic.message


def test_bug_legal_program_casts_c_first_and_matches() -> None:
    arguments = residual_cast_args()
    unfused = build(arguments, residual_then_cast)
    legal = build(arguments, fused_linear(out_dtype=DataType.F32, beta=1.0, cast_c=True))
    inputs = random_inputs(arguments, seed=5)
    (expected,) = interpret(unfused, inputs)
    got = load(lowered(legal))(*inputs)
    assert isinstance(got, torch.Tensor)
    assert got.dtype == torch.float32
    assert relative_error(got, expected) <= TOLERANCE[bf16]


def build_unverified(arguments: dict[str, TensorType[Attribute]], body: Body) -> ModuleOp:
    """`build` without verification, for IR the verifier refuses."""
    block = Block(arg_types=list(arguments.values()))
    values = dict(zip(arguments, block.args, strict=True))
    emit = Emitter()
    result = body(emit, values)
    block.add_ops([*emit.ops, ReturnOp(result)])
    return ModuleOp([FuncOp("f", (list(arguments.values()), [result.type]), Region(block))])
