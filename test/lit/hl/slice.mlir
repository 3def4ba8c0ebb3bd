// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.slice: aten.slice.Tensor, input[..., start:end:step, ...] along `dim`. start and
// end follow Python's rules (negative counts from the end, out-of-range clamps); step > 0.

// The first half of the last dimension (rotary embeddings' x1).
// CHECK-LABEL: func.func @first_half(
// CHECK-NEXT:    %r = hl.slice %x {dim = 3 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<2x4x6x16xf32> -> tensor<2x4x6x8xf32>
// CHECK-NEXT:    func.return %r : tensor<2x4x6x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "first_half"
// GENERIC:         %r = "hl.slice"(%x) <{dim = 3 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64}> : (tensor<2x4x6x16xf32>) -> tensor<2x4x6x8xf32>
func.func @first_half(%x: tensor<2x4x6x16xf32>) -> tensor<2x4x6x8xf32> {
  %r = hl.slice %x {dim = 3 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<2x4x6x16xf32> -> tensor<2x4x6x8xf32>
  func.return %r : tensor<2x4x6x8xf32>
}

// -----

// Every other row.
// CHECK-LABEL: func.func @strided(
// CHECK-NEXT:    %r = hl.slice %x {dim = 0 : i64, start = 0 : i64, end = 7 : i64, step = 2 : i64} : tensor<7x8xbf16> -> tensor<4x8xbf16>
// CHECK-NEXT:    func.return %r : tensor<4x8xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "strided"
// GENERIC:         %r = "hl.slice"(%x) <{dim = 0 : i64, start = 0 : i64, end = 7 : i64, step = 2 : i64}> : (tensor<7x8xbf16>) -> tensor<4x8xbf16>
func.func @strided(%x: tensor<7x8xbf16>) -> tensor<4x8xbf16> {
  %r = hl.slice %x {dim = 0 : i64, start = 0 : i64, end = 7 : i64, step = 2 : i64} : tensor<7x8xbf16> -> tensor<4x8xbf16>
  func.return %r : tensor<4x8xbf16>
}

// -----

// x[:, -3:]: a negative start and ATen's INT64_MAX end for an open slice.
// CHECK-LABEL: func.func @negative_start(
// CHECK-NEXT:    %r = hl.slice %x {dim = -1 : i64, start = -3 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %r : tensor<4x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "negative_start"
// GENERIC:         %r = "hl.slice"(%x) <{dim = -1 : i64, start = -3 : i64, end = 9223372036854775807 : i64, step = 1 : i64}> : (tensor<4x8xf32>) -> tensor<4x3xf32>
func.func @negative_start(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %r = hl.slice %x {dim = -1 : i64, start = -3 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

// start >= end gives an empty dimension.
// CHECK-LABEL: func.func @empty(
// CHECK-NEXT:    %r = hl.slice %x {dim = 0 : i64, start = 3 : i64, end = 1 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<0x8xf32>
// CHECK-NEXT:    func.return %r : tensor<0x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "empty"
// GENERIC:         %r = "hl.slice"(%x) <{dim = 0 : i64, start = 3 : i64, end = 1 : i64, step = 1 : i64}> : (tensor<4x8xf32>) -> tensor<0x8xf32>
func.func @empty(%x: tensor<4x8xf32>) -> tensor<0x8xf32> {
  %r = hl.slice %x {dim = 0 : i64, start = 3 : i64, end = 1 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<0x8xf32>
  func.return %r : tensor<0x8xf32>
}
