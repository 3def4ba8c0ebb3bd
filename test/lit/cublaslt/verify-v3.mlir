// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V3: C and D share a dtype outside the FP8 rows.

// bf16 inputs writing f32 need c_dtype = f32 too, even when beta = 0.
func.func @c_bf16_d_f32(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xf32> {
  // expected-error @+1 {{V3: c_dtype = bf16 but d_dtype = f32}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// Legal neighbour: the same call with c_dtype = f32 (the cast-to-F32 fusion, beta = 0).
// CHECK-LABEL: func.func @c_f32_d_f32
// CHECK: cublaslt.matmul
func.func @c_f32_d_f32(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// Legal neighbour: an FP8 row reads C in bf16 and writes an e4m3 D.
// CHECK-LABEL: func.func @fp8_c_bf16_d_e4m3
// CHECK: cublaslt.matmul
func.func @fp8_c_bf16_d_e4m3(%w: tensor<64x32xf8E4M3FN>, %x: tensor<8x64xf8E4M3FN>) -> tensor<8x32xf8E4M3FN> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype f8E4M3FN>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf8E4M3FN>, tensor<8x64xf8E4M3FN> -> tensor<8x32xf8E4M3FN>
  func.return %d : tensor<8x32xf8E4M3FN>
}
