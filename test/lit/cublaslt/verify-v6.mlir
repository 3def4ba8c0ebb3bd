// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V6: BIAS epilogues take a 1-D bias of length m (rows of D in the column-major view)
// whose dtype the type table allows; every other epilogue takes no bias operand.

// A BIAS epilogue without a bias.
func.func @bias_missing(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V6: epilogue bias adds a bias, but the op has no bias operand}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// A bias along n (the row-major output rows) instead of m.
func.func @bias_length(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<8xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V6: epilogue gelu_bias adds a 1-D bias of length m = 32 (rows of D), but operand bias is tensor<8xbf16>}}
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<8xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu_bias>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// A 2-D bias.
func.func @bias_rank(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<1x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V6: epilogue bias adds a 1-D bias of length m = 32 (rows of D), but operand bias is tensor<1x32xbf16>}}
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<1x32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// A bf16 call writing f32 adds an f32 bias.
func.func @bias_dtype(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<32xbf16>) -> tensor<8x32xf32> {
  // expected-error @+1 {{V6: epilogue bias with C f32 and D f32 takes a bias of f32, but operand bias is tensor<32xbf16>}}
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// RELU adds no bias.
func.func @bias_unused(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V6: epilogue relu takes no bias, but the op has operand bias tensor<32xbf16>}}
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// BGRADA writes its bias gradient as an output: no bias operand.
func.func @bgrad_bias(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V6: epilogue bgrada takes no bias, but the op has operand bias tensor<32xbf16>}}
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bgrada>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// The FP8 table's f32 output takes a bf16 bias, not an f32 one.
func.func @fp8_bias_f32(%w: tensor<64x32xf8E4M3FN>, %x: tensor<8x64xf8E4M3FN>, %bias: tensor<32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{V6: epilogue bias with C f32 and D f32 takes a bias of bf16, but operand bias is tensor<32xf32>}}
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xf32>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<64x32xf8E4M3FN>, tensor<8x64xf8E4M3FN> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// Legal neighbour: the FP8 f32 output with a bf16 bias.
// CHECK-LABEL: func.func @fp8_bias_bf16
// CHECK: cublaslt.matmul
func.func @fp8_bias_bf16(%w: tensor<64x32xf8E4M3FN>, %x: tensor<8x64xf8E4M3FN>, %bias: tensor<32xbf16>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<64x32xf8E4M3FN>, tensor<8x64xf8E4M3FN> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// Legal neighbour: a Linear layer's bias (length m = out features) with GELU.
// CHECK-LABEL: func.func @gelu_bias
// CHECK: cublaslt.matmul
func.func @gelu_bias(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu_bias>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
