// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s

// hl.argmax / hl.argmin: aten.argmax / argmin. The i64 position of the first extreme
// element along the one dimension in `dims`, or in the flattened input when `dims` is
// empty (aten's dim=None); `keepdim` keeps reduced dimensions as size 1.

// A sequence-classification head's last real token: argmax of an int32 row.
// CHECK-LABEL: func.func @last_token(
// CHECK-NEXT:    %r = hl.argmax %x {dims = array<i64: -1>} : tensor<2x6xi32> -> tensor<2xi64>
// CHECK-NEXT:    func.return %r : tensor<2xi64>
func.func @last_token(%x: tensor<2x6xi32>) -> tensor<2xi64> {
  %r = hl.argmax %x {dims = array<i64: -1>} : tensor<2x6xi32> -> tensor<2xi64>
  func.return %r : tensor<2xi64>
}

// -----

// Along the first dimension, keeping it as 1.
// CHECK-LABEL: func.func @argmin_keepdim(
// CHECK-NEXT:    %r = hl.argmin %x {dims = array<i64: 0>, keepdim} : tensor<4x8xbf16> -> tensor<1x8xi64>
func.func @argmin_keepdim(%x: tensor<4x8xbf16>) -> tensor<1x8xi64> {
  %r = hl.argmin %x {dims = array<i64: 0>, keepdim} : tensor<4x8xbf16> -> tensor<1x8xi64>
  func.return %r : tensor<1x8xi64>
}

// -----

// No dimension: a position in the flattened input, a 0-d result.
// CHECK-LABEL: func.func @flattened(
// CHECK-NEXT:    %r = hl.argmax %x {dims = array<i64>} : tensor<4x8xf32> -> tensor<i64>
func.func @flattened(%x: tensor<4x8xf32>) -> tensor<i64> {
  %r = hl.argmax %x {dims = array<i64>} : tensor<4x8xf32> -> tensor<i64>
  func.return %r : tensor<i64>
}
