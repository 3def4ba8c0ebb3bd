// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.fmod verifiers: floating-point operands only (an integer fmod by zero raises in
// torch's kernel), of one element type, and the broadcast result type.

func.func @integer_operands(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'hl.fmod' needs a floating-point input, got tensor<4xi64>}}
  %r = hl.fmod %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  func.return %r : tensor<4xi64>
}

// -----

func.func @mixed(%x: tensor<4xf32>, %y: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{operand element types differ: rhs is bf16, not f32 (insert an hl.cast)}}
  %r = hl.fmod %x, %y : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @shape(%x: tensor<4x6xf32>, %y: tensor<6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.fmod' result type tensor<4xf32> does not match the inferred type tensor<4x6xf32>}}
  %r = hl.fmod %x, %y : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
