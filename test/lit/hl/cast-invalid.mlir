// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.cast verifier: a cast only changes the element type.

// Transposing shapes is not a cast.
func.func @shape_changes(%x: tensor<4x8xbf16>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'hl.cast' changes the shape from [4, 8] to [8, 4]; a cast only changes the element type}}
  %r = hl.cast %x : tensor<4x8xbf16> -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

// Neither is dropping a unit dimension.
func.func @rank_changes(%x: tensor<4x1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.cast' changes the shape from [4, 1] to [4]; a cast only changes the element type}}
  %r = hl.cast %x : tensor<4x1xf32> -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
