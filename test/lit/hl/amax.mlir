// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.amax: aten.amax. Reduces `dims` (an i64 array, negative indices counted from the
// end); the optional unit property `keepdim` keeps reduced dimensions as size 1.

// Reduce the last dimension, keeping it as 1 (RMSNorm's mean of squares).
// CHECK-LABEL: func.func @keepdim(
// CHECK-NEXT:    %r = hl.amax %x {dims = array<i64: -1>, keepdim} : tensor<2x6x16xbf16> -> tensor<2x6x1xbf16>
// CHECK-NEXT:    func.return %r : tensor<2x6x1xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "keepdim"
// GENERIC:         %r = "hl.amax"(%x) <{dims = array<i64: -1>, keepdim}> : (tensor<2x6x16xbf16>) -> tensor<2x6x1xbf16>
func.func @keepdim(%x: tensor<2x6x16xbf16>) -> tensor<2x6x1xbf16> {
  %r = hl.amax %x {dims = array<i64: -1>, keepdim} : tensor<2x6x16xbf16> -> tensor<2x6x1xbf16>
  func.return %r : tensor<2x6x1xbf16>
}

// -----

// Without keepdim the reduced dimension disappears.
// CHECK-LABEL: func.func @drop_dim(
// CHECK-NEXT:    %r = hl.amax %x {dims = array<i64: 0>} : tensor<4x8xbf16> -> tensor<8xbf16>
// CHECK-NEXT:    func.return %r : tensor<8xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "drop_dim"
// GENERIC:         %r = "hl.amax"(%x) <{dims = array<i64: 0>}> : (tensor<4x8xbf16>) -> tensor<8xbf16>
func.func @drop_dim(%x: tensor<4x8xbf16>) -> tensor<8xbf16> {
  %r = hl.amax %x {dims = array<i64: 0>} : tensor<4x8xbf16> -> tensor<8xbf16>
  func.return %r : tensor<8xbf16>
}

// -----

// Several dimensions, in any order, with negative indices.
// CHECK-LABEL: func.func @several_dims(
// CHECK-NEXT:    %r = hl.amax %x {dims = array<i64: -1, 1>} : tensor<2x3x4x5xbf16> -> tensor<2x4xbf16>
// CHECK-NEXT:    func.return %r : tensor<2x4xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "several_dims"
// GENERIC:         %r = "hl.amax"(%x) <{dims = array<i64: -1, 1>}> : (tensor<2x3x4x5xbf16>) -> tensor<2x4xbf16>
func.func @several_dims(%x: tensor<2x3x4x5xbf16>) -> tensor<2x4xbf16> {
  %r = hl.amax %x {dims = array<i64: -1, 1>} : tensor<2x3x4x5xbf16> -> tensor<2x4xbf16>
  func.return %r : tensor<2x4xbf16>
}

// -----

// An empty dim list reduces over every dimension, as in ATen.
// CHECK-LABEL: func.func @all_dims(
// CHECK-NEXT:    %r = hl.amax %x {dims = array<i64>} : tensor<4x8xbf16> -> tensor<bf16>
// CHECK-NEXT:    func.return %r : tensor<bf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "all_dims"
// GENERIC:         %r = "hl.amax"(%x) <{dims = array<i64>}> : (tensor<4x8xbf16>) -> tensor<bf16>
func.func @all_dims(%x: tensor<4x8xbf16>) -> tensor<bf16> {
  %r = hl.amax %x {dims = array<i64>} : tensor<4x8xbf16> -> tensor<bf16>
  func.return %r : tensor<bf16>
}

// -----

// An empty dim list with keepdim keeps every dimension as 1.
// CHECK-LABEL: func.func @all_dims_keepdim(
// CHECK-NEXT:    %r = hl.amax %x {dims = array<i64>, keepdim} : tensor<4x8xbf16> -> tensor<1x1xbf16>
// CHECK-NEXT:    func.return %r : tensor<1x1xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "all_dims_keepdim"
// GENERIC:         %r = "hl.amax"(%x) <{dims = array<i64>, keepdim}> : (tensor<4x8xbf16>) -> tensor<1x1xbf16>
func.func @all_dims_keepdim(%x: tensor<4x8xbf16>) -> tensor<1x1xbf16> {
  %r = hl.amax %x {dims = array<i64>, keepdim} : tensor<4x8xbf16> -> tensor<1x1xbf16>
  func.return %r : tensor<1x1xbf16>
}

// -----

// hl.amin is the same reduction for the smallest element (aten.amin, min.dim's values).
// CHECK-LABEL: func.func @amin(
// CHECK-NEXT:    %r = hl.amin %x {dims = array<i64: 1>, keepdim} : tensor<4x8xbf16> -> tensor<4x1xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "amin"
// GENERIC:         %r = "hl.amin"(%x) <{dims = array<i64: 1>, keepdim}> : (tensor<4x8xbf16>) -> tensor<4x1xbf16>
func.func @amin(%x: tensor<4x8xbf16>) -> tensor<4x1xbf16> {
  %r = hl.amin %x {dims = array<i64: 1>, keepdim} : tensor<4x8xbf16> -> tensor<4x1xbf16>
  func.return %r : tensor<4x1xbf16>
}
