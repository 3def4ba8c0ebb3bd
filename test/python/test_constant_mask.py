"""hl-canonicalize's attention masks known at compile time (`SpecializeConstantMask`).

The rewrite must change no value: the canonicalized function, run by the reference
interpreter, agrees with the original on random inputs; and it must only fire on what
it claims (all-pass or exactly causal masks computed from constants alone).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from lumir.context import lumir_context
from lumir.dialects import hl
from lumir.parsing import parse_module_text
from lumir.passes.constant_values import MAX_SLICE_OPS, ConstantEvaluator, backward_slice
from lumir.passes.hl_canonicalize import HLCanonicalizePass, attention_mask_kind
from lumir.runtime.interpreter import interpret

LIT = Path(__file__).resolve().parents[1] / "lit" / "hl-canonicalize" / "constant-mask.mlir"
NEG = float("-inf")


def _cases() -> list[str]:
    return [text for text in LIT.read_text().split("// -----") if "func.func" in text]


def _canonical(text: str) -> ModuleOp:
    module = parse_module_text(text, "<test>")
    HLCanonicalizePass().apply(lumir_context(), module)
    return module


def _inputs(module: ModuleOp, seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    (function,) = [op for op in module.ops if isinstance(op, FuncOp)]
    inputs = []
    for arg in function.body.block.args:
        shape = tuple(arg.type.get_shape())
        if str(arg.type.element_type) == "i1":
            inputs.append(torch.rand(shape, generator=generator) < 0.7)
            continue
        dtype = torch.bfloat16 if "bf16" in str(arg.type) else torch.float32
        inputs.append(torch.randn(shape, generator=generator).to(dtype))
    return inputs


@pytest.mark.parametrize("index", range(len(_cases())))
def test_the_rewritten_function_computes_what_the_original_computes(index: int) -> None:
    text = _cases()[index]
    original = parse_module_text(text, "<test>")
    for seed in range(3):
        inputs = _inputs(original, seed)
        want = interpret(original, inputs)
        got = interpret(_canonical(text), inputs)
        for g, w in zip(got, want, strict=True):
            torch.testing.assert_close(g.float(), w.float(), rtol=1e-2, atol=1e-2, equal_nan=True)


def test_every_case_but_the_kept_ones_loses_its_mask() -> None:
    masked = {}
    for text in _cases():
        module = _canonical(text)
        (function,) = [op for op in module.ops if isinstance(op, FuncOp)]
        sdpas = [op for op in function.walk() if isinstance(op, hl.ScaledDotProductAttentionOp)]
        masked[function.sym_name.data] = sum(op.mask is not None for op in sdpas)
    assert masked == {
        "causal": 0,
        "causal_i1_shared": 0,
        "one_token": 0,
        "kept": 3,
        "causal_lowest": 0,
        "causal_cuda_fill": 0,
        "causal_unscaled": 5,  # scales 0, -1, NaN, 1e-50 and 1e39 keep the mask (f32 holds
        # neither of the last two); 1e-30 is causal
    }


@pytest.mark.parametrize(
    ("mask", "queries", "keys", "kind"),
    [
        (torch.zeros(1, 1, 1, 1), 1, 1, "none"),
        (torch.ones(3, 5, dtype=torch.bool), 3, 5, "none"),
        (torch.zeros(5), 3, 5, "none"),  # broadcast over the queries
        (torch.ones(4, 4, dtype=torch.bool).tril(), 4, 4, "causal"),
        (
            torch.zeros(4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), NEG),
            4,
            4,
            "causal",
        ),
        (torch.ones(2, 4, 4, dtype=torch.bool).tril(), 4, 4, "causal"),
        (torch.ones(3, 5, dtype=torch.bool).tril(), 3, 5, None),  # not square: not is_causal
        (torch.ones(4, 4, dtype=torch.bool).tril(-1), 4, 4, None),  # the first row sees none
        (torch.ones(4, 4, dtype=torch.bool).triu(), 4, 4, None),
        (torch.full((4, 4), 0.5), 4, 4, None),  # a bias
        (torch.full((4, 4), -1e4), 4, 4, None),  # large, but not "left out"
        (  # torch's fill for a boolean mask's false on CUDA
            torch.zeros(4, 4, dtype=torch.bfloat16).masked_fill(
                ~torch.ones(4, 4, dtype=torch.bool).tril(), -65536.0
            ),
            4,
            4,
            "causal",
        ),
        (  # a bias between -1e4 and -65536 is still a bias
            torch.zeros(4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), -65535.0),
            4,
            4,
            None,
        ),
        (
            torch.stack(
                [torch.ones(3, 3, dtype=torch.bool).tril(), torch.ones(3, 3, dtype=torch.bool)]
            ),
            3,
            3,
            None,
        ),  # the batch entries differ
    ],
)
def test_mask_kind(mask: torch.Tensor, queries: int, keys: int, kind: str | None) -> None:
    assert attention_mask_kind(mask, queries, keys) == kind


def test_the_lowest_finite_value_counts_as_left_out() -> None:
    low = torch.finfo(torch.bfloat16).min
    mask = torch.zeros(3, 3, dtype=torch.bfloat16).masked_fill(
        ~torch.ones(3, 3, dtype=torch.bool).tril(), low
    )
    assert attention_mask_kind(mask, 3, 3) == "causal"


def _function(text: str) -> FuncOp:
    module = parse_module_text(text, "<test>")
    (function,) = [op for op in module.ops if isinstance(op, FuncOp)]
    return function


def test_a_value_read_from_an_argument_is_not_known() -> None:
    function = _function(
        """func.func @f(%x: tensor<4xi64>) -> tensor<4xi64> {
  %one = hl.constant {value = dense<1> : tensor<i64>} : tensor<i64>
  %y = hl.add %x, %one : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  func.return %y : tensor<4xi64>
}"""
    )
    (add,) = [op for op in function.body.block.ops if isinstance(op, hl.AddOp)]
    assert backward_slice(add.result) is None
    assert ConstantEvaluator().value(add.result) is None
    (one,) = [op for op in function.body.block.ops if isinstance(op, hl.ConstantOp)]
    assert ConstantEvaluator().value(one.result).item() == 1


def test_a_slice_longer_than_the_bound_is_not_evaluated() -> None:
    lines = ["%v0 = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>"]
    lines += [
        f"%v{i} = hl.neg %v{i - 1} : tensor<4xi64> -> tensor<4xi64>"
        for i in range(1, MAX_SLICE_OPS + 1)
    ]
    last = f"%v{MAX_SLICE_OPS}"
    body = "\n  ".join(lines)
    function = _function(
        f"func.func @f() -> tensor<4xi64> {{\n  {body}\n  func.return {last} : tensor<4xi64>\n}}"
    )
    ops = list(function.body.block.ops)
    assert backward_slice(ops[-2].results[0]) is None  # MAX_SLICE_OPS + 1 ops
    short = ConstantEvaluator().value(ops[-3].results[0])  # exactly MAX_SLICE_OPS
    sign = (-1) ** (MAX_SLICE_OPS - 1)  # MAX_SLICE_OPS - 1 negations of 0..3
    assert short is not None and short.tolist() == [sign * i for i in range(4)]
