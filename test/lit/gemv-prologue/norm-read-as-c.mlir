// RUN: lumir-opt %s -p 'lumir-pipeline' | filecheck %s
// linear(h) + h: cublaslt-fuse folds the add into the projection's C = h, so a member of
// the q/k group reads the norm's output as C. The group's kernel never writes h, so the
// norm must stay outside the group (it once moved in, and the CUDA kernel read C from
// unwritten bytes: NaN in that member's D under the interpreter).
// CHECK-LABEL: func.func @resid(
// CHECK:         cublaslt_rt.fused_launch ins(%x, %g
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 {{.*}} b(%h : memref<1x256xbf16>) c(%h : memref<1x256xbf16>)
func.func @resid(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %w1: tensor<256x256xbf16>, %w2: tensor<256x256xbf16>) -> (tensor<1x256xbf16>, tensor<1x256xbf16>) {
  %xf = hl.cast %x : tensor<1x256xbf16> -> tensor<1x256xf32>
  %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
  %p = hl.pow %xf, %two : (tensor<1x256xf32>, tensor<f32>) -> tensor<1x256xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x256xf32> -> tensor<1x1xf32>
  %eps = hl.constant {value = dense<1.0e-05> : tensor<f32>} : tensor<f32>
  %me = hl.add %m, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %q = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
  %s = hl.mul %xf, %q : (tensor<1x256xf32>, tensor<1x1xf32>) -> tensor<1x256xf32>
  %sb = hl.cast %s : tensor<1x256xf32> -> tensor<1x256xbf16>
  %h = hl.mul %g, %sb : (tensor<256xbf16>, tensor<1x256xbf16>) -> tensor<1x256xbf16>
  %y1 = hl.linear %h, %w1 : tensor<1x256xbf16>, tensor<256x256xbf16> -> tensor<1x256xbf16>
  %r1 = hl.add %y1, %h : (tensor<1x256xbf16>, tensor<1x256xbf16>) -> tensor<1x256xbf16>
  %y2 = hl.linear %h, %w2 : tensor<1x256xbf16>, tensor<256x256xbf16> -> tensor<1x256xbf16>
  func.return %r1, %y2 : tensor<1x256xbf16>, tensor<1x256xbf16>
}
