"""Tests of the e-graph bridge behind `cublaslt-fuse`.

The lit tests in test/lit/cublaslt-fuse/ show each rule family firing and refusing on
IR. These tests cover what lit cannot: the encoder's term text, the encode/decode round
trip, the cost model's numbers, the rule files' shape, numerical equivalence of fused
and unfused programs on random graphs, the pass never making a program costlier by its
own model, and byte-identical output across fresh processes with different hash seeds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
import torch
from egglog.bindings import EGraph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp, TensorType, bf16, f32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from lumir.context import lumir_context
from lumir.cublaslt_enums import DataType, Epilogue
from lumir.dialects import hl
from lumir.dialects.cublaslt import MatmulDescriptor, MatmulOp
from lumir.egraph_bridge.block_fusion import FuseConfig, egglog_program, fuse_block
from lumir.egraph_bridge.class_types import node_type
from lumir.egraph_bridge.cost_model import (
    DENSE_TENSOR_CORE_FLOPS,
    F32_INPUT_FLOPS,
    HBM_BYTES_PER_SECOND,
    LAUNCH_SECONDS,
    kernel_seconds,
    matmul_seconds,
)
from lumir.egraph_bridge.egraph_view import ENode
from lumir.egraph_bridge.encoder import encode_block
from lumir.egraph_bridge.fuse_pass import CublasltFusePass
from lumir.egraph_bridge.provenance import with_provenance
from lumir.egraph_bridge.rulesets import FAMILIES, RULES_DIR, UNSAFE_TEST_RULES
from lumir.egraph_bridge.saturate import Limits, tensor_node_count
from lumir.parsing import LocatedParser
from lumir.passes.cublaslt_builders import row_major_matmul, row_major_matmul_op
from lumir.passes.hl_to_cublaslt import HLToCublasltPass
from lumir.runtime.buffers import shaped_type_parts
from lumir.runtime.interpreter import interpret
from lumir.testing.processes import lumir_opt_outputs
from lumir.verifier import matmul_diagnostics

ALL = FuseConfig(FAMILIES, Limits(node_limit=100_000, iteration_limit=32))


def parse(text: str) -> ModuleOp:
    return LocatedParser(lumir_context(), text, "test.mlir").parse_module()


def render(module: Operation) -> str:
    out = []

    class _Sink:
        def write(self, text: str) -> None:
            out.append(text)

    Printer(stream=_Sink()).print_op(module)  # type: ignore[arg-type]
    return "".join(out)


def only_block(module: ModuleOp) -> Block:
    (func,) = [op for op in module.walk() if isinstance(op, FuncOp)]
    return func.body.blocks[0]


def function(name: str, block: Block, results: list[SSAValue]) -> ModuleOp:
    block.add_op(ReturnOp(*results))
    func = FuncOp(
        name,
        ([arg.type for arg in block.args], [value.type for value in results]),
        Region(block),
    )
    return ModuleOp([func])


# --- encoder and decoder ----------------------------------------------------------------

LINEAR = """
func.func @linear(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<16xbf16>)
    -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      epilogue = #cublaslt<epilogue default>, alpha = 1.0, beta = 0.0
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %s = hl.softmax %mm {dim = 1 : i64} : tensor<6x16xbf16> -> tensor<6x16xbf16>
  %y = hl.add %s, %b : (tensor<6x16xbf16>, tensor<16xbf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
"""


def test_encoder_writes_positions_and_types() -> None:
    """Leaves are named by position (block argument, op index and result), never by id."""
    facts = encode_block(only_block(parse(LINEAR))).facts
    call = (
        "(Call (Layout (TransT) (TransN) (OrderCol) (OrderCol) (OrderCol)) "
        "(Types (BF16) (BF16) (BF16) (BF16) (Compute32F) (F32)) 1.0 0.0 (EpiDefault) "
        "(value 0) (value 1) (NoTensor) (NoTensor))"
    )
    assert facts == [
        '(set (value 0) (Leaf "a0"))',
        '(set (ty (value 0)) (Ty (BF16) "16x8" 2 8))',
        '(set (value 1) (Leaf "a1"))',
        '(set (ty (value 1)) (Ty (BF16) "6x8" 2 8))',
        f"(set (value 2) (Matmul {call}))",
        '(set (ty (value 2)) (Ty (BF16) "6x16" 2 16))',
        '(set (value 3) (Leaf "v1.0"))',
        '(set (ty (value 3)) (Ty (BF16) "6x16" 2 16))',
        '(set (value 4) (Leaf "a2"))',
        '(set (ty (value 4)) (Ty (BF16) "16" 1 16))',
        "(set (value 5) (Add (value 3) (value 4)))",
        '(set (ty (value 5)) (Ty (BF16) "6x16" 2 16))',
    ]


def test_encoding_is_reproducible() -> None:
    """Two parses of one text (fresh objects, fresh ids) give the same facts."""
    first = encode_block(only_block(parse(LINEAR))).facts
    second = encode_block(only_block(parse(LINEAR))).facts
    assert first == second


def _round_trip_program() -> ModuleOp:
    """Terms and opaque ops interleaved in the order the decoder emits them."""
    block = Block(arg_types=[TensorType(bf16, [16, 8]), TensorType(bf16, [6, 8])])
    block.add_op(bias := hl.splat(0.5, bf16, [16]))
    w, x = block.args
    block.add_op(mm := row_major_matmul_op(x, w, transpose_rhs=True))
    block.add_op(add := hl.AddOp(mm.d, bias.result))
    block.add_op(soft := hl.SoftmaxOp(add.result, 1))
    block.add_op(relu := hl.ReluOp(soft.result))
    block.add_op(cast := hl.CastOp(relu.result, f32))
    block.add_op(gelu := hl.GeluOp(cast.result, "none"))
    block.add_op(mean := hl.MeanOp(gelu.result, [1], True, TensorType(f32, [6, 1])))
    return function("round_trip", block, [mean.result, add.result])


def test_round_trip_without_rules_is_the_identity() -> None:
    """Encode, saturate with no rule family, extract and decode: the same IR, byte for byte."""
    module = _round_trip_program()
    before = render(module)
    fuse_block(only_block(module), FuseConfig((), ALL.limits))
    module.verify()
    assert render(module) == before


def test_round_trip_with_rules_on_nothing_fusable_is_the_identity() -> None:
    """A block whose calls have nothing to fuse comes back unchanged under every rule."""
    module = parse(LINEAR)
    before = render(module)
    outcome = fuse_block(only_block(module), ALL)
    assert render(module) == before
    assert outcome.cost == pytest.approx(outcome.input_cost)


def test_pass_is_idempotent() -> None:
    """Fusing fused IR again finds nothing more to do."""
    module = _round_trip_program()
    CublasltFusePass().apply(lumir_context(), module)
    once = render(module)
    CublasltFusePass().apply(lumir_context(), module)
    assert render(module) == once
    assert "epilogue bias" in once


def test_dumped_program_runs_in_egglog() -> None:
    """The dump-egglog text is a complete egglog program reaching the same e-graph."""
    block = only_block(_round_trip_program())
    encoded = encode_block(block)
    outcome = fuse_block(block, ALL)
    egraph = EGraph()
    egraph.run_program(*egraph.parse_program(egglog_program(ALL, encoded.program)))
    assert tensor_node_count(egraph) == outcome.nodes


# --- rule files -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["canon", *FAMILIES, *UNSAFE_TEST_RULES])
def test_rule_files_declare_their_ruleset_and_comment_every_rule(name: str) -> None:
    """Each family is one ruleset of its name (canon.egg: canon); each rule is commented."""
    lines = (RULES_DIR / f"{name}.egg").read_text(encoding="utf-8").splitlines()
    ruleset = name
    assert f"(ruleset {ruleset})" in lines
    rule_lines = [i for i, line in enumerate(lines) if line.startswith("(rule ")]
    assert rule_lines, f"{name}.egg has no rules"
    for index in rule_lines:
        assert lines[index - 1].startswith(";"), f"{name}.egg:{index + 1}: rule without comment"
    rulesets = re.findall(r":ruleset (\S+)", "\n".join(lines))
    assert set(rulesets) == {ruleset}


# --- cost model -------------------------------------------------------------------------


def _linear(m: int, n: int, k: int, dtype: DataType) -> tuple[MatmulDescriptor, list[TensorType]]:
    element = dtype.element_type()
    x, w = TensorType(element, [m, k]), TensorType(element, [n, k])
    desc = row_major_matmul(x, w, transpose_rhs=True)
    return desc, [w, x, TensorType(element, [m, n])]


def test_small_batch_gemm_is_memory_bound() -> None:
    """6x2048x2048 bf16: moving the 8 MiB weight dominates; the math is 50 MFLOP."""
    desc, (w, x, d) = _linear(6, 2048, 2048, DataType.BF16)
    moved = 2 * (2048 * 2048 + 6 * 2048 + 6 * 2048)
    expected = moved / HBM_BYTES_PER_SECOND + LAUNCH_SECONDS
    assert matmul_seconds(desc, w, x, None, None, d) == pytest.approx(expected)


def test_large_gemm_is_compute_bound() -> None:
    """4096^3 bf16 runs at the tensor-core rate; f32 inputs at the CUDA-core rate."""
    flops = 2.0 * 4096**3
    desc, (w, x, d) = _linear(4096, 4096, 4096, DataType.BF16)
    bf16_seconds = matmul_seconds(desc, w, x, None, None, d)
    assert bf16_seconds == pytest.approx(flops / DENSE_TENSOR_CORE_FLOPS + LAUNCH_SECONDS)
    desc, (w, x, d) = _linear(4096, 4096, 4096, DataType.F32)
    f32_seconds = matmul_seconds(desc, w, x, None, None, d)
    assert f32_seconds == pytest.approx(flops / F32_INPUT_FLOPS + LAUNCH_SECONDS)


def test_fusing_an_epilogue_saves_a_launch_and_a_round_trip() -> None:
    """GEMM + bias + gelu as one call is cheaper than the GEMM and two kernels."""
    desc, (w, x, d) = _linear(6, 2048, 2048, DataType.BF16)
    bias = TensorType(bf16, [2048])
    fused = matmul_seconds(
        MatmulDescriptor(**{**desc.__dict__, "epilogue": Epilogue.GELU_BIAS}), w, x, None, bias, d
    )
    separate = (
        matmul_seconds(desc, w, x, None, None, d)
        + kernel_seconds([d, bias], d)
        + kernel_seconds([d], d)
    )
    assert fused < separate
    assert separate - fused > 2 * LAUNCH_SECONDS - 1e-9


def test_kernel_cost_reads_inputs_and_writes_the_output() -> None:
    a = TensorType(f32, [1024, 1024])
    assert kernel_seconds([a, a], a) == pytest.approx(
        3 * 4 * 1024 * 1024 / HBM_BYTES_PER_SECOND + LAUNCH_SECONDS
    )


# --- random graphs: semantics, legality, cost -------------------------------------------

STEPS = ("bias", "residual", "relu", "gelu_tanh", "gelu_exact", "scale", "cast_f32")


@dataclass(frozen=True)
class GraphSpec:
    """A matmul and a chain of elementwise steps on its result (the fusion idioms)."""

    dtype: str
    rows: int
    k: int
    n: int
    weight_transposed: bool
    batched_view: bool
    steps: tuple[str, ...]
    keep_plain: bool


graph_specs = st.builds(
    GraphSpec,
    dtype=st.sampled_from(["f32", "bf16"]),
    rows=st.sampled_from([1, 3]),
    k=st.sampled_from([4, 8]),
    n=st.sampled_from([4, 8]),
    weight_transposed=st.booleans(),
    batched_view=st.booleans(),
    steps=st.lists(st.sampled_from(STEPS), max_size=4).map(tuple),
    keep_plain=st.booleans(),
)


def build_graph(spec: GraphSpec) -> ModuleOp:
    """The spec as a cublaslt-level function (what hl-to-cublaslt would hand the pass)."""
    element: Attribute = DataType(spec.dtype).element_type()
    batch = 2 if spec.batched_view else 1
    x_shape = [batch, spec.rows, spec.k] if spec.batched_view else [spec.rows, spec.k]
    w_shape = [spec.n, spec.k] if spec.weight_transposed else [spec.k, spec.n]
    block = Block(arg_types=[TensorType(element, x_shape), TensorType(element, w_shape)])
    x, w = block.args
    if spec.batched_view:
        block.add_op(
            view := hl.ReshapeOp(
                operands=[x], result_types=[TensorType(element, [batch * spec.rows, spec.k])]
            )
        )
        x = view.results[0]
    block.add_op(mm := row_major_matmul_op(x, w, transpose_rhs=spec.weight_transposed))
    value: SSAValue = mm.d
    if spec.batched_view:
        out_shape = [batch, spec.rows, spec.n]
        block.add_op(
            back := hl.ReshapeOp(operands=[value], result_types=[TensorType(element, out_shape)])
        )
        value = back.results[0]
    for step in spec.steps:
        value = _add_step(block, step, value)
    results = [value, mm.d] if spec.keep_plain else [value]
    return function("graph", block, results)


def _add_step(block: Block, step: str, value: SSAValue) -> SSAValue:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    element, shape = tensor.element_type, list(tensor.get_shape())
    if step == "bias":
        operand = block.insert_arg(TensorType(element, shape[-1:]), len(block.args))
        op: Operation = hl.AddOp(value, operand)
    elif step == "residual":
        operand = block.insert_arg(TensorType(element, shape), len(block.args))
        op = hl.AddOp(operand, value)
    elif step == "relu":
        op = hl.ReluOp(value)
    elif step in ("gelu_tanh", "gelu_exact"):
        op = hl.GeluOp(value, "tanh" if step == "gelu_tanh" else "none")
    elif step == "scale":
        block.add_op(scale := hl.splat(0.5, element))
        op = hl.MulOp(value, scale.result)
    else:
        op = hl.CastOp(value, f32)
    block.add_op(op)
    return op.results[0]


def _inputs(module: ModuleOp, seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    func = next(op for op in module.walk() if isinstance(op, FuncOp))
    tensors = []
    for arg in func.body.blocks[0].args:
        shape, dtype = shaped_type_parts(arg.type)
        tensors.append((torch.randn(shape, generator=generator) * 0.5).to(dtype))
    return tensors


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=graph_specs)
def test_fused_program_computes_the_same_values(spec: GraphSpec) -> None:
    """Fusion changes only rounding: the fused program matches the unfused one, every
    emitted call passes the verifier, and it costs no more than the input by the model."""
    module = build_graph(spec)
    reference = parse(render(module))
    outcome = fuse_block(only_block(module), ALL)
    module.verify()
    for op in module.walk():
        if isinstance(op, MatmulOp):
            assert matmul_diagnostics(op) == []
    assert outcome.rejected == []
    assert outcome.cost <= outcome.input_cost + 1e-12
    inputs = _inputs(reference, seed=len(spec.steps))
    expected = interpret(reference, inputs)
    actual = interpret(module, inputs)
    tolerance = 1e-5 if spec.dtype == "f32" else 3e-2
    for got, want in zip(actual, expected, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        torch.testing.assert_close(got.float(), want.float(), rtol=tolerance, atol=tolerance)


def test_unguarded_rule_is_refused_and_named() -> None:
    """With the docs/design.md rule loaded, its call is rejected (V4) and never emitted."""
    spec = GraphSpec("bf16", 3, 8, 8, True, False, ("residual", "cast_f32"), False)
    guarded, unguarded = build_graph(spec), build_graph(spec)
    fuse_block(only_block(guarded), ALL)
    config = FuseConfig((*FAMILIES, "unguarded-cast"), ALL.limits)
    outcome = fuse_block(only_block(unguarded), config)
    assert render(unguarded) == render(guarded)
    assert [r.made_by for r in outcome.rejected] == [("unguarded-cast",)]
    assert outcome.rejected[0].problems[0].startswith("V4: beta = 1.0 reads C as f32")


# --- determinism ------------------------------------------------------------------------


def chain_program(blocks: int, hidden: int = 64, tokens: int = 4) -> str:
    """A residual chain at the hl level: RMS norm, up (bias, gelu), down (bias), add."""
    act = f"tensor<{tokens}x{hidden}xbf16>"
    act32 = f"tensor<{tokens}x{hidden}xf32>"
    stat = f"tensor<{tokens}x1xf32>"
    mid = f"tensor<{tokens}x{2 * hidden}xbf16>"
    args, body = [f"%h0: {act}"], []
    for i in range(blocks):
        up, down = f"tensor<{2 * hidden}x{hidden}xbf16>", f"tensor<{hidden}x{2 * hidden}xbf16>"
        args += [f"%wu{i}: {up}", f"%bu{i}: tensor<{2 * hidden}xbf16>"]
        args += [f"%wd{i}: {down}", f"%bd{i}: tensor<{hidden}xbf16>"]
        body += [
            f"%f{i} = hl.cast %h{i} : {act} -> {act32}",
            f"%s{i} = hl.mul %f{i}, %f{i} : ({act32}, {act32}) -> {act32}",
            f"%m{i} = hl.mean %s{i} {{dims = array<i64: -1>, keepdim}} : {act32} -> {stat}",
            f"%r{i} = hl.rsqrt %m{i} : {stat} -> {stat}",
            f"%c{i} = hl.mul %f{i}, %r{i} : ({act32}, {stat}) -> {act32}",
            f"%n{i} = hl.cast %c{i} : {act32} -> {act}",
            f"%wut{i} = hl.transpose %wu{i} {{permutation = array<i64: 1, 0>}} : {up} -> {down}",
            f"%u{i} = hl.matmul %n{i}, %wut{i} : ({act}, {down}) -> {mid}",
            f"%ub{i} = hl.add %u{i}, %bu{i} : ({mid}, tensor<{2 * hidden}xbf16>) -> {mid}",
            f'%g{i} = hl.gelu %ub{i} {{approximate = "tanh"}} : {mid} -> {mid}',
            f"%wdt{i} = hl.transpose %wd{i} {{permutation = array<i64: 1, 0>}} : {down} -> {up}",
            f"%d{i} = hl.matmul %g{i}, %wdt{i} : ({mid}, {up}) -> {act}",
            f"%db{i} = hl.add %d{i}, %bd{i} : ({act}, tensor<{hidden}xbf16>) -> {act}",
            f"%h{i + 1} = hl.add %h{i}, %db{i} : ({act}, {act}) -> {act}",
        ]
    out = f"tensor<{tokens}x{hidden}xf32>"
    body += [f"%out = hl.cast %h{blocks} : {act} -> {out}", f"func.return %out : {out}"]
    lines = [f"func.func @chain({', '.join(args)}) -> {out} {{", *body, "}"]
    return "\n".join(lines) + "\n"


HASH_SEEDS = ("0", "1", "2", "3", "42", "123", "999", "2024", "31337", "4294967295")


def test_same_output_in_fresh_processes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Ten processes with different PYTHONHASHSEEDs print byte-identical IR and remarks."""
    module = parse(chain_program(blocks=4))
    HLToCublasltPass().apply(lumir_context(), module)
    source = tmp_path / "chain.mlir"
    source.write_text(render(module) + "\n", encoding="utf-8")
    options = "report-rejected=true unsafe-test-rules=unguarded-cast"
    arguments = [str(source), "-p", f"cublaslt-fuse{{{options}}}"]
    outputs = lumir_opt_outputs(arguments, HASH_SEEDS, with_stderr=True)
    assert len(outputs) == 1
    (output,) = outputs
    assert "epilogue gelu_bias" in output
    assert "rule 'unguarded-cast'" in output


def test_fused_chain_matches_the_unfused_chain() -> None:
    """A 3-block residual chain: fusion moves the residual stream to f32 calls and folds
    every bias and gelu; the result still matches the unfused program."""
    module = parse(chain_program(blocks=3))
    HLToCublasltPass().apply(lumir_context(), module)
    reference = parse(render(module))
    outcome = fuse_block(only_block(module), ALL)
    module.verify()
    text = render(module)
    assert text.count("epilogue gelu_bias") == 3
    assert "hl.gelu" not in text
    assert outcome.cost < outcome.input_cost
    inputs = _inputs(reference, seed=3)
    (expected,) = interpret(reference, inputs)
    (actual,) = interpret(module, inputs)
    scale = expected.abs().max().item()
    torch.testing.assert_close(actual, expected, rtol=3e-2, atol=3e-2 * scale)


def test_choice_does_not_depend_on_rule_order() -> None:
    """Rules listed in another order reach the same e-graph and the same program."""
    first, second = parse(chain_program(blocks=2)), parse(chain_program(blocks=2))
    for module in (first, second):
        HLToCublasltPass().apply(lumir_context(), module)
    fuse_block(only_block(first), ALL)
    fuse_block(only_block(second), FuseConfig(tuple(reversed(FAMILIES)), ALL.limits))
    assert render(first) == render(second)


# --- provenance and one type per class ---------------------------------------------------


def test_provenance_names_every_node_a_rule_builds() -> None:
    """Each built node and each class merge gets a fact naming the rule; lines stay put."""
    text = (
        '(rule ((= y (Add (Reshape m s) r)))\n      ((let rv (Reshape r "2x2"))\n'
        '       (union y (Add m rv)) (union y m))\n      :ruleset batched :name "r")\n'
    )
    annotated = with_provenance(text)
    assert '(built-by-Reshape r "2x2" "r")' in annotated
    assert '(built-by-Add m rv "r")' in annotated
    assert '(merged-by y "r")' in annotated
    assert [line[:20] for line in annotated.splitlines()] == [
        line[:20] for line in text.splitlines()
    ]


def test_node_type_refuses_an_ill_sized_reshape_and_broadcasts_adds() -> None:
    """The checker's inference: reshapes keep the element count, adds broadcast."""
    element = DataType.F32.element_type()
    reshape = ENode("Reshape", ("2x2",), (0,), "k")
    assert node_type(reshape, [TensorType(element, [2, 3, 2])]) is None
    assert node_type(reshape, [TensorType(element, [4])]) == TensorType(element, [2, 2])
    add = ENode("Add", (), (0, 1), "k")
    both = [TensorType(element, [2, 1, 2]), TensorType(element, [2, 3, 2])]
    assert node_type(add, both) == TensorType(element, [2, 3, 2])
