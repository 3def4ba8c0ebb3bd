// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.cat verifier: >= 1 input of rank >= 1, equal outside dim, one element type.

// Inputs differ outside the cat dimension (8 and 4 along dimension 1).
func.func @shapes_differ(%a: tensor<2x8xf32>, %b: tensor<3x4xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'hl.cat' input shapes [[2, 8], [3, 4]] differ outside dim 0}}
  %r = hl.cat %a, %b {dim = 0 : i64} : (tensor<2x8xf32>, tensor<3x4xf32>) -> tensor<5x8xf32>
  func.return %r : tensor<5x8xf32>
}

// -----

// Inputs have one rank.
func.func @ranks_differ(%a: tensor<2x8xf32>, %b: tensor<8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'hl.cat' input shapes [[2, 8], [8]] differ outside dim 0}}
  %r = hl.cat %a, %b {dim = 0 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  func.return %r : tensor<3x8xf32>
}

// -----

// Inputs share an element type.
func.func @element_types_differ(%a: tensor<2x8xf32>, %b: tensor<2x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand element types differ: one of the inputs is bf16, not f32 (insert an hl.cast)}}
  %r = hl.cat %a, %b {dim = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xbf16>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// At least one input.
func.func @no_inputs() -> tensor<4xf32> {
  // expected-error @+1 {{'hl.cat' needs at least one input}}
  %r = hl.cat {dim = 0 : i64} : () -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// ATen cannot concatenate 0-d tensors (this used to crash the verifier).
func.func @scalars(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'hl.cat' cannot concatenate 0-d tensors}}
  %r = hl.cat %a, %b {dim = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Dimension 2 of 2-D inputs does not exist.
func.func @dim_out_of_range(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{'hl.cat' dimension 2 is out of range for rank 2}}
  %r = hl.cat %a, %b {dim = 2 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x16xf32>
  func.return %r : tensor<2x16xf32>
}

// -----

// The result adds up the cat dimension.
func.func @result_shape(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{'hl.cat' result type tensor<6x8xf32> does not match the inferred type tensor<5x8xf32>}}
  %r = hl.cat %a, %b {dim = 0 : i64} : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<6x8xf32>
  func.return %r : tensor<6x8xf32>
}
