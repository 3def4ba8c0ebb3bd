// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s

// hl.fused: a row program (elementwise ops and last-dimension reductions) as one kernel.

// An RMSNorm: f32 inside, the weight broadcast along the rows.
// CHECK-LABEL: func.func @rms_norm(
// CHECK-NEXT:    %r = hl.fused(%x, %w) : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16> {
// CHECK-NEXT:    ^bb0(%a: tensor<4x8xbf16>, %b: tensor<8xbf16>):
// CHECK-NEXT:      %c = hl.cast %a : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT:      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:      %p = hl.pow %c, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %q = hl.rsqrt %m : tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %s = hl.mul %c, %q : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %d = hl.cast %s : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK-NEXT:      %e = hl.mul %b, %d : (tensor<8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK-NEXT:      hl.yield %e : tensor<4x8xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<4x8xbf16>
func.func @rms_norm(%x: tensor<4x8xbf16>, %w: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %r = hl.fused(%x, %w) : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16> {
  ^bb0(%a: tensor<4x8xbf16>, %b: tensor<8xbf16>):
    %c = hl.cast %a : tensor<4x8xbf16> -> tensor<4x8xf32>
    %two = hl.constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
    %p = hl.pow %c, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>
    %q = hl.rsqrt %m : tensor<4x1xf32> -> tensor<4x1xf32>
    %s = hl.mul %c, %q : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %d = hl.cast %s : tensor<4x8xf32> -> tensor<4x8xbf16>
    %e = hl.mul %b, %d : (tensor<8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
    hl.yield %e : tensor<4x8xbf16>
  }
  func.return %r : tensor<4x8xbf16>
}

// -----

// Two results: the row and its per-row maximum (a [rows, 1] result).
// CHECK-LABEL: func.func @two_results(
// CHECK-NEXT:    %r, %r_1 = hl.fused(%x) : (tensor<2x3x16xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x1xf32>) {
// CHECK:           hl.yield %s, %m : tensor<2x3x16xf32>, tensor<2x3x1xf32>
func.func @two_results(%x: tensor<2x3x16xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x1xf32>) {
  %r:2 = hl.fused(%x) : (tensor<2x3x16xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x1xf32>) {
  ^bb0(%a: tensor<2x3x16xf32>):
    %m = hl.amax %a {dims = array<i64: 2>, keepdim} : tensor<2x3x16xf32> -> tensor<2x3x1xf32>
    %s = hl.softmax %a {dim = -1 : i64} : tensor<2x3x16xf32> -> tensor<2x3x16xf32>
    hl.yield %s, %m : tensor<2x3x16xf32>, tensor<2x3x1xf32>
  }
  func.return %r#0, %r#1 : tensor<2x3x16xf32>, tensor<2x3x1xf32>
}
