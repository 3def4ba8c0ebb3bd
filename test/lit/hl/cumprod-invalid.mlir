// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.cumprod verifiers: a dimension of the input, and the input's type as the result.

func.func @dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'hl.cumprod' dimension -3 is out of range for rank 2}}
  %p = hl.cumprod %x {dim = -3 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return %p : tensor<2x3xf32>
}

// -----

func.func @result(%x: tensor<2x3xf32>) -> tensor<2x3xbf16> {
  // expected-error @+1 {{'hl.cumprod' result type tensor<2x3xbf16> does not match the inferred type tensor<2x3xf32>}}
  %p = hl.cumprod %x {dim = 0 : i64} : tensor<2x3xf32> -> tensor<2x3xbf16>
  func.return %p : tensor<2x3xbf16>
}
