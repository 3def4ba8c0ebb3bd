// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.slice verifier: dim in range, a positive step, the sliced result shape.

// step 0 is not a slice.
func.func @zero_step(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.slice' step must be positive, got 0}}
  %r = hl.slice %x {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// Negative steps are not ATen slices either.
func.func @negative_step(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.slice' step must be positive, got -1}}
  %r = hl.slice %x {dim = 1 : i64, start = 7 : i64, end = 0 : i64, step = -1 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// Dimension 2 of a 2-D tensor does not exist.
func.func @dim_out_of_range(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.slice' dimension 2 is out of range for rank 2}}
  %r = hl.slice %x {dim = 2 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// 0:8:3 keeps 3 elements (0, 3, 6), not 2.
func.func @result_shape(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'hl.slice' result type tensor<4x2xf32> does not match the inferred type tensor<4x3xf32>}}
  %r = hl.slice %x {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 3 : i64} : tensor<4x8xf32> -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}

// -----

// All four properties are required.
func.func @missing_step(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{property 'step' expected in operation 'hl.slice'}}
  %r = hl.slice %x {dim = 1 : i64, start = 0 : i64, end = 8 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// A dynamic dimension is reported, not sliced.
func.func @dynamic_shape(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{hl ops need static shapes, got tensor<?x8xf32>}}
  %r = hl.slice %x {dim = 0 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<?x8xf32> -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}
