// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.log1p, hl.expm1, hl.erf verifier: the result has exactly the input's type.

func.func @log1p_shape(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'hl.log1p' result type tensor<8x4xf32> does not match the inferred type tensor<4x8xf32>}}
  %r = hl.log1p %x : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}

// -----

func.func @expm1_element_type(%x: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.expm1' result type tensor<4x8xf32> does not match the inferred type tensor<4x8xbf16>}}
  %r = hl.expm1 %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @erf_element_type(%x: tensor<4x8xf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'hl.erf' result type tensor<4x8xbf16> does not match the inferred type tensor<4x8xf16>}}
  %r = hl.erf %x : tensor<4x8xf16> -> tensor<4x8xbf16>
  func.return %r : tensor<4x8xbf16>
}
