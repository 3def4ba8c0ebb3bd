// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.minimum verifier: element types, broadcasting, the result type, static shapes.

// Mixed element types need an explicit hl.cast first.
func.func @element_types_differ(%a: tensor<4x8xf32>, %b: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand element types differ: rhs is bf16, not f32 (insert an hl.cast)}}
  %r = hl.minimum %a, %b : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// 8 and 3 are both > 1: no broadcast.
func.func @shapes_do_not_broadcast(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.minimum' operand shapes [4, 8] and [4, 3] do not broadcast}}
  %r = hl.minimum %a, %b : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// The result must be the broadcast shape, not the shape of one operand.
func.func @result_shape(%a: tensor<4x1xf32>, %b: tensor<1x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'hl.minimum' result type tensor<4x1xf32> does not match the inferred type tensor<4x8xf32>}}
  %r = hl.minimum %a, %b : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x1xf32>
  func.return %r : tensor<4x1xf32>
}

// -----

// The result keeps the operands' element type.
func.func @result_element_type(%a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.minimum' result type tensor<4x8xf32> does not match the inferred type tensor<4x8xbf16>}}
  %r = hl.minimum %a, %b : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
