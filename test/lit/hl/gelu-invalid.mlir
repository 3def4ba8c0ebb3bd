// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.gelu verifier: `approximate` is present and one of none/tanh; the type is kept.

// The erf form is spelled "none", as in ATen.
func.func @unknown_approximation(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.gelu' approximate must be one of ['none', 'tanh'], got 'erf'}}
  %r = hl.gelu %x {approximate = "erf"} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// No default: a missing `approximate` is an error, so the form is always explicit.
func.func @missing_approximation(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{property 'approximate' expected in operation 'hl.gelu'}}
  %r = hl.gelu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// `approximate` is a string (generic form: the property constraint).
func.func @approximation_not_a_string(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{1 : i64 should be of base attribute string}}
  %r = "hl.gelu"(%x) <{approximate = 1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// The result has the input's type.
func.func @result_type(%x: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.gelu' result type tensor<4x8xf32> does not match the inferred type tensor<4x8xbf16>}}
  %r = hl.gelu %x {approximate = "tanh"} : tensor<4x8xbf16> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
