// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.transpose verifier: a permutation of the input's dimensions, the permuted result type.

// A repeated dimension is not a permutation.
func.func @repeated(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'hl.transpose' permutation [0, 0] is not a permutation of 2 dimensions}}
  %t = hl.transpose %x {permutation = array<i64: 0, 0>} : tensor<4x8xf32> -> tensor<4x4xf32>
  func.return %t : tensor<4x4xf32>
}

// -----

// Too few entries for a 3-D input.
func.func @wrong_length(%x: tensor<2x4x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'hl.transpose' permutation [1, 0] is not a permutation of 3 dimensions}}
  %t = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x4x8xf32> -> tensor<4x2xf32>
  func.return %t : tensor<4x2xf32>
}

// -----

// Negative indices are normalised by the importer; hl wants 0..rank-1.
func.func @negative(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'hl.transpose' permutation [-1, 0] is not a permutation of 2 dimensions}}
  %t = hl.transpose %x {permutation = array<i64: -1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return %t : tensor<8x4xf32>
}

// -----

// The result shape must be the permuted input shape.
func.func @result_shape(%x: tensor<2x4x8xf32>) -> tensor<2x8x4xf32> {
  // expected-error @+1 {{'hl.transpose' result type tensor<2x8x4xf32> does not match the inferred type tensor<8x2x4xf32>}}
  %t = hl.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  func.return %t : tensor<2x8x4xf32>
}

// -----

// `permutation` is an i64 array (generic form: the property constraint).
func.func @permutation_not_i64(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{Expected attribute i64 but got i32}}
  %t = "hl.transpose"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
  func.return %t : tensor<8x4xf32>
}
