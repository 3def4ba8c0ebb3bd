// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.log: aten.log, elementwise; the result has the input's type. Custom form:
// `hl.log %x : type -> type`.

// A 2-D f32 tensor.
// CHECK-LABEL: func.func @matrix(
// CHECK-NEXT:    %r = hl.log %x : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "matrix"
// GENERIC:         %r = "hl.log"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @matrix(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hl.log %x : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// A 3-D bf16 activation, chained with itself.
// CHECK-LABEL: func.func @chained(
// CHECK-NEXT:    %r0 = hl.log %x : tensor<2x6x16xbf16> -> tensor<2x6x16xbf16>
// CHECK-NEXT:    %r1 = hl.log %r0 : tensor<2x6x16xbf16> -> tensor<2x6x16xbf16>
// CHECK-NEXT:    func.return %r1 : tensor<2x6x16xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "chained"
// GENERIC:         %r0 = "hl.log"(%x) : (tensor<2x6x16xbf16>) -> tensor<2x6x16xbf16>
// GENERIC:         %r1 = "hl.log"(%r0) : (tensor<2x6x16xbf16>) -> tensor<2x6x16xbf16>
func.func @chained(%x: tensor<2x6x16xbf16>) -> tensor<2x6x16xbf16> {
  %r0 = hl.log %x : tensor<2x6x16xbf16> -> tensor<2x6x16xbf16>
  %r1 = hl.log %r0 : tensor<2x6x16xbf16> -> tensor<2x6x16xbf16>
  func.return %r1 : tensor<2x6x16xbf16>
}

// -----

// A 0-d scalar.
// CHECK-LABEL: func.func @scalar(
// CHECK-NEXT:    %r = hl.log %x : tensor<f16> -> tensor<f16>
// CHECK-NEXT:    func.return %r : tensor<f16>
// GENERIC-LABEL: "func.func"() <{sym_name = "scalar"
// GENERIC:         %r = "hl.log"(%x) : (tensor<f16>) -> tensor<f16>
func.func @scalar(%x: tensor<f16>) -> tensor<f16> {
  %r = hl.log %x : tensor<f16> -> tensor<f16>
  func.return %r : tensor<f16>
}
