// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.constant verifier: the literal's type is the result type.

// A [4] literal is not a [4, 4] tensor: splat the fill at the result shape instead.
func.func @shape_differs() -> tensor<4x4xf32> {
  // expected-error @+1 {{'hl.constant' value type tensor<4xf32> differs from result type tensor<4x4xf32>}}
  %c = hl.constant {value = dense<1.000000e+00> : tensor<4xf32>} : tensor<4x4xf32>
  func.return %c : tensor<4x4xf32>
}

// -----

// An f32 literal is not a bf16 constant.
func.func @element_type_differs() -> tensor<bf16> {
  // expected-error @+1 {{'hl.constant' value type tensor<f32> differs from result type tensor<bf16>}}
  %c = hl.constant {value = dense<1.000000e+00> : tensor<f32>} : tensor<bf16>
  func.return %c : tensor<bf16>
}

// -----

// `value` is required.
func.func @missing_value() -> tensor<f32> {
  // expected-error @+1 {{property 'value' expected in operation 'hl.constant'}}
  %c = hl.constant : tensor<f32>
  func.return %c : tensor<f32>
}

// -----

// `value` is a dense elements attribute (generic form: the property constraint).
func.func @value_not_dense() -> tensor<f32> {
  // expected-error @+1 {{1.000000e+00 : f32 should be of base attribute dense}}
  %c = "hl.constant"() <{value = 1.000000e+00 : f32}> : () -> tensor<f32>
  func.return %c : tensor<f32>
}
