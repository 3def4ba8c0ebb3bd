// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.matmul verifier: K agrees, batches broadcast, ranks >= 2, one element type.

// K of the lhs (8) is not K of the rhs (16).
func.func @k_mismatch(%a: tensor<4x8xf32>, %b: tensor<16x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'hl.matmul' cannot multiply [4, 8] by [16, 2]: expected [..., M, K] @ [..., K, N]}}
  %y = hl.matmul %a, %b : (tensor<4x8xf32>, tensor<16x2xf32>) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

// Vectors are not hl.matmul operands (the importer reshapes them to matrices).
func.func @vector_operand(%a: tensor<8xf32>, %b: tensor<8x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'hl.matmul' cannot multiply [8] by [8, 2]: expected [..., M, K] @ [..., K, N]}}
  %y = hl.matmul %a, %b : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// Batch dimensions 2 and 3 do not broadcast.
func.func @batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{'hl.matmul' cannot multiply [2, 4, 8] by [3, 8, 4]: expected [..., M, K] @ [..., K, N]}}
  %y = hl.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  func.return %y : tensor<2x4x4xf32>
}

// -----

// A bf16 x f32 product needs an explicit cast.
func.func @element_types_differ(%a: tensor<4x8xbf16>, %b: tensor<8x2xf32>) -> tensor<4x2xbf16> {
  // expected-error @+1 {{operand element types differ: rhs is f32, not bf16 (insert an hl.cast)}}
  %y = hl.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x2xf32>) -> tensor<4x2xbf16>
  func.return %y : tensor<4x2xbf16>
}

// -----

// The result is [M, N], not [N, M].
func.func @result_shape(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'hl.matmul' result type tensor<2x4xf32> does not match the inferred type tensor<4x2xf32>}}
  %y = hl.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// A matmul that writes f32 from bf16 operands is a fused cast: hl spells it hl.cast.
func.func @result_element_type(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'hl.matmul' result type tensor<4x2xf32> does not match the inferred type tensor<4x2xbf16>}}
  %y = hl.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}
