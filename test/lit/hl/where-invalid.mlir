// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.where verifier: an i1 condition, branches of one type, broadcasting, the result type.

// The condition is i1.
func.func @condition_not_i1(%c: tensor<4xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.where' condition must be i1, got f32}}
  %r = hl.where %c, %a, %b : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Both branches share an element type.
func.func @branches_differ(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{operand element types differ: rhs is bf16, not f32 (insert an hl.cast)}}
  %r = hl.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// All three shapes broadcast together.
func.func @shapes_do_not_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.where' operand shapes [3], [4] and [4] do not broadcast}}
  %r = hl.where %c, %a, %b : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// The condition's shape takes part in the broadcast.
func.func @result_shape(%c: tensor<2x4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.where' result type tensor<4xf32> does not match the inferred type tensor<2x4xf32>}}
  %r = hl.where %c, %a, %b : (tensor<2x4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
