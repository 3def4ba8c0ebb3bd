// RUN: lumir-run %s --split-input-file | filecheck %s
// RUN: lumir-run %s -p lumir-pipeline --split-input-file --device cpu --seed 3 | filecheck %s

// An f32 GEMM with a `_FAST_` compute type lets cuBLASLt multiply in f16, bf16 or TF32
// (on an H100 the f16 and TF32 modes rounded these operands, the bf16 mode did not; the
// CPU executor always rounds them). The unfused reference multiplies in f32, so
// lumir-run compares with the multiplier precision's tolerance: with K = 256 the
// rounding moves the products by ~1e-3 relative, ten times f32's tolerance.

// CHECK-LABEL: @f32_fast_16f on cpu, seed {{[0-9]+}}:
// CHECK-NEXT:    result 0 tensor<8x32xf32>: max abs error {{.*}} (rtol 1.0e-02, atol 1.0e-04): ok
func.func @f32_fast_16f(%w: tensor<256x32xf32>, %x: tensor<8x256xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 256, lda = 32, ldb = 256, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f_fast_16f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<256x32xf32>, tensor<8x256xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----
// CHECK-LABEL: @f32_fast_16bf on cpu, seed {{[0-9]+}}:
// CHECK-NEXT:    result 0 tensor<8x32xf32>: max abs error {{.*}} (rtol 2.0e-02, atol 1.0e-03): ok
func.func @f32_fast_16bf(%w: tensor<256x32xf32>, %x: tensor<8x256xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 256, lda = 32, ldb = 256, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f_fast_16bf>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<256x32xf32>, tensor<8x256xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----
// CHECK-LABEL: @f32_fast_tf32 on cpu, seed {{[0-9]+}}:
// CHECK-NEXT:    result 0 tensor<8x32xf32>: max abs error {{.*}} (rtol 1.0e-02, atol 1.0e-04): ok
func.func @f32_fast_tf32(%w: tensor<256x32xf32>, %x: tensor<8x256xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 256, lda = 32, ldb = 256, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f_fast_tf32>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<256x32xf32>, tensor<8x256xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}
