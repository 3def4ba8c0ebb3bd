// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s

// The ops a Llama's rotary embedding and mask construction import to: hl.cos, hl.sin,
// hl.bitwise_and, hl.arange, hl.cumsum, hl.index (integer index tensors for leading
// dimensions) and hl.pad (aten.constant_pad_nd).

// CHECK-LABEL: func.func @rotary(
// CHECK-NEXT:    %c = hl.cos %x : tensor<1x6x16xf32> -> tensor<1x6x16xf32>
// CHECK-NEXT:    %s = hl.sin %x : tensor<1x6x16xf32> -> tensor<1x6x16xf32>
// CHECK-NEXT:    %r = hl.add %c, %s : (tensor<1x6x16xf32>, tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
func.func @rotary(%x: tensor<1x6x16xf32>) -> tensor<1x6x16xf32> {
  %c = hl.cos %x : tensor<1x6x16xf32> -> tensor<1x6x16xf32>
  %s = hl.sin %x : tensor<1x6x16xf32> -> tensor<1x6x16xf32>
  %r = hl.add %c, %s : (tensor<1x6x16xf32>, tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
  func.return %r : tensor<1x6x16xf32>
}

// -----

// Positions: a range, its running sum, and a mask's logical and (broadcast).
// CHECK-LABEL: func.func @positions(
// CHECK-NEXT:    %a = hl.arange {start = 2 : i64, end = 9 : i64, step = 3 : i64} : tensor<3xi64>
// CHECK-NEXT:    %s = hl.cumsum %a {dim = -1 : i64} : tensor<3xi64> -> tensor<3xi64>
// CHECK-NEXT:    %b = hl.bitwise_and %m, %n : (tensor<6x6xi1>, tensor<1x6xi1>) -> tensor<6x6xi1>
func.func @positions(%m: tensor<6x6xi1>, %n: tensor<1x6xi1>) -> (tensor<3xi64>, tensor<6x6xi1>) {
  %a = hl.arange {start = 2 : i64, end = 9 : i64, step = 3 : i64} : tensor<3xi64>
  %s = hl.cumsum %a {dim = -1 : i64} : tensor<3xi64> -> tensor<3xi64>
  %b = hl.bitwise_and %m, %n : (tensor<6x6xi1>, tensor<1x6xi1>) -> tensor<6x6xi1>
  func.return %s, %b : tensor<3xi64>, tensor<6x6xi1>
}

// -----

// Gather by broadcast index tensors, then pad the last dimension (negative crops).
// CHECK-LABEL: func.func @gather_pad(
// CHECK-NEXT:    %g = hl.index %x[%i, %j] : (tensor<4x5x8xf32>, tensor<3x1xi64>, tensor<1x2xi32>) -> tensor<3x2x8xf32>
// CHECK-NEXT:    %p = hl.pad %g {pad = array<i64: 1, -2>, value = -1.000000e+00 : f64} : tensor<3x2x8xf32> -> tensor<3x2x7xf32>
func.func @gather_pad(%x: tensor<4x5x8xf32>, %i: tensor<3x1xi64>, %j: tensor<1x2xi32>) -> tensor<3x2x7xf32> {
  %g = hl.index %x[%i, %j] : (tensor<4x5x8xf32>, tensor<3x1xi64>, tensor<1x2xi32>) -> tensor<3x2x8xf32>
  %p = hl.pad %g {pad = array<i64: 1, -2>, value = -1.0 : f64} : tensor<3x2x8xf32> -> tensor<3x2x7xf32>
  func.return %p : tensor<3x2x7xf32>
}
