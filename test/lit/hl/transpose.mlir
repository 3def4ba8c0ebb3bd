// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.transpose: aten.permute / transpose / t. Result dimension i is input dimension
// permutation[i] (`permutation` is an i64 array).

// aten.t on a weight.
// CHECK-LABEL: func.func @matrix(
// CHECK-NEXT:    %t = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<32x64xbf16> -> tensor<64x32xbf16>
// CHECK-NEXT:    func.return %t : tensor<64x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "matrix"
// GENERIC:         %t = "hl.transpose"(%w) <{permutation = array<i64: 1, 0>}> : (tensor<32x64xbf16>) -> tensor<64x32xbf16>
func.func @matrix(%w: tensor<32x64xbf16>) -> tensor<64x32xbf16> {
  %t = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<32x64xbf16> -> tensor<64x32xbf16>
  func.return %t : tensor<64x32xbf16>
}

// -----

// Splitting heads: [B, S, H, D] -> [B, H, S, D].
// CHECK-LABEL: func.func @heads(
// CHECK-NEXT:    %t = hl.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32> -> tensor<2x4x6x16xf32>
// CHECK-NEXT:    func.return %t : tensor<2x4x6x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "heads"
// GENERIC:         %t = "hl.transpose"(%x) <{permutation = array<i64: 0, 2, 1, 3>}> : (tensor<2x6x4x16xf32>) -> tensor<2x4x6x16xf32>
func.func @heads(%x: tensor<2x6x4x16xf32>) -> tensor<2x4x6x16xf32> {
  %t = hl.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32> -> tensor<2x4x6x16xf32>
  func.return %t : tensor<2x4x6x16xf32>
}

// -----

// Keys transposed for scores: swap the last two of three dimensions.
// CHECK-LABEL: func.func @last_two(
// CHECK-NEXT:    %t = hl.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<4x10x16xf16> -> tensor<4x16x10xf16>
// CHECK-NEXT:    func.return %t : tensor<4x16x10xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "last_two"
// GENERIC:         %t = "hl.transpose"(%k) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x10x16xf16>) -> tensor<4x16x10xf16>
func.func @last_two(%k: tensor<4x10x16xf16>) -> tensor<4x16x10xf16> {
  %t = hl.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<4x10x16xf16> -> tensor<4x16x10xf16>
  func.return %t : tensor<4x16x10xf16>
}

// -----

// The identity permutation, and the empty permutation of a 0-d tensor.
// CHECK-LABEL: func.func @identity(
// CHECK-NEXT:    %t = hl.transpose %x {permutation = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %u = hl.transpose %s {permutation = array<i64>} : tensor<f32> -> tensor<f32>
// CHECK-NEXT:    func.return %u : tensor<f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "identity"
// GENERIC:         %t = "hl.transpose"(%x) <{permutation = array<i64: 0, 1>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC:         %u = "hl.transpose"(%s) <{permutation = array<i64>}> : (tensor<f32>) -> tensor<f32>
func.func @identity(%x: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<f32> {
  %t = hl.transpose %x {permutation = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  %u = hl.transpose %s {permutation = array<i64>} : tensor<f32> -> tensor<f32>
  func.return %u : tensor<f32>
}
