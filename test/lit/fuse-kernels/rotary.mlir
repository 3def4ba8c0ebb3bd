// RUN: lumir-opt %s -p fuse-kernels --split-input-file | filecheck %s
// RUN: lumir-opt %s -p "lumir-pipeline{fuse_kernels=true}" --split-input-file | filecheck %s --check-prefix=LAUNCH

// fuse-kernels: Llama's rotary embedding, with the transpose of the projected heads
// before it, is one hl.fused kernel: the transpose is a load with permuted row strides,
// rotate_half's slices read shifted columns and its cat selects by column.

// CHECK-LABEL: func.func @rotary(
// CHECK-NEXT:    %r = hl.fused(%q, %cos, %sin) : (tensor<1x3x4x8xbf16>, tensor<1x1x3x8xbf16>, tensor<1x1x3x8xbf16>) -> tensor<1x4x3x8xbf16> {
// CHECK-NEXT:    ^bb0(%q_1: tensor<1x3x4x8xbf16>, %cos_1: tensor<1x1x3x8xbf16>, %sin_1: tensor<1x1x3x8xbf16>):
// CHECK-NEXT:      %t = hl.transpose %q_1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x8xbf16> -> tensor<1x4x3x8xbf16>
// CHECK-NEXT:      %lo = hl.slice %t {dim = 3 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<1x4x3x8xbf16> -> tensor<1x4x3x4xbf16>
// CHECK-NEXT:      %hi = hl.slice %t {dim = 3 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x4x3x8xbf16> -> tensor<1x4x3x4xbf16>
// CHECK-NEXT:      %nhi = hl.neg %hi : tensor<1x4x3x4xbf16> -> tensor<1x4x3x4xbf16>
// CHECK-NEXT:      %rot = hl.cat %nhi, %lo {dim = 3 : i64} : (tensor<1x4x3x4xbf16>, tensor<1x4x3x4xbf16>) -> tensor<1x4x3x8xbf16>
// CHECK-NEXT:      %c = hl.mul %t, %cos_1 : (tensor<1x4x3x8xbf16>, tensor<1x1x3x8xbf16>) -> tensor<1x4x3x8xbf16>
// CHECK-NEXT:      %s = hl.mul %rot, %sin_1 : (tensor<1x4x3x8xbf16>, tensor<1x1x3x8xbf16>) -> tensor<1x4x3x8xbf16>
// CHECK-NEXT:      %r_1 = hl.add %c, %s : (tensor<1x4x3x8xbf16>, tensor<1x4x3x8xbf16>) -> tensor<1x4x3x8xbf16>
// CHECK-NEXT:      hl.yield %r_1 : tensor<1x4x3x8xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<1x4x3x8xbf16>

// Lowered: one fused launch, no other kernel.
// LAUNCH-LABEL: func.func @rotary(
// LAUNCH-NOT:     cublaslt_rt.launch
// LAUNCH:         cublaslt_rt.fused_launch
// LAUNCH-NOT:     cublaslt_rt.launch
// LAUNCH-NOT:     cublaslt_rt.fused_launch
// LAUNCH:         func.return
func.func @rotary(%q: tensor<1x3x4x8xbf16>, %cos: tensor<1x1x3x8xbf16>, %sin: tensor<1x1x3x8xbf16>) -> tensor<1x4x3x8xbf16> {
  %t = hl.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x8xbf16> -> tensor<1x4x3x8xbf16>
  %lo = hl.slice %t {dim = 3 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<1x4x3x8xbf16> -> tensor<1x4x3x4xbf16>
  %hi = hl.slice %t {dim = 3 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x4x3x8xbf16> -> tensor<1x4x3x4xbf16>
  %nhi = hl.neg %hi : tensor<1x4x3x4xbf16> -> tensor<1x4x3x4xbf16>
  %rot = hl.cat %nhi, %lo {dim = 3 : i64} : (tensor<1x4x3x4xbf16>, tensor<1x4x3x4xbf16>) -> tensor<1x4x3x8xbf16>
  %c = hl.mul %t, %cos : (tensor<1x4x3x8xbf16>, tensor<1x1x3x8xbf16>) -> tensor<1x4x3x8xbf16>
  %s = hl.mul %rot, %sin : (tensor<1x4x3x8xbf16>, tensor<1x1x3x8xbf16>) -> tensor<1x4x3x8xbf16>
  %r = hl.add %c, %s : (tensor<1x4x3x8xbf16>, tensor<1x4x3x8xbf16>) -> tensor<1x4x3x8xbf16>
  func.return %r : tensor<1x4x3x8xbf16>
}

// -----

// A whole Llama attention front: after the q/k/v GEMMs, q's and k's rotaries (4 and 2
// heads) are one kernel each; v's transpose, read by repeat_kv, stays a launch of its own.
// CHECK-LABEL: func.func @qkv(
// CHECK:         %vt = hl.transpose %v
// CHECK:         %qr = hl.fused(%q, %cos, %sin)
// CHECK:           hl.transpose
// CHECK:           hl.cat
// CHECK:           hl.yield
// CHECK:         %kr = hl.fused(%k, %cos, %sin)
// CHECK:           hl.transpose
// CHECK:           hl.cat
// CHECK:           hl.yield
// CHECK-NOT:     hl.slice
// CHECK:         %ve = hl.expand
// LAUNCH-LABEL: func.func @qkv(
// LAUNCH-COUNT-2: cublaslt_rt.fused_launch
// LAUNCH-NOT:     cublaslt_rt.fused_launch
// LAUNCH-NOT:     launch "hl.slice"
// LAUNCH-NOT:     launch "hl.neg"
// LAUNCH-NOT:     launch "hl.cat"
// LAUNCH:         launch "hl.expand"
// LAUNCH-NOT:     cublaslt_rt.fused_launch
// LAUNCH:         func.return
func.func @qkv(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x2x8xbf16>, %v: tensor<1x2x2x8xbf16>, %cos: tensor<1x1x2x8xbf16>, %sin: tensor<1x1x2x8xbf16>) -> (tensor<1x4x2x8xbf16>, tensor<1x2x2x8xbf16>, tensor<1x2x2x2x8xbf16>) {
  %qt = hl.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x8xbf16> -> tensor<1x4x2x8xbf16>
  %kt = hl.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x8xbf16> -> tensor<1x2x2x8xbf16>
  %vt = hl.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x8xbf16> -> tensor<1x2x2x8xbf16>
  %qlo = hl.slice %qt {dim = 3 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<1x4x2x8xbf16> -> tensor<1x4x2x4xbf16>
  %qhi = hl.slice %qt {dim = 3 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x4x2x8xbf16> -> tensor<1x4x2x4xbf16>
  %qn = hl.neg %qhi : tensor<1x4x2x4xbf16> -> tensor<1x4x2x4xbf16>
  %qrot = hl.cat %qn, %qlo {dim = 3 : i64} : (tensor<1x4x2x4xbf16>, tensor<1x4x2x4xbf16>) -> tensor<1x4x2x8xbf16>
  %qc = hl.mul %qt, %cos : (tensor<1x4x2x8xbf16>, tensor<1x1x2x8xbf16>) -> tensor<1x4x2x8xbf16>
  %qs = hl.mul %qrot, %sin : (tensor<1x4x2x8xbf16>, tensor<1x1x2x8xbf16>) -> tensor<1x4x2x8xbf16>
  %qr = hl.add %qc, %qs : (tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>) -> tensor<1x4x2x8xbf16>
  %klo = hl.slice %kt {dim = 3 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<1x2x2x8xbf16> -> tensor<1x2x2x4xbf16>
  %khi = hl.slice %kt {dim = 3 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x2x2x8xbf16> -> tensor<1x2x2x4xbf16>
  %kn = hl.neg %khi : tensor<1x2x2x4xbf16> -> tensor<1x2x2x4xbf16>
  %krot = hl.cat %kn, %klo {dim = 3 : i64} : (tensor<1x2x2x4xbf16>, tensor<1x2x2x4xbf16>) -> tensor<1x2x2x8xbf16>
  %kc = hl.mul %kt, %cos : (tensor<1x2x2x8xbf16>, tensor<1x1x2x8xbf16>) -> tensor<1x2x2x8xbf16>
  %ks = hl.mul %krot, %sin : (tensor<1x2x2x8xbf16>, tensor<1x1x2x8xbf16>) -> tensor<1x2x2x8xbf16>
  %kr = hl.add %kc, %ks : (tensor<1x2x2x8xbf16>, tensor<1x2x2x8xbf16>) -> tensor<1x2x2x8xbf16>
  %vr = hl.reshape %vt : tensor<1x2x2x8xbf16> -> tensor<1x2x1x2x8xbf16>
  %ve = hl.expand %vr : tensor<1x2x1x2x8xbf16> -> tensor<1x2x2x2x8xbf16>
  func.return %qr, %kr, %ve : tensor<1x4x2x8xbf16>, tensor<1x2x2x8xbf16>, tensor<1x2x2x2x8xbf16>
}
