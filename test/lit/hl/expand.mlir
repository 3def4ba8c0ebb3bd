// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.expand: aten.expand. Size-1 and missing leading dimensions broadcast to the
// result shape; the element type is kept.

// A [1, D] row to [S, D].
// CHECK-LABEL: func.func @row(
// CHECK-NEXT:    %r = hl.expand %x : tensor<1x64xf32> -> tensor<6x64xf32>
// CHECK-NEXT:    func.return %r : tensor<6x64xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "row"
// GENERIC:         %r = "hl.expand"(%x) : (tensor<1x64xf32>) -> tensor<6x64xf32>
func.func @row(%x: tensor<1x64xf32>) -> tensor<6x64xf32> {
  %r = hl.expand %x : tensor<1x64xf32> -> tensor<6x64xf32>
  func.return %r : tensor<6x64xf32>
}

// -----

// New leading dimensions: a bias [D] to [B, S, D].
// CHECK-LABEL: func.func @leading(
// CHECK-NEXT:    %r = hl.expand %b : tensor<64xbf16> -> tensor<2x6x64xbf16>
// CHECK-NEXT:    func.return %r : tensor<2x6x64xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "leading"
// GENERIC:         %r = "hl.expand"(%b) : (tensor<64xbf16>) -> tensor<2x6x64xbf16>
func.func @leading(%b: tensor<64xbf16>) -> tensor<2x6x64xbf16> {
  %r = hl.expand %b : tensor<64xbf16> -> tensor<2x6x64xbf16>
  func.return %r : tensor<2x6x64xbf16>
}

// -----

// Key/value heads repeated for grouped-query attention: [B, Hkv, 1, S, D].
// CHECK-LABEL: func.func @kv_heads(
// CHECK-NEXT:    %r = hl.expand %k : tensor<2x2x1x10x16xf16> -> tensor<2x2x4x10x16xf16>
// CHECK-NEXT:    func.return %r : tensor<2x2x4x10x16xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "kv_heads"
// GENERIC:         %r = "hl.expand"(%k) : (tensor<2x2x1x10x16xf16>) -> tensor<2x2x4x10x16xf16>
func.func @kv_heads(%k: tensor<2x2x1x10x16xf16>) -> tensor<2x2x4x10x16xf16> {
  %r = hl.expand %k : tensor<2x2x1x10x16xf16> -> tensor<2x2x4x10x16xf16>
  func.return %r : tensor<2x2x4x10x16xf16>
}

// -----

// A 0-d scalar to a vector; expanding to the same shape is legal too.
// CHECK-LABEL: func.func @scalar(
// CHECK-NEXT:    %r = hl.expand %s : tensor<f32> -> tensor<4xf32>
// CHECK-NEXT:    %same = hl.expand %x : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %r : tensor<4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "scalar"
// GENERIC:         %r = "hl.expand"(%s) : (tensor<f32>) -> tensor<4xf32>
// GENERIC:         %same = "hl.expand"(%x) : (tensor<4xf32>) -> tensor<4xf32>
func.func @scalar(%s: tensor<f32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = hl.expand %s : tensor<f32> -> tensor<4xf32>
  %same = hl.expand %x : tensor<4xf32> -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
