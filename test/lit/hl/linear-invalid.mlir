// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.linear verifier: weight [N, K] matches input [..., K], bias [N], one element type.

// The weight is [N, K] = [16, 4] but the input has K = 8 (the weight is not transposed).
func.func @k_mismatch(%x: tensor<4x8xf32>, %w: tensor<16x4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'hl.linear' expects input [..., K] and weight [N, K], got [4, 8] and [16, 4]}}
  %y = hl.linear %x, %w : tensor<4x8xf32>, tensor<16x4xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// The weight is a matrix.
func.func @weight_rank(%x: tensor<4x8xf32>, %w: tensor<2x16x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'hl.linear' expects input [..., K] and weight [N, K], got [4, 8] and [2, 16, 8]}}
  %y = hl.linear %x, %w : tensor<4x8xf32>, tensor<2x16x8xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// The bias has the out-features length N = 16, not K.
func.func @bias_shape(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'hl.linear' bias must be [16], got [8]}}
  %y = hl.linear %x, %w bias(%b : tensor<8xf32>) : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// A bf16 weight with an f32 input: ATen refuses, so does hl.
func.func @weight_element_type(%x: tensor<4x8xf32>, %w: tensor<16x8xbf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{operand element types differ: weight is bf16, not f32 (insert an hl.cast)}}
  %y = hl.linear %x, %w : tensor<4x8xf32>, tensor<16x8xbf16> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// An f32 bias on a bf16 layer: the bias must be cast too.
func.func @bias_element_type(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %b: tensor<16xf32>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{operand element types differ: bias is f32, not bf16 (insert an hl.cast)}}
  %y = hl.linear %x, %w bias(%b : tensor<16xf32>) : tensor<4x8xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
  func.return %y : tensor<4x16xbf16>
}

// -----

// The result is [..., N].
func.func @result_shape(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.linear' result type tensor<4x8xf32> does not match the inferred type tensor<4x16xf32>}}
  %y = hl.linear %x, %w : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
