// RUN: lumir-opt %s | lumir-opt | filecheck %s
// RUN: lumir-opt %s --print-op-generic | lumir-opt | filecheck %s

// hl.floor_divide, hl.remainder: ATen's floor_divide and remainder on integer or
// floating-point tensors, rounding the quotient toward negative infinity (the remainder
// has the divisor's sign), with ATen's broadcasting; the result has the operands' element
// type.

// CHECK-LABEL: func.func @buckets(
// CHECK-NEXT:    %q = hl.floor_divide %x, %y : (tensor<4x6xi64>, tensor<6xi64>) -> tensor<4x6xi64>
// CHECK-NEXT:    %r = hl.remainder %q, %y : (tensor<4x6xi64>, tensor<6xi64>) -> tensor<4x6xi64>
// CHECK-NEXT:    func.return %r : tensor<4x6xi64>
func.func @buckets(%x: tensor<4x6xi64>, %y: tensor<6xi64>) -> tensor<4x6xi64> {
  %q = hl.floor_divide %x, %y : (tensor<4x6xi64>, tensor<6xi64>) -> tensor<4x6xi64>
  %r = hl.remainder %q, %y : (tensor<4x6xi64>, tensor<6xi64>) -> tensor<4x6xi64>
  func.return %r : tensor<4x6xi64>
}

// CHECK-LABEL: func.func @i32(
// CHECK-NEXT:    %r = hl.remainder %x, %y : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
func.func @i32(%x: tensor<8xi32>, %y: tensor<i32>) -> tensor<8xi32> {
  %r = hl.remainder %x, %y : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
  func.return %r : tensor<8xi32>
}

// CHECK-LABEL: func.func @floats(
// CHECK-NEXT:    %q = hl.floor_divide %x, %y : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK-NEXT:    %r = hl.remainder %x, %z : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
func.func @floats(%x: tensor<4x6xf32>, %y: tensor<f32>, %z: tensor<6xf32>) -> tensor<4x6xf32> {
  %q = hl.floor_divide %x, %y : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  %r = hl.remainder %x, %z : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}
