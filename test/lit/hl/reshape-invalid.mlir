// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.reshape verifier: element counts agree, the element type is kept, shapes are static.

// 48 elements cannot become 50.
func.func @count_differs(%x: tensor<6x8xf32>) -> tensor<5x10xf32> {
  // expected-error @+1 {{'hl.reshape' cannot reshape [6, 8] to [5, 10]: element counts differ}}
  %r = hl.reshape %x : tensor<6x8xf32> -> tensor<5x10xf32>
  func.return %r : tensor<5x10xf32>
}

// -----

// A reshape is not a cast.
func.func @element_type_changes(%x: tensor<6x8xbf16>) -> tensor<48xf32> {
  // expected-error @+1 {{'hl.reshape' result type tensor<48xf32> does not match the inferred type tensor<48xbf16>}}
  %r = hl.reshape %x : tensor<6x8xbf16> -> tensor<48xf32>
  func.return %r : tensor<48xf32>
}

// -----

// A dynamic target is not a shape hl can check.
func.func @dynamic_target(%x: tensor<6x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{hl ops need static shapes, got tensor<?x8xf32>}}
  %r = hl.reshape %x : tensor<6x8xf32> -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}
