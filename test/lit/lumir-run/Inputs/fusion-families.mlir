// Fused counterparts of ../fusion-families.mlir, one cublaslt.matmul per chunk.

func.func @plain_f32(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}

// -----

func.func @bias_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = cublaslt.matmul %w, %x bias(%bias : tensor<16xbf16>) {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue bias>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xbf16>, tensor<4x8xbf16> -> tensor<4x16xbf16>
  func.return %0 : tensor<4x16xbf16>
}

// -----

func.func @relu_f32(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue relu>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}

// -----

func.func @gelu_f16(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %bias: tensor<16xf16>, %r: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %0 = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue gelu>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xf16>, tensor<4x8xf16> -> tensor<4x16xf16>
  func.return %0 : tensor<4x16xf16>
}

// -----

func.func @relu_bias_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = cublaslt.matmul %w, %x bias(%bias : tensor<16xbf16>) {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue relu_bias>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xbf16>, tensor<4x8xbf16> -> tensor<4x16xbf16>
  func.return %0 : tensor<4x16xbf16>
}

// -----

func.func @gelu_bias_f16(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %bias: tensor<16xf16>, %r: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %0 = cublaslt.matmul %w, %x bias(%bias : tensor<16xf16>) {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue gelu_bias>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xf16>, tensor<4x8xf16> -> tensor<4x16xf16>
  func.return %0 : tensor<4x16xf16>
}

// -----

func.func @residual_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = cublaslt.matmul %w, %x c(%r : tensor<4x16xbf16>) {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64} : tensor<16x8xbf16>, tensor<4x8xbf16> -> tensor<4x16xbf16>
  func.return %0 : tensor<4x16xbf16>
}

// -----

func.func @alpha_f32(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>, %r: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 5.000000e-01 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}

// -----

func.func @alpha_residual_f16(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %bias: tensor<16xf16>, %r: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %0 = cublaslt.matmul %w, %x c(%r : tensor<4x16xf16>) {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = -2.000000e+00 : f64, beta = 1.000000e+00 : f64} : tensor<16x8xf16>, tensor<4x8xf16> -> tensor<4x16xf16>
  func.return %0 : tensor<4x16xf16>
}

// -----

func.func @cast_f32_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xf32> {
  %0 = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<16x8xbf16>, tensor<4x8xbf16> -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}

// -----

func.func @cast_f32_residual_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xf32> {
  %0 = hl.cast %r : tensor<4x16xbf16> -> tensor<4x16xf32>
  %1 = cublaslt.matmul %w, %x c(%0 : tensor<4x16xf32>) {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64} : tensor<16x8xbf16>, tensor<4x8xbf16> -> tensor<4x16xf32>
  func.return %1 : tensor<4x16xf32>
}

// -----

func.func @batched_f16(%x: tensor<2x4x8xf16>, %w: tensor<2x8x16xf16>, %r: tensor<2x4x16xf16>) -> tensor<2x4x16xf16> {
  %0 = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 2 : i64, stride_a = 128 : i64, stride_b = 32 : i64, stride_c = 64 : i64, stride_d = 64 : i64, transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<2x8x16xf16>, tensor<2x4x8xf16> -> tensor<2x4x16xf16>
  func.return %0 : tensor<2x4x16xf16>
}

// -----

func.func @batched_residual_bf16(%x: tensor<2x4x8xbf16>, %w: tensor<2x8x16xbf16>, %r: tensor<2x4x16xbf16>) -> tensor<2x4x16xbf16> {
  %0 = cublaslt.matmul %w, %x c(%r : tensor<2x4x16xbf16>) {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 2 : i64, stride_a = 128 : i64, stride_b = 32 : i64, stride_c = 64 : i64, stride_d = 64 : i64, transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64} : tensor<2x8x16xbf16>, tensor<2x4x8xbf16> -> tensor<2x4x16xbf16>
  func.return %0 : tensor<2x4x16xbf16>
}

// -----

func.func @batched_shared_weight_f32(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 2 : i64, stride_a = 0 : i64, stride_b = 32 : i64, stride_c = 64 : i64, stride_d = 64 : i64, transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<8x16xf32>, tensor<2x4x8xf32> -> tensor<2x4x16xf32>
  func.return %0 : tensor<2x4x16xf32>
}

// -----

func.func @transposed_bf16(%xt: tensor<8x4xbf16>, %w: tensor<8x16xbf16>) -> tensor<4x16xbf16> {
  %0 = cublaslt.matmul %w, %xt {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 4 : i64, ldc = 16 : i64, ldd = 16 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, transa = #cublaslt<trans n>, transb = #cublaslt<trans t>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : tensor<8x16xbf16>, tensor<8x4xbf16> -> tensor<4x16xbf16>
  func.return %0 : tensor<4x16xbf16>
}
