// RUN: lumir-opt %S/Inputs/fusion-families.mlir -p lower-to-cublaslt-rt --split-input-file | lumir-run --reference %s --split-input-file | filecheck %s
// RUN: lumir-opt %S/Inputs/fusion-families.mlir -p lower-to-cublaslt-rt --split-input-file | not lumir-run --reference %s --split-input-file --rtol 0 --atol 0 2>&1 | filecheck %s --check-prefix=EXACT
// RUN: lumir-run %s --split-input-file | filecheck %s

// Every fusion family of docs/design.md: the unfused hl program here is the reference, the
// one fused cublaslt.matmul in Inputs/fusion-families.mlir (chunk for chunk) is what
// cublaslt-fuse should produce for it. lumir-run lowers nothing itself here: it runs the
// lowered fused call on random inputs and compares it with this file run as torch ops,
// within the tolerance of the narrowest type involved. With zero tolerance the fused
// calls that skip an intermediate rounding differ (the EXACT run): the comparison is
// live, not vacuous. The last RUN line compiles this file with the default
// lumir-pipeline (whatever cublaslt-fuse makes of it) and checks that against it too.

// CHECK-LABEL: @plain_f32 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf32>: max abs error {{.*}}: ok
func.func @plain_f32(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %1 = hl.matmul %x, %0 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  func.return %1 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: @bias_bf16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xbf16>: max abs error {{.*}}: ok
func.func @bias_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %2 = hl.add %1, %bias : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  func.return %2 : tensor<4x16xbf16>
}

// -----

// CHECK-LABEL: @relu_f32 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf32>: max abs error {{.*}}: ok
func.func @relu_f32(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %1 = hl.matmul %x, %0 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = hl.relu %1 : tensor<4x16xf32> -> tensor<4x16xf32>
  func.return %2 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: @gelu_f16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf16>: max abs error {{.*}}: ok
func.func @gelu_f16(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %bias: tensor<16xf16>, %r: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf16> -> tensor<8x16xf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %2 = hl.gelu %1 {approximate = "tanh"} : tensor<4x16xf16> -> tensor<4x16xf16>
  func.return %2 : tensor<4x16xf16>
}

// -----

// CHECK-LABEL: @relu_bias_bf16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xbf16>: max abs error {{.*}}: ok
func.func @relu_bias_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %2 = hl.add %1, %bias : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  %3 = hl.relu %2 : tensor<4x16xbf16> -> tensor<4x16xbf16>
  func.return %3 : tensor<4x16xbf16>
}

// -----

// CHECK-LABEL: @gelu_bias_f16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf16>: max abs error {{.*}}: ok
func.func @gelu_bias_f16(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %bias: tensor<16xf16>, %r: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf16> -> tensor<8x16xf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %2 = hl.add %1, %bias : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
  %3 = hl.gelu %2 {approximate = "tanh"} : tensor<4x16xf16> -> tensor<4x16xf16>
  func.return %3 : tensor<4x16xf16>
}

// -----

// CHECK-LABEL: @residual_bf16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xbf16>: max abs error {{.*}}: ok
// EXACT-LABEL: @residual_bf16 on {{cpu|cuda}}, seed 0:
// EXACT-NEXT:    result 0 tensor<4x16xbf16>: {{.*}} (rtol 0.0e+00, atol 0.0e+00): MISMATCH
// EXACT-NEXT:  fusion-families.mlir:[[# @LINE + 5]]:3: error: result 0 of @residual_bf16 differs from the unfused reference (max abs error {{.*}}, max rel error {{.*}})
func.func @residual_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %2 = hl.add %1, %r : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  func.return %2 : tensor<4x16xbf16>
}

// -----

// CHECK-LABEL: @alpha_f32 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf32>: max abs error {{.*}}: ok
func.func @alpha_f32(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %1 = hl.matmul %x, %0 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = hl.constant {value = dense<5.000000e-01> : tensor<f32>} : tensor<f32>
  %3 = hl.mul %1, %2 : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  func.return %3 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: @alpha_residual_f16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf16>: max abs error {{.*}}: ok
func.func @alpha_residual_f16(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %bias: tensor<16xf16>, %r: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf16> -> tensor<8x16xf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %2 = hl.constant {value = dense<-2.000000e+00> : tensor<f16>} : tensor<f16>
  %3 = hl.mul %1, %2 : (tensor<4x16xf16>, tensor<f16>) -> tensor<4x16xf16>
  %4 = hl.add %3, %r : (tensor<4x16xf16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  func.return %4 : tensor<4x16xf16>
}

// -----

// CHECK-LABEL: @cast_f32_bf16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf32>: max abs error {{.*}}: ok
func.func @cast_f32_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xf32> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %2 = hl.cast %1 : tensor<4x16xbf16> -> tensor<4x16xf32>
  func.return %2 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: @cast_f32_residual_bf16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xf32>: max abs error {{.*}}: ok
func.func @cast_f32_residual_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xf32> {
  %0 = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %1 = hl.matmul %x, %0 : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %2 = hl.add %1, %r : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %3 = hl.cast %2 : tensor<4x16xbf16> -> tensor<4x16xf32>
  func.return %3 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: @batched_f16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<2x4x16xf16>: max abs error {{.*}}: ok
func.func @batched_f16(%x: tensor<2x4x8xf16>, %w: tensor<2x8x16xf16>, %r: tensor<2x4x16xf16>) -> tensor<2x4x16xf16> {
  %0 = hl.matmul %x, %w : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
  func.return %0 : tensor<2x4x16xf16>
}

// -----

// CHECK-LABEL: @batched_residual_bf16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<2x4x16xbf16>: max abs error {{.*}}: ok
func.func @batched_residual_bf16(%x: tensor<2x4x8xbf16>, %w: tensor<2x8x16xbf16>, %r: tensor<2x4x16xbf16>) -> tensor<2x4x16xbf16> {
  %0 = hl.matmul %x, %w : (tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) -> tensor<2x4x16xbf16>
  %1 = hl.add %0, %r : (tensor<2x4x16xbf16>, tensor<2x4x16xbf16>) -> tensor<2x4x16xbf16>
  func.return %1 : tensor<2x4x16xbf16>
}

// -----

// CHECK-LABEL: @batched_shared_weight_f32 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<2x4x16xf32>: max abs error {{.*}}: ok
func.func @batched_shared_weight_f32(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = hl.matmul %x, %w : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  func.return %0 : tensor<2x4x16xf32>
}

// -----

// CHECK-LABEL: @transposed_bf16 on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x16xbf16>: max abs error {{.*}}: ok
func.func @transposed_bf16(%xt: tensor<8x4xbf16>, %w: tensor<8x16xbf16>) -> tensor<4x16xbf16> {
  %0 = hl.transpose %xt {permutation = array<i64: 1, 0>} : tensor<8x4xbf16> -> tensor<4x8xbf16>
  %1 = hl.matmul %0, %w : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  func.return %1 : tensor<4x16xbf16>
}
