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

// -----

// A cast between a GEMM's 2-D result and the reshape to the model's 3-D shape trades
// places with the reshape, so it joins the norm's kernel instead of being a launch of
// its own (the extractor may leave either order: both cost it the same).
// CHECK-LABEL: func.func @cast_above_reshape(
// CHECK-NEXT:    %y = hl.matmul %a, %k : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
// CHECK-NEXT:    %y_1 = hl.reshape %y : tensor<4x16xbf16> -> tensor<1x4x16xbf16>
// CHECK-NEXT:    %r = hl.fused(%y_1, %w) : (tensor<1x4x16xbf16>, tensor<16xbf16>) -> tensor<1x4x16xbf16> {
// CHECK-NEXT:    ^bb0(%y_2: tensor<1x4x16xbf16>, %w_1: tensor<16xbf16>):
// CHECK-NEXT:      %f = hl.cast %y_2 : tensor<1x4x16xbf16> -> tensor<1x4x16xf32>
// CHECK:           hl.yield %r_1 : tensor<1x4x16xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<1x4x16xbf16>
// OFF-LABEL: func.func @cast_above_reshape(
// OFF-NEXT:    hl.matmul
// OFF-NEXT:    %c = hl.cast %y
// OFF-NEXT:    %f = hl.reshape %c
func.func @cast_above_reshape(%a: tensor<4x16xbf16>, %k: tensor<16x16xbf16>, %w: tensor<16xbf16>) -> tensor<1x4x16xbf16> {
  %y = hl.matmul %a, %k : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
  %c = hl.cast %y : tensor<4x16xbf16> -> tensor<4x16xf32>
  %f = hl.reshape %c : tensor<4x16xf32> -> tensor<1x4x16xf32>
  %two = hl.constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %p = hl.pow %f, %two : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x4x16xf32> -> tensor<1x4x1xf32>
  %q = hl.rsqrt %m : tensor<1x4x1xf32> -> tensor<1x4x1xf32>
  %s = hl.mul %f, %q : (tensor<1x4x16xf32>, tensor<1x4x1xf32>) -> tensor<1x4x16xf32>
  %b = hl.cast %s : tensor<1x4x16xf32> -> tensor<1x4x16xbf16>
  %r = hl.mul %w, %b : (tensor<16xbf16>, tensor<1x4x16xbf16>) -> tensor<1x4x16xbf16>
  func.return %r : tensor<1x4x16xbf16>
}

// -----

// It stays above the reshape where it would join its producer's kernel, or where no
// reader of the reshape joins a kernel (it would be a launch of its own either way).
// CHECK-LABEL: func.func @cast_stays(
// CHECK:         %e = hl.fused(%x) : (tensor<4x16xf32>) -> tensor<4x16xbf16> {
// CHECK:         %v = hl.reshape %e : tensor<4x16xbf16> -> tensor<64xbf16>
// CHECK-NEXT:    %c = hl.cast %y : tensor<4x16xbf16> -> tensor<4x16xf32>
// CHECK-NEXT:    %t = hl.reshape %c : tensor<4x16xf32> -> tensor<64xf32>
// CHECK-NEXT:    func.return %v, %t
func.func @cast_stays(%x: tensor<4x16xf32>, %y: tensor<4x16xbf16>) -> (tensor<64xbf16>, tensor<64xf32>) {
  %n = hl.neg %x : tensor<4x16xf32> -> tensor<4x16xf32>
  %e = hl.cast %n : tensor<4x16xf32> -> tensor<4x16xbf16>
  %v = hl.reshape %e : tensor<4x16xbf16> -> tensor<64xbf16>
  %c = hl.cast %y : tensor<4x16xbf16> -> tensor<4x16xf32>
  %t = hl.reshape %c : tensor<4x16xf32> -> tensor<64xf32>
  func.return %v, %t : tensor<64xbf16>, tensor<64xf32>
}
