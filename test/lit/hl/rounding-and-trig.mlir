// RUN: lumir-opt %s | lumir-opt | filecheck %s
// RUN: lumir-opt %s --print-op-generic | lumir-opt | filecheck %s

// hl.floor, hl.ceil, hl.round, hl.trunc, hl.sign, hl.atan, hl.tan: the ATen ops of the
// same names on floating tensors, elementwise, the result of the input's type.

// CHECK-LABEL: func.func @rounding(
// CHECK-NEXT:    %f = hl.floor %x : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    %c = hl.ceil %f : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    %r = hl.round %c : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    %t = hl.trunc %r : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    %s = hl.sign %t : tensor<2x8xbf16> -> tensor<2x8xbf16>
// CHECK-NEXT:    func.return %s : tensor<2x8xbf16>
func.func @rounding(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %f = hl.floor %x : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %c = hl.ceil %f : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %r = hl.round %c : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %t = hl.trunc %r : tensor<2x8xbf16> -> tensor<2x8xbf16>
  %s = hl.sign %t : tensor<2x8xbf16> -> tensor<2x8xbf16>
  func.return %s : tensor<2x8xbf16>
}

// CHECK-LABEL: func.func @trig(
// CHECK-NEXT:    %a = hl.atan %x : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %t = hl.tan %a : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %t : tensor<4xf32>
func.func @trig(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = hl.atan %x : tensor<4xf32> -> tensor<4xf32>
  %t = hl.tan %a : tensor<4xf32> -> tensor<4xf32>
  func.return %t : tensor<4xf32>
}
