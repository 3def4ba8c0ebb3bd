// RUN: lumir-opt %s -p fuse-kernels | filecheck %s

// fuse-kernels: a LayerNorm as torch's decomposition imports it (the mean as a sum and a
// division, the variance in two passes: three row reductions) becomes one hl.fused
// kernel; the projection after it stays a matmul.

// CHECK-LABEL: func.func @layer_norm_linear(
// CHECK-NEXT:    %{{.*}} = hl.fused(%x, %g, %beta) : (tensor<4x16xbf16>, tensor<16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16> {
// CHECK:           hl.mean
// CHECK:           hl.sum
// CHECK:           hl.sum
// CHECK:           hl.rsqrt
// CHECK:           hl.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %o = hl.matmul
// CHECK-NEXT:    func.return %o : tensor<4x16xbf16>
func.func @layer_norm_linear(%x: tensor<4x16xbf16>, %g: tensor<16xbf16>, %beta: tensor<16xbf16>,
                             %w: tensor<16x16xbf16>) -> tensor<4x16xbf16> {
  %f = hl.cast %x : tensor<4x16xbf16> -> tensor<4x16xf32>
  %n = hl.constant {value = dense<1.600000e+01> : tensor<f32>} : tensor<f32>
  %m = hl.mean %f {dims = array<i64: 1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
  %d = hl.sub %f, %m : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %d2 = hl.mul %d, %d : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ss = hl.sum %d2 {dims = array<i64: 1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
  %var = hl.div %ss, %n : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = hl.sum %f {dims = array<i64: 1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
  %mean = hl.div %s, %n : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %eps = hl.constant {value = dense<1.000000e-05> : tensor<f32>} : tensor<f32>
  %ve = hl.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = hl.rsqrt %ve : tensor<4x1xf32> -> tensor<4x1xf32>
  %c = hl.sub %f, %mean : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = hl.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %gf = hl.cast %g : tensor<16xbf16> -> tensor<16xf32>
  %yg = hl.mul %y, %gf : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %bf = hl.cast %beta : tensor<16xbf16> -> tensor<16xf32>
  %yb = hl.add %yg, %bf : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %h = hl.cast %yb : tensor<4x16xf32> -> tensor<4x16xbf16>
  %o = hl.matmul %h, %w : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
  func.return %o : tensor<4x16xbf16>
}
