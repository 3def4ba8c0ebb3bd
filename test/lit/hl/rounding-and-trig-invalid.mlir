// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.floor, hl.ceil, hl.round, hl.trunc, hl.sign, hl.atan, hl.tan verifier: the result has
// exactly the input's type.

func.func @floor_shape(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'hl.floor' result type tensor<8x4xf32> does not match the inferred type tensor<4x8xf32>}}
  %r = hl.floor %x : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

func.func @round_element_type(%x: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.round' result type tensor<4x8xf32> does not match the inferred type tensor<4x8xbf16>}}
  %r = hl.round %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @sign_element_type(%x: tensor<4x8xf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'hl.sign' result type tensor<4x8xbf16> does not match the inferred type tensor<4x8xf16>}}
  %r = hl.sign %x : tensor<4x8xf16> -> tensor<4x8xbf16>
  func.return %r : tensor<4x8xbf16>
}

// -----

func.func @atan_shape(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'hl.atan' result type tensor<5xf32> does not match the inferred type tensor<4xf32>}}
  %r = hl.atan %x : tensor<4xf32> -> tensor<5xf32>
  func.return %r : tensor<5xf32>
}
