// RUN: lumir-run %s -p hl-to-cublaslt,lower-to-cublaslt-rt --split-input-file | filecheck %s
// RUN: lumir-opt %s -p hl-to-cublaslt,lower-to-cublaslt-rt --split-input-file | lumir-run --reference %s --split-input-file | filecheck %s
// RUN: lumir-run %s --split-input-file | filecheck %s

// Whole hl programs, compiled without fusion (every matmul one plain cuBLASLt call, the
// rest kernel launches) and run on seeded random inputs against the same programs run
// op by op as torch calls. First lumir-run compiles the file itself with -p; then it
// takes lumir-opt's lowered output on stdin and this file as --reference; last, it
// compiles the file with the default lumir-pipeline, fusion included.

// A Llama-style block: RMSNorm, gated SiLU MLP, residual; bf16.
// CHECK-LABEL: @llama_mlp on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x32xbf16>: max abs error {{.*}}: ok
func.func @llama_mlp(%x: tensor<4x32xbf16>, %g: tensor<32xbf16>, %wg: tensor<64x32xbf16>, %wu: tensor<64x32xbf16>, %wd: tensor<32x64xbf16>) -> tensor<4x32xbf16> {
  %sq = hl.mul %x, %x : (tensor<4x32xbf16>, tensor<4x32xbf16>) -> tensor<4x32xbf16>
  %ms = hl.mean %sq {dims = array<i64: -1>, keepdim} : tensor<4x32xbf16> -> tensor<4x1xbf16>
  %eps = hl.constant {value = dense<1.0e-05> : tensor<bf16>} : tensor<bf16>
  %v = hl.add %ms, %eps : (tensor<4x1xbf16>, tensor<bf16>) -> tensor<4x1xbf16>
  %inv = hl.rsqrt %v : tensor<4x1xbf16> -> tensor<4x1xbf16>
  %n = hl.mul %x, %inv : (tensor<4x32xbf16>, tensor<4x1xbf16>) -> tensor<4x32xbf16>
  %h = hl.mul %n, %g : (tensor<4x32xbf16>, tensor<32xbf16>) -> tensor<4x32xbf16>
  %wgt = hl.transpose %wg {permutation = array<i64: 1, 0>} : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %gate = hl.matmul %h, %wgt : (tensor<4x32xbf16>, tensor<32x64xbf16>) -> tensor<4x64xbf16>
  %wut = hl.transpose %wu {permutation = array<i64: 1, 0>} : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %up = hl.matmul %h, %wut : (tensor<4x32xbf16>, tensor<32x64xbf16>) -> tensor<4x64xbf16>
  %act = hl.silu %gate : tensor<4x64xbf16> -> tensor<4x64xbf16>
  %prod = hl.mul %act, %up : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %wdt = hl.transpose %wd {permutation = array<i64: 1, 0>} : tensor<32x64xbf16> -> tensor<64x32xbf16>
  %down = hl.matmul %prod, %wdt : (tensor<4x64xbf16>, tensor<64x32xbf16>) -> tensor<4x32xbf16>
  %out = hl.add %x, %down : (tensor<4x32xbf16>, tensor<4x32xbf16>) -> tensor<4x32xbf16>
  func.return %out : tensor<4x32xbf16>
}

// -----

// Attention written out (batched matmuls, scale, softmax) next to hl.sdpa; f32.
// CHECK-LABEL: @attention on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<2x6x8xf32>: max abs error {{.*}}: ok
// CHECK-NEXT:    result 1 tensor<2x6x8xf32>: max abs error {{.*}}: ok
func.func @attention(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>) -> (tensor<2x6x8xf32>, tensor<2x6x8xf32>) {
  %kt = hl.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<2x6x8xf32> -> tensor<2x8x6xf32>
  %s = hl.matmul %q, %kt : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %scale = hl.constant {value = dense<0.353553385> : tensor<f32>} : tensor<f32>
  %ss = hl.mul %s, %scale : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
  %p = hl.softmax %ss {dim = -1 : i64} : tensor<2x6x6xf32> -> tensor<2x6x6xf32>
  %o = hl.matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  %ref = hl.sdpa %q, %k, %v : tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32> -> tensor<2x6x8xf32>
  func.return %o, %ref : tensor<2x6x8xf32>, tensor<2x6x8xf32>
}

// -----

// Integer inputs index an embedding table (lumir-run draws them within its rows);
// shape ops, comparisons and selects run as kernels; f16.
// CHECK-LABEL: @embed_and_select on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<3x4x16xf16>: max abs error {{.*}}: ok
// CHECK-NEXT:    result 1 tensor<3x16xf16>: max abs error {{.*}}: ok
func.func @embed_and_select(%table: tensor<50x8xf16>, %ids: tensor<3x4xi64>) -> (tensor<3x4x16xf16>, tensor<3x16xf16>) {
  %e = hl.embedding %table, %ids : (tensor<50x8xf16>, tensor<3x4xi64>) -> tensor<3x4x8xf16>
  %zero = hl.constant {value = dense<0.0> : tensor<f16>} : tensor<f16>
  %pos = hl.compare %e, %zero {predicate = "gt"} : (tensor<3x4x8xf16>, tensor<f16>) -> tensor<3x4x8xi1>
  %neg = hl.neg %e : tensor<3x4x8xf16> -> tensor<3x4x8xf16>
  %abs = hl.where %pos, %e, %neg : (tensor<3x4x8xi1>, tensor<3x4x8xf16>, tensor<3x4x8xf16>) -> tensor<3x4x8xf16>
  %both = hl.cat %e, %abs {dim = 2 : i64} : (tensor<3x4x8xf16>, tensor<3x4x8xf16>) -> tensor<3x4x16xf16>
  %half = hl.slice %both {dim = 1 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : tensor<3x4x16xf16> -> tensor<3x2x16xf16>
  %m = hl.amax %half {dims = array<i64: 1>} : tensor<3x2x16xf16> -> tensor<3x16xf16>
  func.return %both, %m : tensor<3x4x16xf16>, tensor<3x16xf16>
}

// -----

// RoBERTa's position ids: a padding mask cast to i32, counted, multiplied, gathered.
// CHECK-LABEL: @int32_positions on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<2x6x8xf32>: max abs error {{.*}}: ok
func.func @int32_positions(%ids: tensor<2x6xi64>, %table: tensor<16x8xf32>) -> tensor<2x6x8xf32> {
  %pad = hl.constant {value = dense<1> : tensor<i64>} : tensor<i64>
  %ne = hl.compare %ids, %pad {predicate = "ne"} : (tensor<2x6xi64>, tensor<i64>) -> tensor<2x6xi1>
  %mask = hl.cast %ne : tensor<2x6xi1> -> tensor<2x6xi32>
  %count = hl.cumsum %mask {dim = 1 : i64} : tensor<2x6xi32> -> tensor<2x6xi32>
  %pos = hl.mul %count, %mask : (tensor<2x6xi32>, tensor<2x6xi32>) -> tensor<2x6xi32>
  %rows = hl.embedding %table, %pos : (tensor<16x8xf32>, tensor<2x6xi32>) -> tensor<2x6x8xf32>
  func.return %rows : tensor<2x6x8xf32>
}
