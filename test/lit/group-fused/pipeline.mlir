// RUN: lumir-opt %s -p 'lumir-pipeline{group_fused=true}' | filecheck %s
// RUN: lumir-opt %s -p lumir-pipeline | filecheck %s --check-prefix=OFF

// Two chains over rows of different widths, neither reading the other: fuse-kernels
// makes a kernel of each, and with `group_fused=true` lumir-pipeline's group-fused stage
// runs them as one launch; by default (off) they stay two.
// CHECK-LABEL: func.func @two_chains(
// CHECK:         cublaslt_rt.fused_group {
// CHECK-COUNT-2:   cublaslt_rt.fused_launch
// CHECK:         func.return
// OFF-LABEL:   func.func @two_chains(
// OFF-NOT:       cublaslt_rt.fused_group
// OFF-COUNT-2:   cublaslt_rt.fused_launch
// OFF:           func.return
func.func @two_chains(%x: tensor<4x8xf32>, %y: tensor<3x16xbf16>) -> (tensor<4x8xf32>, tensor<3x16xbf16>) {
  %e = hl.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %a = hl.tanh %e : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = hl.sigmoid %y : tensor<3x16xbf16> -> tensor<3x16xbf16>
  %b = hl.mul %s, %y : (tensor<3x16xbf16>, tensor<3x16xbf16>) -> tensor<3x16xbf16>
  func.return %a, %b : tensor<4x8xf32>, tensor<3x16xbf16>
}
