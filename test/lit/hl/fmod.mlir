// RUN: lumir-opt %s | lumir-opt | filecheck %s
// RUN: lumir-opt %s --print-op-generic | lumir-opt | filecheck %s

// hl.fmod: ATen's fmod on floating-point tensors, the remainder of a division rounded
// toward zero, computed exactly (it has the dividend's sign), with ATen's broadcasting;
// the result has the operands' element type.

// CHECK-LABEL: func.func @fmod(
// CHECK-NEXT:    %r = hl.fmod %x, %y : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %r : tensor<4x6xf32>
func.func @fmod(%x: tensor<4x6xf32>, %y: tensor<6xf32>) -> tensor<4x6xf32> {
  %r = hl.fmod %x, %y : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @bf16_by_a_scalar(
// CHECK-NEXT:    %r = hl.fmod %x, %y : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
func.func @bf16_by_a_scalar(%x: tensor<8xbf16>, %y: tensor<bf16>) -> tensor<8xbf16> {
  %r = hl.fmod %x, %y : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
  func.return %r : tensor<8xbf16>
}
