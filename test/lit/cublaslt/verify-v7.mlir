// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V7: RELU/GELU with BIAS (AUX forms included) is refused for a ROW-order D: measured on
// the H200, cuBLASLt returns CUBLAS_STATUS_NOT_SUPPORTED. The column-major view avoids it.
// The ROW cases read Y[8,32] = X[8,64] W[64,32] directly: A = X, B = W, m = 8, n = 32.

// RELU_BIAS with a row-major D.
func.func @relu_bias_row(%x: tensor<8x64xbf16>, %w: tensor<64x32xbf16>, %bias: tensor<8xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V7: epilogue relu_bias is not supported with order_d = row}}
  %d = cublaslt.matmul %x, %w bias(%bias : tensor<8xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>,
      order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
      m = 8, n = 32, k = 64, lda = 64, ldb = 32, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu_bias>
  } : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// GELU_AUX_BIAS with a row-major D.
func.func @gelu_aux_bias_row(%x: tensor<8x64xbf16>, %w: tensor<64x32xbf16>, %bias: tensor<8xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V7: epilogue gelu_aux_bias is not supported with order_d = row}}
  %d = cublaslt.matmul %x, %w bias(%bias : tensor<8xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>,
      order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
      m = 8, n = 32, k = 64, lda = 64, ldb = 32, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu_aux_bias>
  } : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Legal neighbour: a plain BIAS (no activation) with a row-major D.
// CHECK-LABEL: func.func @bias_row
// CHECK: cublaslt.matmul
func.func @bias_row(%x: tensor<8x64xbf16>, %w: tensor<64x32xbf16>, %bias: tensor<8xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %x, %w bias(%bias : tensor<8xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>,
      order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
      m = 8, n = 32, k = 64, lda = 64, ldb = 32, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Legal neighbour: RELU_BIAS in the column-major view.
// CHECK-LABEL: func.func @relu_bias_col
// CHECK: cublaslt.matmul
func.func @relu_bias_col(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu_bias>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
