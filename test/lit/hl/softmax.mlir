// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.softmax: aten._softmax along `dim` (an i64 property, negative from the end).

// Attention scores along the last dimension.
// CHECK-LABEL: func.func @last_dim(
// CHECK-NEXT:    %r = hl.softmax %s {dim = -1 : i64} : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT:    func.return %r : tensor<2x4x8x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "last_dim"
// GENERIC:         %r = "hl.softmax"(%s) <{dim = -1 : i64}> : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
func.func @last_dim(%s: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %r = hl.softmax %s {dim = -1 : i64} : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  func.return %r : tensor<2x4x8x8xf32>
}

// -----

// Along dimension 0, bf16.
// CHECK-LABEL: func.func @first_dim(
// CHECK-NEXT:    %r = hl.softmax %s {dim = 0 : i64} : tensor<4x8xbf16> -> tensor<4x8xbf16>
// CHECK-NEXT:    func.return %r : tensor<4x8xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "first_dim"
// GENERIC:         %r = "hl.softmax"(%s) <{dim = 0 : i64}> : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
func.func @first_dim(%s: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %r = hl.softmax %s {dim = 0 : i64} : tensor<4x8xbf16> -> tensor<4x8xbf16>
  func.return %r : tensor<4x8xbf16>
}
