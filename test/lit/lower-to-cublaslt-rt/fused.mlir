// RUN: lumir-opt %s -p fuse-kernels,lower-to-cublaslt-rt | filecheck %s
// RUN: lumir-opt %s -p lumir-pipeline | filecheck %s
// RUN: lumir-opt %s -p "lumir-pipeline{fuse_kernels=false}" | filecheck %s --check-prefix=OFF

// An hl.fused kernel lowers to one alloc per result and a cublaslt_rt.fused_launch that
// keeps the body on tensors. lumir-pipeline fuses by default; with fuse_kernels=false
// every hl op is its own launch.

// CHECK-LABEL: func.func @norm(%x: memref<4x16xf32>, %w: memref<16xf32>) -> memref<4x16xf32> {
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<4x16xf32>
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%x, %w : memref<4x16xf32>, memref<16xf32>) outs(%y : memref<4x16xf32>) {
// CHECK-NEXT:    ^bb0(%x_1: tensor<4x16xf32>, %w_1: tensor<16xf32>):
// CHECK-NEXT:      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:      %p = hl.pow %x_1, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
// CHECK-NEXT:      %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %q = hl.rsqrt %m : tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %s = hl.mul %x_1, %q : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:      %y_1 = hl.mul %s, %w_1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:      hl.yield %y_1 : tensor<4x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y : memref<4x16xf32>

// OFF-LABEL: func.func @norm(
// OFF-NOT:     cublaslt_rt.fused_launch
// OFF-COUNT-5: cublaslt_rt.launch "hl.
// OFF-NOT:     cublaslt_rt.fused_launch
// OFF:         func.return
func.func @norm(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
  %p = hl.pow %x, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
  %q = hl.rsqrt %m : tensor<4x1xf32> -> tensor<4x1xf32>
  %s = hl.mul %x, %q : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = hl.mul %s, %w : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}
