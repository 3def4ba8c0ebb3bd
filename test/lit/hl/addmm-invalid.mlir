// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.addmm verifier: 2-D operands with agreeing K, a bias that broadcasts, one element type.

// K disagrees.
func.func @k_mismatch(%b: tensor<4xf32>, %x: tensor<2x8xf32>, %w: tensor<6x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'hl.addmm' expects [M, K] @ [K, N], got [2, 8] and [6, 4]}}
  %y = hl.addmm %b, %x, %w : (tensor<4xf32>, tensor<2x8xf32>, tensor<6x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// addmm is 2-D only (batched products are hl.matmul + hl.add).
func.func @batched(%b: tensor<4xf32>, %x: tensor<3x2x8xf32>, %w: tensor<8x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+1 {{'hl.addmm' expects [M, K] @ [K, N], got [3, 2, 8] and [8, 4]}}
  %y = hl.addmm %b, %x, %w : (tensor<4xf32>, tensor<3x2x8xf32>, tensor<8x4xf32>) -> tensor<3x2x4xf32>
  func.return %y : tensor<3x2x4xf32>
}

// -----

// A bias of length M = 2 does not broadcast along N = 4.
func.func @bias_shape(%b: tensor<2xf32>, %x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'hl.addmm' bias [2] does not broadcast to [2, 4]}}
  %y = hl.addmm %b, %x, %w : (tensor<2xf32>, tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// A bias that would grow the result ([3, 2, 4]) is not a broadcast to [2, 4].
func.func @bias_grows_result(%b: tensor<3x2x4xf32>, %x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'hl.addmm' bias [3, 2, 4] does not broadcast to [2, 4]}}
  %y = hl.addmm %b, %x, %w : (tensor<3x2x4xf32>, tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// ATen's addmm does not promote: an f32 bias on bf16 matrices is refused.
func.func @element_types_differ(%b: tensor<4xf32>, %x: tensor<2x8xbf16>, %w: tensor<8x4xbf16>) -> tensor<2x4xbf16> {
  // expected-error @+1 {{operand element types differ: lhs is bf16, not f32 (insert an hl.cast)}}
  %y = hl.addmm %b, %x, %w : (tensor<4xf32>, tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
  func.return %y : tensor<2x4xbf16>
}

// -----

// The result is [M, N].
func.func @result_shape(%b: tensor<4xf32>, %x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.addmm' result type tensor<4xf32> does not match the inferred type tensor<2x4xf32>}}
  %y = hl.addmm %b, %x, %w : (tensor<4xf32>, tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
