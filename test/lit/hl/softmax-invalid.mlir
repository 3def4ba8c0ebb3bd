// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.softmax verifier: dim in range, a floating-point input, the result type kept.

// Dimension -3 of a 2-D tensor does not exist.
func.func @dim_out_of_range(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.softmax' dimension -3 is out of range for rank 2}}
  %r = hl.softmax %s {dim = -3 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// ATen's softmax is only defined on floating-point tensors.
func.func @integer_input(%s: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'hl.softmax' needs a floating-point input, got tensor<4x8xi32>}}
  %r = hl.softmax %s {dim = 1 : i64} : tensor<4x8xi32> -> tensor<4x8xi32>
  func.return %r : tensor<4x8xi32>
}

// -----

// The result has the input's type.
func.func @result_type(%s: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.softmax' result type tensor<4x8xf32> does not match the inferred type tensor<4x8xbf16>}}
  %r = hl.softmax %s {dim = 1 : i64} : tensor<4x8xbf16> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// `dim` is required.
func.func @missing_dim(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{property 'dim' expected in operation 'hl.softmax'}}
  %r = hl.softmax %s : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
