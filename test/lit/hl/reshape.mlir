// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.reshape: aten.view / reshape / _unsafe_view. Same elements in row-major order, a
// new static shape; the target shape is the result type.

// Flatten [B, S, D] to [B*S, D] before a 2-D matmul.
// CHECK-LABEL: func.func @flatten(
// CHECK-NEXT:    %r = hl.reshape %x : tensor<2x6x64xbf16> -> tensor<12x64xbf16>
// CHECK-NEXT:    func.return %r : tensor<12x64xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "flatten"
// GENERIC:         %r = "hl.reshape"(%x) : (tensor<2x6x64xbf16>) -> tensor<12x64xbf16>
func.func @flatten(%x: tensor<2x6x64xbf16>) -> tensor<12x64xbf16> {
  %r = hl.reshape %x : tensor<2x6x64xbf16> -> tensor<12x64xbf16>
  func.return %r : tensor<12x64xbf16>
}

// -----

// Split the hidden dimension into heads.
// CHECK-LABEL: func.func @split_heads(
// CHECK-NEXT:    %r = hl.reshape %x : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
// CHECK-NEXT:    func.return %r : tensor<2x6x4x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "split_heads"
// GENERIC:         %r = "hl.reshape"(%x) : (tensor<2x6x64xf32>) -> tensor<2x6x4x16xf32>
func.func @split_heads(%x: tensor<2x6x64xf32>) -> tensor<2x6x4x16xf32> {
  %r = hl.reshape %x : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  func.return %r : tensor<2x6x4x16xf32>
}

// -----

// To and from a 0-d tensor.
// CHECK-LABEL: func.func @scalar(
// CHECK-NEXT:    %s = hl.reshape %x : tensor<1x1xf32> -> tensor<f32>
// CHECK-NEXT:    %r = hl.reshape %s : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT:    func.return %r : tensor<1xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "scalar"
// GENERIC:         %s = "hl.reshape"(%x) : (tensor<1x1xf32>) -> tensor<f32>
// GENERIC:         %r = "hl.reshape"(%s) : (tensor<f32>) -> tensor<1xf32>
func.func @scalar(%x: tensor<1x1xf32>) -> tensor<1xf32> {
  %s = hl.reshape %x : tensor<1x1xf32> -> tensor<f32>
  %r = hl.reshape %s : tensor<f32> -> tensor<1xf32>
  func.return %r : tensor<1xf32>
}
