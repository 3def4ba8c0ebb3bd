// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s

// bf16 -> f32 is exact, so rounding back to bf16 returns x itself.
// CHECK-LABEL: func.func @cast_round_trip_exact
// CHECK-NEXT:    func.return %x : tensor<4x8xbf16>
func.func @cast_round_trip_exact(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %a = hl.cast %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  %b = hl.cast %a : tensor<4x8xf32> -> tensor<4x8xbf16>
  func.return %b : tensor<4x8xbf16>
}

// -----

// Refused: f32 -> bf16 rounds, so the round trip is not x. Both casts stay.
// CHECK-LABEL: func.func @cast_round_trip_lossy
// CHECK-NEXT:    %[[A:.*]] = hl.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK-NEXT:    %[[B:.*]] = hl.cast %[[A]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<4x8xf32>
func.func @cast_round_trip_lossy(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = hl.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  %b = hl.cast %a : tensor<4x8xbf16> -> tensor<4x8xf32>
  func.return %b : tensor<4x8xf32>
}

// -----

// A widening chain is one widening cast.
// CHECK-LABEL: func.func @cast_widening_chain
// CHECK-NEXT:    %[[C:.*]] = hl.cast %x : tensor<4xf16> -> tensor<4xf64>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xf64>
func.func @cast_widening_chain(%x: tensor<4xf16>) -> tensor<4xf64> {
  %a = hl.cast %x : tensor<4xf16> -> tensor<4xf32>
  %b = hl.cast %a : tensor<4xf32> -> tensor<4xf64>
  func.return %b : tensor<4xf64>
}

// -----

// bf16 -> f32 is exact, so bf16 -> f32 -> f16 rounds once, as bf16 -> f16 does.
// CHECK-LABEL: func.func @cast_exact_then_round
// CHECK-NEXT:    %[[C:.*]] = hl.cast %x : tensor<4xbf16> -> tensor<4xf16>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xf16>
func.func @cast_exact_then_round(%x: tensor<4xbf16>) -> tensor<4xf16> {
  %a = hl.cast %x : tensor<4xbf16> -> tensor<4xf32>
  %b = hl.cast %a : tensor<4xf32> -> tensor<4xf16>
  func.return %b : tensor<4xf16>
}

// -----

// Refused: f64 -> f32 -> f16 rounds twice, which can differ from rounding once.
// CHECK-LABEL: func.func @cast_double_rounding
// CHECK-NEXT:    %[[A:.*]] = hl.cast %x : tensor<4xf64> -> tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = hl.cast %[[A]] : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT:    func.return %[[B]] : tensor<4xf16>
func.func @cast_double_rounding(%x: tensor<4xf64>) -> tensor<4xf16> {
  %a = hl.cast %x : tensor<4xf64> -> tensor<4xf32>
  %b = hl.cast %a : tensor<4xf32> -> tensor<4xf16>
  func.return %b : tensor<4xf16>
}

// -----

// Refused: f16 and bf16 hold neither one the other (f16 has more significand bits,
// bf16 more exponent range), so f16 -> bf16 -> f32 keeps its rounding step.
// CHECK-LABEL: func.func @cast_f16_through_bf16
// CHECK-NEXT:    %[[A:.*]] = hl.cast %x : tensor<4xf16> -> tensor<4xbf16>
// CHECK-NEXT:    %[[B:.*]] = hl.cast %[[A]] : tensor<4xbf16> -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<4xf32>
func.func @cast_f16_through_bf16(%x: tensor<4xf16>) -> tensor<4xf32> {
  %a = hl.cast %x : tensor<4xf16> -> tensor<4xbf16>
  %b = hl.cast %a : tensor<4xbf16> -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

// Refused: signless integers do not say whether i8 -> i32 sign- or zero-extends.
// CHECK-LABEL: func.func @cast_integer_chain
// CHECK-NEXT:    %[[A:.*]] = hl.cast %x : tensor<4xi8> -> tensor<4xi32>
// CHECK-NEXT:    %[[B:.*]] = hl.cast %[[A]] : tensor<4xi32> -> tensor<4xi8>
// CHECK-NEXT:    func.return %[[B]] : tensor<4xi8>
func.func @cast_integer_chain(%x: tensor<4xi8>) -> tensor<4xi8> {
  %a = hl.cast %x : tensor<4xi8> -> tensor<4xi32>
  %b = hl.cast %a : tensor<4xi32> -> tensor<4xi8>
  func.return %b : tensor<4xi8>
}

// -----

// A cast to the input's own type is a copy; the inner cast of an exact chain stays when
// it has another use.
// CHECK-LABEL: func.func @cast_identity_and_shared
// CHECK-NEXT:    %[[W:.*]] = hl.cast %x : tensor<4xbf16> -> tensor<4xf32>
// CHECK-NEXT:    func.return %x, %[[W]] : tensor<4xbf16>, tensor<4xf32>
func.func @cast_identity_and_shared(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xf32>) {
  %same = hl.cast %x : tensor<4xbf16> -> tensor<4xbf16>
  %w = hl.cast %same : tensor<4xbf16> -> tensor<4xf32>
  %back = hl.cast %w : tensor<4xf32> -> tensor<4xbf16>
  func.return %back, %w : tensor<4xbf16>, tensor<4xf32>
}
