"""A fused kernel's `hl.pow` by a literal exponent and its `hl.tanh` compute what the
reference's torch ops do, at special values and at small values too.

The generated kernel (`triton_codegen._pow`) raised to 0 as `x * 0 + 1` (NaN for a NaN
or infinite x, where pow gives 1), took the square root of -inf (NaN, where pow(-inf,
0.5) is +inf), and raised to any exponent other than 0.5, -0.5 or an integer up to 4 as
`exp2(log2(x) * e)`: NaN for every negative x, so `x ** 5` of a negative x was NaN and
-inf to 1.5 was NaN. Found by `lumir.testing.codegen_fuzz`. Checked under Triton's
interpreter, also with a NaN, a +inf and a -inf in the input, against the body run by
torch (and in float64 for the error bound).
"""

from __future__ import annotations

import pytest

from lumir.testing.fused_check import run_in_interpreter, triton_interpreter_available

EXPONENTS = ("0.0", "0.5", "-0.5", "2.0", "-1.0", "5.0", "-5.0", "6.0", "1.5", "-1.5", "0.25")


def _body(element: str) -> str:
    t = f"tensor<4x64x{element}>"
    lines, names = [], []
    for i, exponent in enumerate(EXPONENTS):
        lines.append(
            f"      %e{i} = hl.constant {{value = dense<{exponent}> : tensor<{element}>}} "
            f": tensor<{element}>"
        )
        lines.append(f"      %p{i} = hl.pow %x_1, %e{i} : ({t}, tensor<{element}>) -> {t}")
        names.append(f"%p{i}")
    types = ", ".join([t] * len(names))
    body = "\n".join(lines)
    return f"""func.func @f(%x: {t}) -> ({types}) {{
  %r:{len(names)} = hl.fused(%x) : ({t}) -> ({types}) {{
    ^bb0(%x_1: {t}):
{body}
      hl.yield {", ".join(names)} : {types}
  }}
  func.return %r#0 : {t}
}}
"""


@pytest.mark.skipif(
    triton_interpreter_available() is not None,
    reason=f"Triton interpreter check: {triton_interpreter_available()}",
)
@pytest.mark.parametrize("element", ["f32", "bf16"])
@pytest.mark.parametrize("specials", [False, True])
def test_pow_by_a_literal_computes_torchs_pow(element: str, specials: bool, tmp_path) -> None:
    path = tmp_path / "pow.mlir"
    path.write_text(_body(element))
    report = run_in_interpreter(path, atol=1e-5, rtol=1e-5, specials=specials)
    wrong = [e for e, ok in zip(EXPONENTS, report["within_bound"], strict=True) if not ok]
    assert not wrong, (wrong, report["max_abs_diff"])
    assert report["forms_equal"]


TANH = """func.func @f(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %r:2 = hl.fused(%x) : (tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
    ^bb0(%x_1: tensor<4x64xf32>):
      %small = hl.constant {value = dense<1.0e-06> : tensor<f32>} : tensor<f32>
      %tiny = hl.constant {value = dense<1.0e-30> : tensor<f32>} : tensor<f32>
      %a = hl.mul %x_1, %small : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
      %b = hl.mul %x_1, %tiny : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
      %ta = hl.tanh %a : tensor<4x64xf32> -> tensor<4x64xf32>
      %tb = hl.tanh %b : tensor<4x64xf32> -> tensor<4x64xf32>
      %q = hl.div %b, %tb : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
      hl.yield %ta, %q : tensor<4x64xf32>, tensor<4x64xf32>
  }
  func.return %r#0, %r#1 : tensor<4x64xf32>, tensor<4x64xf32>
}
"""


@pytest.mark.skipif(
    triton_interpreter_available() is not None,
    reason=f"Triton interpreter check: {triton_interpreter_available()}",
)
def test_tanh_of_small_values_keeps_its_relative_precision(tmp_path) -> None:
    """tanh(x) for |x| around 1e-6 and 1e-30, and x / tanh(x) (1 in torch): the kernel's
    tanh was `2 sigmoid(2x) - 1`, about 6e-8 off absolutely, so 7% off at 1e-6, 0 at
    1e-30 and x / tanh(x) inf or NaN (`triton_codegen._tanh`)."""
    path = tmp_path / "tanh.mlir"
    path.write_text(TANH)
    for specials in (False, True):
        report = run_in_interpreter(path, atol=0.0, rtol=1e-5, specials=specials)
        assert report["returncode"] == 0, (report["max_rel_diff"], report["within_bound"])
        assert report["within_bound"] == [True, True]
