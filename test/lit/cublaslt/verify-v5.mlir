// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V5: beta = 0 does not read C, so the operand list has no C.

// A C operand that beta = 0 would never read.
func.func @c_without_beta(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V5: beta = 0.0 does not read C, but the op has operand C tensor<8x32xbf16>}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Legal neighbour: beta = 0 and no C.
// CHECK-LABEL: func.func @no_c
// CHECK: cublaslt.matmul
func.func @no_c(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
