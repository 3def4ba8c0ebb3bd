"""Triton's interpreter, as the interpreter checks run it, converts between f32 and bf16
as a GPU does (`lumir.testing.interpreter_rounding`)."""

from __future__ import annotations

import pytest

from lumir.testing.fused_check import run_in_interpreter, triton_interpreter_available

pytestmark = pytest.mark.skipif(
    triton_interpreter_available() is not None,
    reason=f"Triton interpreter check: {triton_interpreter_available()}",
)

BF16 = """func.func @f(%x: tensor<4x64xf32>) -> (tensor<4x64xbf16>, tensor<4x64xbf16>) {
  %r:2 = hl.fused(%x) : (tensor<4x64xf32>) -> (tensor<4x64xbf16>, tensor<4x64xbf16>) {
    ^bb0(%x_1: tensor<4x64xf32>):
      %b = hl.cast %x_1 : tensor<4x64xf32> -> tensor<4x64xbf16>
      %tiny = hl.constant {value = dense<1.0e-39> : tensor<bf16>} : tensor<bf16>
      %s = hl.mul %b, %tiny : (tensor<4x64xbf16>, tensor<bf16>) -> tensor<4x64xbf16>
      %t = hl.add %s, %s : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
      hl.yield %b, %t : tensor<4x64xbf16>, tensor<4x64xbf16>
  }
  func.return %r#0, %r#1 : tensor<4x64xbf16>, tensor<4x64xbf16>
}
"""


def test_the_interpreter_converts_bf16_as_a_gpu(tmp_path) -> None:
    """f32 -> bf16 rounds to nearest even and bf16 subnormals read back exactly, as on a
    GPU (and in torch): the kernel's bytes equal the reference's. Triton's own
    interpreter truncated the first and mis-scaled the second
    (`lumir.testing.interpreter_rounding`)."""
    path = tmp_path / "bf16.mlir"
    path.write_text(BF16)
    report = run_in_interpreter(path, atol=0.0, rtol=0.0)
    assert report["max_abs_diff"] == [0.0, 0.0], report["max_abs_diff"]
    assert report["returncode"] == 0
