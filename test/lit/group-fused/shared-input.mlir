// RUN: lumir-opt %s -p group-fused,share-buffers | filecheck %s

// The tanh and the row sum both read %x and nothing else reads it after them, so they
// are one group, and %x dies there. Alone, the elementwise tanh could write over %x in
// place; in the group the sum reads %x at the same time, so the buffer plan gives the
// tanh bytes of its own.
// CHECK-LABEL: func.func @shared_input(
// CHECK:         %x = cublaslt_rt.view %arena {byte_offset = [[X:[0-9]+]] : i64}
// CHECK:         cublaslt_rt.fused_group {
// CHECK-NOT:     byte_offset = [[X]] :
// CHECK:         func.return
func.func @shared_input(%in: memref<4x8xf32>, %w: memref<4x8xf32>) -> memref<4x8xf32> {
  %x = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%in : memref<4x8xf32>) outs(%x : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %e = hl.exp %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %e : tensor<4x8xf32>
  }
  %a = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %t = hl.tanh %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %t : tensor<4x8xf32>
  }
  %s = cublaslt_rt.alloc : memref<4x1xf32>
  cublaslt_rt.fused_launch ins(%x : memref<4x8xf32>) outs(%s : memref<4x1xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %r = hl.sum %v {dims = array<i64: 1>, keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>
    hl.yield %r : tensor<4x1xf32>
  }
  %y = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%a, %s, %w : memref<4x8xf32>, memref<4x1xf32>, memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%u: tensor<4x8xf32>, %t: tensor<4x1xf32>, %ww: tensor<4x8xf32>):
    %m = hl.mul %u, %t : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %n = hl.add %m, %ww : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    hl.yield %n : tensor<4x8xf32>
  }
  func.return %y : memref<4x8xf32>
}
