// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.argmax / hl.argmin verifier: at most one dimension, an i64 result of the reduced shape.

// ATen's argmax takes one dimension or none.
func.func @two_dims(%x: tensor<4x8xf32>) -> tensor<i64> {
  // expected-error @+1 {{'hl.argmax' reduces along at most one dimension, got dims [0, 1]}}
  %r = hl.argmax %x {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<i64>
  func.return %r : tensor<i64>
}

// -----

// The result is a position: i64, whatever the input's element type.
func.func @not_i64(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.argmin' result type tensor<4xf32> does not match the inferred type tensor<4xi64>}}
  %r = hl.argmin %x {dims = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Dimension 2 of a 2-D tensor does not exist.
func.func @out_of_range(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{'hl.argmax' dimension 2 is out of range for rank 2}}
  %r = hl.argmax %x {dims = array<i64: 2>} : tensor<4x8xf32> -> tensor<4xi64>
  func.return %r : tensor<4xi64>
}
