// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V8: m, n, k, leading dimensions, batch count and strides agree with the operand shapes
// and transposes (docs/conventions.md). Without a C operand, C's layout is D's.

// m does not match op(A) or D.
func.func @wrong_m(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+2 {{V8: op(A) must be m x k = 16 x 64, but operand A tensor<64x32xbf16> read in col order with transa = n is 32 x 64}}
  // expected-error @+1 {{V8: D must be m x n = 16 x 8, but result D tensor<8x32xbf16> read in col order is 32 x 8}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// transa = t on a weight that is already K x N.
func.func @wrong_transa(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V8: op(A) must be m x k = 32 x 64, but operand A tensor<64x32xbf16> read in col order with transa = t is 64 x 32}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
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

// lda is not the dense leading dimension.
func.func @wrong_lda(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V8: lda = 64, but operand A tensor<64x32xbf16> is dense with leading dimension 32}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Without C, cuBLASLt is given D's layout for C.
func.func @wrong_ldc(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V8: ldc = 0, but without a C operand the C layout is D's, with leading dimension 32}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 0, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// A rank-4 operand.
func.func @rank4(%w: tensor<1x1x64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V8: operand A tensor<1x1x64x32xbf16> is 4-D; cuBLASLt matrices are 2-D, or 3-D for a strided batch}}
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
  } : tensor<1x1x64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// batch_count disagrees with the 3-D operands.
func.func @wrong_batch_count(%w: tensor<4x64x32xbf16>, %x: tensor<4x8x64xbf16>) -> tensor<4x8x32xbf16> {
  // expected-error @+3 {{V8: batch_count = 2, but operand A tensor<4x64x32xbf16> holds 4 matrices}}
  // expected-error @+2 {{V8: batch_count = 2, but operand B tensor<4x8x64xbf16> holds 4 matrices}}
  // expected-error @+1 {{V8: batch_count = 2, but result D tensor<4x8x32xbf16> holds 4 matrices}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 2, stride_a = 2048, stride_b = 512, stride_c = 256, stride_d = 256,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<4x64x32xbf16>, tensor<4x8x64xbf16> -> tensor<4x8x32xbf16>
  func.return %d : tensor<4x8x32xbf16>
}

// -----

// A 2-D weight shared by every batch has stride 0.
func.func @shared_weight_stride(%w: tensor<64x32xbf16>, %x: tensor<4x8x64xbf16>) -> tensor<4x8x32xbf16> {
  // expected-error @+1 {{V8: stride_a = 2048, but operand A tensor<64x32xbf16> is 2-D, shared by every batch with stride 0}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 4, stride_a = 2048, stride_b = 512, stride_c = 256, stride_d = 256,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<4x8x64xbf16> -> tensor<4x8x32xbf16>
  func.return %d : tensor<4x8x32xbf16>
}

// -----

// batch_count = 1 calls have every stride 0.
func.func @single_batch_stride(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V8: stride_b = 512, but batch_count = 1 calls have every stride 0}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 512, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Legal neighbour: a bmm as a strided batch.
// CHECK-LABEL: func.func @bmm
// CHECK: cublaslt.matmul
func.func @bmm(%w: tensor<4x64x32xbf16>, %x: tensor<4x8x64xbf16>) -> tensor<4x8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 4, stride_a = 2048, stride_b = 512, stride_c = 256, stride_d = 256,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<4x64x32xbf16>, tensor<4x8x64xbf16> -> tensor<4x8x32xbf16>
  func.return %d : tensor<4x8x32xbf16>
}

// -----

// Legal neighbour: a shared 2-D weight in a batched call.
// CHECK-LABEL: func.func @shared_weight
// CHECK: cublaslt.matmul
func.func @shared_weight(%w: tensor<64x32xbf16>, %x: tensor<4x8x64xbf16>) -> tensor<4x8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 4, stride_a = 0, stride_b = 512, stride_c = 256, stride_d = 256,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<4x8x64xbf16> -> tensor<4x8x32xbf16>
  func.return %d : tensor<4x8x32xbf16>
}

// -----

// Legal neighbour: a Linear layer, Y = X W^T with W[N,K] (transa = t, lda = K).
// CHECK-LABEL: func.func @linear
// CHECK: cublaslt.matmul
func.func @linear(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
