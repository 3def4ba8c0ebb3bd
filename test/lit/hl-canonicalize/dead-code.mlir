// RUN: lumir-opt %s -p hl-canonicalize | filecheck %s

// Dead pure ops are removed, including those a fold leaves behind; the function's
// arguments (used or not) and its results are untouched, and so is a function
// that no one calls.
// CHECK-LABEL: func.func @dead_ops(%x: tensor<4x8xf32>, %unused: tensor<3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT:    %[[R:.*]] = hl.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[R]], %x : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT:  }
func.func @dead_ops(%x: tensor<4x8xf32>, %unused: tensor<3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %dead = hl.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %dead_chain = hl.sigmoid %dead : tensor<4x8xf32> -> tensor<4x8xf32>
  %r = hl.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %tt = hl.transpose %t {permutation = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  func.return %r, %tt : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @never_called(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    func.return %x : tensor<4xf32>
func.func @never_called(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
