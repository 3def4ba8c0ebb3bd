// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s

// A reshape keeps the element order, so a chain of them is one reshape to the last shape.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-NEXT:    %[[R:.*]] = hl.reshape %x : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x6xf32>
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %a = hl.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = hl.reshape %a : tensor<6x4xf32> -> tensor<24xf32>
  %c = hl.reshape %b : tensor<24xf32> -> tensor<4x6xf32>
  func.return %c : tensor<4x6xf32>
}

// -----

// A chain that returns to the input's shape is no reshape at all.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-NEXT:    func.return %x : tensor<2x3x4xf32>
func.func @reshape_round_trip(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %a = hl.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = hl.reshape %a : tensor<6x4xf32> -> tensor<2x3x4xf32>
  func.return %b : tensor<2x3x4xf32>
}

// -----

// A reshape to the input's own type does nothing.
// CHECK-LABEL: func.func @reshape_identity
// CHECK-NEXT:    func.return %x : tensor<4x8xbf16>
func.func @reshape_identity(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %r = hl.reshape %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  func.return %r : tensor<4x8xbf16>
}

// -----

// Refused: a reshape of a transpose is not a reshape of the input (the transpose
// changed the element order), so both stay.
// CHECK-LABEL: func.func @reshape_of_transpose
// CHECK-NEXT:    %[[T:.*]] = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<6x4xf32>
// CHECK-NEXT:    %[[R:.*]] = hl.reshape %[[T]] : tensor<6x4xf32> -> tensor<24xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<24xf32>
func.func @reshape_of_transpose(%x: tensor<4x6xf32>) -> tensor<24xf32> {
  %t = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<6x4xf32>
  %r = hl.reshape %t : tensor<6x4xf32> -> tensor<24xf32>
  func.return %r : tensor<24xf32>
}
