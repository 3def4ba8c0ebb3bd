// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V4: beta != 0 reads C, so C exists with element type c_dtype and D's shape and order.
// The docs/design.md bug itself is in residual-cast-f32.mlir.

// beta = 1 with no C operand.
func.func @beta_without_c(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V4: beta = 1.0 reads C, but the op has no C operand}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// C has fewer columns than D (ldc describes C, so only V4 fires).
func.func @c_shape(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x16xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V4: beta = 1.0 reads C with D's shape (tensor<8x32xbf16>), but operand C is tensor<8x16xbf16>}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x16xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 16, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// C in row order under a column-order D.
func.func @c_order(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V4: beta = 1.0 reads C in D's layout, but order_c = row and order_d = col}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order row>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// An f16 call with a bf16 residual: same width, another format, still wrong numbers.
func.func @c_dtype(%w: tensor<64x32xf16>, %x: tensor<8x64xf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xf16> {
  // expected-error @+1 {{V4: beta = 0.5 reads C as f16, but operand C is tensor<8x32xbf16>}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>,
      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.5, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
  func.return %d : tensor<8x32xf16>
}

// -----

// Legal neighbour: a bf16 residual under c_dtype = bf16.
// CHECK-LABEL: func.func @residual_bf16
// CHECK: cublaslt.matmul
func.func @residual_bf16(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
