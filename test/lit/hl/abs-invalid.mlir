// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.abs verifier: the result has exactly the input's type.

// The shape cannot change.
func.func @result_shape(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'hl.abs' result type tensor<8x4xf32> does not match the inferred type tensor<4x8xf32>}}
  %r = hl.abs %x : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

// The element type cannot change either (that is hl.cast's job).
func.func @result_element_type(%x: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.abs' result type tensor<4x8xf32> does not match the inferred type tensor<4x8xbf16>}}
  %r = hl.abs %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// Shapes are static.
func.func @dynamic_shape(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{hl ops need static shapes, got tensor<4x?xf32>}}
  %r = hl.abs %x : tensor<4x?xf32> -> tensor<4x?xf32>
  func.return %r : tensor<4x?xf32>
}

// -----

// torch has no CPU abs of a boolean ("abs_cpu" not implemented for 'Bool'): refused here,
// not when lumir-run runs the program.
func.func @i1_input(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'hl.abs' cannot run on i1: torch's CPU kernel does not implement it for that type; expected one of f32, f16, bf16, i64, i32, f64, f8E4M3FN, f8E5M2, i8, i16, ui8}}
  %r = hl.abs %x : tensor<4xi1> -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}
