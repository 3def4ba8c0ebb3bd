// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s

// t(t(w)) is w: the composed permutation is the identity, so both transposes go.
// CHECK-LABEL: func.func @transpose_twice
// CHECK-NEXT:    func.return %w : tensor<16x8xf32>
func.func @transpose_twice(%w: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %t = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %tt = hl.transpose %t {permutation = array<i64: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  func.return %tt : tensor<16x8xf32>
}

// -----

// Two permutations compose into one: result dim i is input dim p[q[i]].
// [0, 2, 1, 3] then [0, 1, 3, 2] reads [0, 2, 3, 1] of the input.
// CHECK-LABEL: func.func @transpose_compose
// CHECK-NEXT:    %[[T:.*]] = hl.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : tensor<2x3x4x5xf32> -> tensor<2x4x5x3xf32>
// CHECK-NEXT:    func.return %[[T]] : tensor<2x4x5x3xf32>
func.func @transpose_compose(%x: tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32> {
  %a = hl.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
  %b = hl.transpose %a {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x4x3x5xf32> -> tensor<2x4x5x3xf32>
  func.return %b : tensor<2x4x5x3xf32>
}

// -----

// An identity permutation moves nothing.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-NEXT:    func.return %x : tensor<2x3x4xbf16>
func.func @transpose_identity(%x: tensor<2x3x4xbf16>) -> tensor<2x3x4xbf16> {
  %t = hl.transpose %x {permutation = array<i64: 0, 1, 2>} : tensor<2x3x4xbf16> -> tensor<2x3x4xbf16>
  func.return %t : tensor<2x3x4xbf16>
}

// -----

// The inner transpose has another use, so it stays; the outer one still folds.
// CHECK-LABEL: func.func @transpose_shared_inner
// CHECK-NEXT:    %[[T:.*]] = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    func.return %w, %[[T]] : tensor<16x8xf32>, tensor<8x16xf32>
func.func @transpose_shared_inner(%w: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<8x16xf32>) {
  %t = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %tt = hl.transpose %t {permutation = array<i64: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  func.return %tt, %t : tensor<16x8xf32>, tensor<8x16xf32>
}

// -----

// A single non-identity transpose is already canonical.
// CHECK-LABEL: func.func @transpose_single
// CHECK-NEXT:    %[[T:.*]] = hl.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT:    func.return %[[T]] : tensor<4x2x3xf32>
func.func @transpose_single(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %t = hl.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  func.return %t : tensor<4x2x3xf32>
}
