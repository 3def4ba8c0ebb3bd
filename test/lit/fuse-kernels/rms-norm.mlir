// RUN: lumir-opt %s -p fuse-kernels --split-input-file | filecheck %s
// RUN: lumir-opt %s -p "fuse-kernels{enabled=false}" --split-input-file | filecheck %s --check-prefix=OFF

// fuse-kernels: the RMSNorm chain between two GEMMs becomes one hl.fused kernel.

// CHECK-LABEL: func.func @rms_norm_linear(
// CHECK-NEXT:    %r = hl.fused(%x, %w) : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16> {
// CHECK-NEXT:    ^bb0(%x_1: tensor<4x16xbf16>, %w_1: tensor<16xbf16>):
// CHECK-NEXT:      %f = hl.cast %x_1 : tensor<4x16xbf16> -> tensor<4x16xf32>
// CHECK-NEXT:      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:      %p = hl.pow %f, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
// CHECK-NEXT:      %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %eps = hl.constant {value = dense<1.000000e-06> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:      %me = hl.add %m, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
// CHECK-NEXT:      %q = hl.rsqrt %me : tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %s = hl.mul %f, %q : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:      %b = hl.cast %s : tensor<4x16xf32> -> tensor<4x16xbf16>
// CHECK-NEXT:      %r_1 = hl.mul %w_1, %b : (tensor<16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
// CHECK-NEXT:      hl.yield %r_1 : tensor<4x16xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = hl.matmul %r, %k : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
// CHECK-NEXT:    func.return %y : tensor<4x16xbf16>
// OFF-LABEL: func.func @rms_norm_linear(
// OFF-NOT:     hl.fused
// OFF:         hl.pow
func.func @rms_norm_linear(%x: tensor<4x16xbf16>, %w: tensor<16xbf16>, %k: tensor<16x16xbf16>) -> tensor<4x16xbf16> {
  %f = hl.cast %x : tensor<4x16xbf16> -> tensor<4x16xf32>
  %two = hl.constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %p = hl.pow %f, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
  %eps = hl.constant {value = dense<1.0e-6> : tensor<f32>} : tensor<f32>
  %me = hl.add %m, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %q = hl.rsqrt %me : tensor<4x1xf32> -> tensor<4x1xf32>
  %s = hl.mul %f, %q : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %b = hl.cast %s : tensor<4x16xf32> -> tensor<4x16xbf16>
  %r = hl.mul %w, %b : (tensor<16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %y = hl.matmul %r, %k : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
  func.return %y : tensor<4x16xbf16>
}

// -----

// A value read outside the chain is a second result (here the f32 row, returned too).
// CHECK-LABEL: func.func @two_results(
// CHECK-NEXT:    %f, %r = hl.fused(%x) : (tensor<4x16xbf16>) -> (tensor<4x16xf32>, tensor<4x16xbf16>) {
// CHECK:           hl.yield %f_1, %r_1 : tensor<4x16xf32>, tensor<4x16xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %f, %r : tensor<4x16xf32>, tensor<4x16xbf16>
func.func @two_results(%x: tensor<4x16xbf16>) -> (tensor<4x16xf32>, tensor<4x16xbf16>) {
  %f = hl.cast %x : tensor<4x16xbf16> -> tensor<4x16xf32>
  %e = hl.exp %f : tensor<4x16xf32> -> tensor<4x16xf32>
  %r = hl.cast %e : tensor<4x16xf32> -> tensor<4x16xbf16>
  func.return %f, %r : tensor<4x16xf32>, tensor<4x16xbf16>
}

// -----

// SiLU(gate) * up between GEMMs: one kernel of two inputs.
// CHECK-LABEL: func.func @swiglu(
// CHECK:         %h = hl.fused(%g, %u) : (tensor<4x32xbf16>, tensor<4x32xbf16>) -> tensor<4x32xbf16> {
// CHECK:           hl.silu
// CHECK-NEXT:      hl.mul
// CHECK-NEXT:      hl.yield
func.func @swiglu(%x: tensor<4x16xbf16>, %wg: tensor<16x32xbf16>, %wu: tensor<16x32xbf16>) -> tensor<4x32xbf16> {
  %g = hl.matmul %x, %wg : (tensor<4x16xbf16>, tensor<16x32xbf16>) -> tensor<4x32xbf16>
  %u = hl.matmul %x, %wu : (tensor<4x16xbf16>, tensor<16x32xbf16>) -> tensor<4x32xbf16>
  %s = hl.silu %g : tensor<4x32xbf16> -> tensor<4x32xbf16>
  %h = hl.mul %s, %u : (tensor<4x32xbf16>, tensor<4x32xbf16>) -> tensor<4x32xbf16>
  func.return %h : tensor<4x32xbf16>
}
