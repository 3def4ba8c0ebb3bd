// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.mean: aten.mean.dim. Reduces `dims` (an i64 array, negative indices counted from the
// end); the optional unit property `keepdim` keeps reduced dimensions as size 1.

// Reduce the last dimension, keeping it as 1 (RMSNorm's mean of squares).
// CHECK-LABEL: func.func @keepdim(
// CHECK-NEXT:    %r = hl.mean %x {dims = array<i64: -1>, keepdim} : tensor<2x6x16xf32> -> tensor<2x6x1xf32>
// CHECK-NEXT:    func.return %r : tensor<2x6x1xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "keepdim"
// GENERIC:         %r = "hl.mean"(%x) <{dims = array<i64: -1>, keepdim}> : (tensor<2x6x16xf32>) -> tensor<2x6x1xf32>
func.func @keepdim(%x: tensor<2x6x16xf32>) -> tensor<2x6x1xf32> {
  %r = hl.mean %x {dims = array<i64: -1>, keepdim} : tensor<2x6x16xf32> -> tensor<2x6x1xf32>
  func.return %r : tensor<2x6x1xf32>
}

// -----

// Without keepdim the reduced dimension disappears.
// CHECK-LABEL: func.func @drop_dim(
// CHECK-NEXT:    %r = hl.mean %x {dims = array<i64: 0>} : tensor<4x8xf32> -> tensor<8xf32>
// CHECK-NEXT:    func.return %r : tensor<8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "drop_dim"
// GENERIC:         %r = "hl.mean"(%x) <{dims = array<i64: 0>}> : (tensor<4x8xf32>) -> tensor<8xf32>
func.func @drop_dim(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %r = hl.mean %x {dims = array<i64: 0>} : tensor<4x8xf32> -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----

// Several dimensions, in any order, with negative indices.
// CHECK-LABEL: func.func @several_dims(
// CHECK-NEXT:    %r = hl.mean %x {dims = array<i64: -1, 1>} : tensor<2x3x4x5xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %r : tensor<2x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "several_dims"
// GENERIC:         %r = "hl.mean"(%x) <{dims = array<i64: -1, 1>}> : (tensor<2x3x4x5xf32>) -> tensor<2x4xf32>
func.func @several_dims(%x: tensor<2x3x4x5xf32>) -> tensor<2x4xf32> {
  %r = hl.mean %x {dims = array<i64: -1, 1>} : tensor<2x3x4x5xf32> -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

// An empty dim list reduces over every dimension, as in ATen.
// CHECK-LABEL: func.func @all_dims(
// CHECK-NEXT:    %r = hl.mean %x {dims = array<i64>} : tensor<4x8xf32> -> tensor<f32>
// CHECK-NEXT:    func.return %r : tensor<f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "all_dims"
// GENERIC:         %r = "hl.mean"(%x) <{dims = array<i64>}> : (tensor<4x8xf32>) -> tensor<f32>
func.func @all_dims(%x: tensor<4x8xf32>) -> tensor<f32> {
  %r = hl.mean %x {dims = array<i64>} : tensor<4x8xf32> -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// An empty dim list with keepdim keeps every dimension as 1.
// CHECK-LABEL: func.func @all_dims_keepdim(
// CHECK-NEXT:    %r = hl.mean %x {dims = array<i64>, keepdim} : tensor<4x8xf32> -> tensor<1x1xf32>
// CHECK-NEXT:    func.return %r : tensor<1x1xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "all_dims_keepdim"
// GENERIC:         %r = "hl.mean"(%x) <{dims = array<i64>, keepdim}> : (tensor<4x8xf32>) -> tensor<1x1xf32>
func.func @all_dims_keepdim(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %r = hl.mean %x {dims = array<i64>, keepdim} : tensor<4x8xf32> -> tensor<1x1xf32>
  func.return %r : tensor<1x1xf32>
}
