// RUN: lumir-opt %s -p fuse-kernels | filecheck %s

// A chain of fusable ops nothing reads (dead code: lumir-pipeline's earlier passes
// remove it, fuse-kernels run alone does not) stays as it is. Before, it became an
// `hl.fused` without results, and lumir-opt stopped with "IR after pass 'fuse-kernels'
// does not verify" (found by lumir.testing.codegen_fuzz). The
// live chain next to it still fuses.

// CHECK-LABEL: func.func @dead_chain(
// CHECK-NEXT:    %d = hl.sigmoid %x : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %c = hl.cat %x, %d {dim = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:           hl.exp
// CHECK-NEXT:      %r_1 = hl.neg
// CHECK-NEXT:      hl.yield %r_1 : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>
func.func @dead_chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %d = hl.sigmoid %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = hl.cat %x, %d {dim = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %e = hl.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %r = hl.neg %e : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
