// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.floor_divide and hl.remainder verifiers: integer or floating-point operands (no
// i1), and the broadcast result type.

func.func @bool_dividend(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'hl.floor_divide' needs integer or floating-point operands, got tensor<4xi1>}}
  %r = hl.floor_divide %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

func.func @bool_operands(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'hl.remainder' needs integer or floating-point operands, got tensor<4xi1>}}
  %r = hl.remainder %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

func.func @shape(%x: tensor<4x6xi64>, %y: tensor<6xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'hl.remainder' result type tensor<4xi64> does not match the inferred type tensor<4x6xi64>}}
  %r = hl.remainder %x, %y : (tensor<4x6xi64>, tensor<6xi64>) -> tensor<4xi64>
  func.return %r : tensor<4xi64>
}
