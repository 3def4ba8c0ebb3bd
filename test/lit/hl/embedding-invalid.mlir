// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.embedding verifier: a 2-D weight, i32/i64 indices, the gathered result type.

// The weight is a [V, E] table.
func.func @weight_rank(%w: tensor<16xf32>, %ids: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.embedding' expects a 2-D weight and i32 or i64 indices, got tensor<16xf32> and tensor<4xi64>}}
  %e = hl.embedding %w, %ids : (tensor<16xf32>, tensor<4xi64>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

// Float indices.
func.func @float_indices(%w: tensor<16x8xf32>, %ids: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.embedding' expects a 2-D weight and i32 or i64 indices, got tensor<16x8xf32> and tensor<4xf32>}}
  %e = hl.embedding %w, %ids : (tensor<16x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  func.return %e : tensor<4x8xf32>
}

// -----

// ATen takes only Long or Int indices: i8 and i1 are refused.
func.func @i8_indices(%w: tensor<16x8xf32>, %ids: tensor<4xi8>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.embedding' expects a 2-D weight and i32 or i64 indices, got tensor<16x8xf32> and tensor<4xi8>}}
  %e = hl.embedding %w, %ids : (tensor<16x8xf32>, tensor<4xi8>) -> tensor<4x8xf32>
  func.return %e : tensor<4x8xf32>
}

// -----

// The result is indices.shape + [E] in the weight's element type.
func.func @result_type(%w: tensor<16x8xbf16>, %ids: tensor<2x3xi64>) -> tensor<2x3x8xf32> {
  // expected-error @+1 {{'hl.embedding' result type tensor<2x3x8xf32> does not match the inferred type tensor<2x3x8xbf16>}}
  %e = hl.embedding %w, %ids : (tensor<16x8xbf16>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  func.return %e : tensor<2x3x8xf32>
}
