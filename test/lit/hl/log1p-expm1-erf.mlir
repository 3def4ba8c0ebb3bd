// RUN: lumir-opt %s | lumir-opt | filecheck %s
// RUN: lumir-opt %s --print-op-generic | lumir-opt | filecheck %s

// hl.log1p, hl.expm1, hl.erf: aten.log1p, aten.expm1, aten.erf, elementwise, the result
// of the input's type. Softplus is `where(x > threshold, x, log1p(exp(x)))` after torch's
// decomposition, ELU `where(x > 0, x, alpha * expm1(x))`, an exact GELU written by hand
// `0.5 * x * (1 + erf(x / sqrt(2)))`.

// CHECK-LABEL: func.func @activations(
// CHECK-NEXT:    %e = hl.exp %x : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    %s = hl.log1p %e : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    %m = hl.expm1 %s : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    %g = hl.erf %m : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    func.return %g : tensor<2x8xbf16>
func.func @activations(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %e = hl.exp %x : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %s = hl.log1p %e : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %m = hl.expm1 %s : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %g = hl.erf %m : tensor<2x8xbf16> -> tensor<2x8xbf16>
  func.return %g : tensor<2x8xbf16>
}
