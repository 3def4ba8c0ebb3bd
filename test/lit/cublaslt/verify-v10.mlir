// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V10: a call with FP8 inputs needs 16-byte-aligned leading dimensions
// (ld * byte width % 16 == 0 for A, B, C and D) and k a multiple of 16.
// The cases use cuBLASLt's FP8 "TN" form: A = W[N,K] with transa = t.

// k = 40: lda and ldb are 40 bytes of e4m3, and k is no multiple of 16.
func.func @fp8_k40(%w: tensor<32x40xf8E4M3FN>, %x: tensor<8x40xf8E4M3FN>) -> tensor<8x32xbf16> {
  // expected-error @+3 {{V10: FP8 calls need 16-byte-aligned leading dimensions, but lda = 40 of f8E4M3FN is 40 bytes}}
  // expected-error @+2 {{V10: FP8 calls need 16-byte-aligned leading dimensions, but ldb = 40 of f8E4M3FN is 40 bytes}}
  // expected-error @+1 {{V10: FP8 calls need k to be a multiple of 16, but k = 40}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 40, lda = 40, ldb = 40, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x40xf8E4M3FN>, tensor<8x40xf8E4M3FN> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// m = 36: ldd is 72 bytes of bf16.
func.func @fp8_ldd(%w: tensor<36x64xf8E4M3FN>, %x: tensor<8x64xf8E4M3FN>) -> tensor<8x36xbf16> {
  // expected-error @+1 {{V10: FP8 calls need 16-byte-aligned leading dimensions, but ldd = 36 of bf16 is 72 bytes}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 36, n = 8, k = 64, lda = 64, ldb = 64, ldc = 36, ldd = 36,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<36x64xf8E4M3FN>, tensor<8x64xf8E4M3FN> -> tensor<8x36xbf16>
  func.return %d : tensor<8x36xbf16>
}

// -----

// Legal neighbour: the aligned FP8 call.
// CHECK-LABEL: func.func @fp8_aligned
// CHECK: cublaslt.matmul
func.func @fp8_aligned(%w: tensor<32x64xf8E4M3FN>, %x: tensor<8x64xf8E4M3FN>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xf8E4M3FN>, tensor<8x64xf8E4M3FN> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Legal neighbour: k = 40 is fine for bf16 (no FP8 alignment rule).
// CHECK-LABEL: func.func @bf16_k40
// CHECK: cublaslt.matmul
func.func @bf16_k40(%w: tensor<32x40xbf16>, %x: tensor<8x40xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 40, lda = 40, ldb = 40, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x40xbf16>, tensor<8x40xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
