// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// V2: (compute type, scale type, A, B, C, D) is a row of cuBLASLt's supported-type
// table, and the row allows the epilogue. Each violating case breaks V2 alone.

// compute_16f exists only for f16 inputs.
func.func @compute_16f_bf16(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V2: (compute compute_16f, scale f16, A bf16, B bf16, C bf16, D bf16) is not in cuBLASLt's supported-type table}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_16f>, scale_type = #cublaslt<dtype f16>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// compute_32f scales in f32, not f16.
func.func @compute_32f_scale_f16(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{V2: (compute compute_32f, scale f16, A bf16, B bf16, C bf16, D bf16) is not in}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f16>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// e5m2 x e5m2 is not an FP8 row.
func.func @fp8_e5m2_pair(%w: tensor<64x32xf8E5M2>, %x: tensor<8x64xf8E5M2>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{no row reads A f8E5M2 with B f8E5M2}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E5M2>, b_dtype = #cublaslt<dtype f8E5M2>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf8E5M2>, tensor<8x64xf8E5M2> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// The integer row runs only the default epilogue.
func.func @i8_relu(%w: tensor<64x32xi8>, %x: tensor<8x64xi8>) -> tensor<8x32xi32> {
  // expected-error @+1 {{V2: the row (compute compute_32i, scale i32, A/B i8, C/D i32) runs only the default epilogue, but epilogue = relu}}
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype i8>, b_dtype = #cublaslt<dtype i8>,
      c_dtype = #cublaslt<dtype i32>, d_dtype = #cublaslt<dtype i32>,
      compute_type = #cublaslt<compute compute_32i>, scale_type = #cublaslt<dtype i32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu>
  } : tensor<64x32xi8>, tensor<8x64xi8> -> tensor<8x32xi32>
  func.return %d : tensor<8x32xi32>
}

// -----

// Legal neighbour: f16 with compute_16f and an f16 scale.
// CHECK-LABEL: func.func @compute_16f_f16
// CHECK: cublaslt.matmul
func.func @compute_16f_f16(%w: tensor<64x32xf16>, %x: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>,
      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_16f>, scale_type = #cublaslt<dtype f16>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
  func.return %d : tensor<8x32xf16>
}

// -----

// Legal neighbour: the pedantic variant of compute_32f.
// CHECK-LABEL: func.func @compute_32f_pedantic
// CHECK: cublaslt.matmul
func.func @compute_32f_pedantic(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f_pedantic>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Legal neighbour: TF32 tensor cores for f32.
// CHECK-LABEL: func.func @fast_tf32
// CHECK: cublaslt.matmul
func.func @fast_tf32(%w: tensor<64x32xf32>, %x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f_fast_tf32>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// Legal neighbour: f64.
// CHECK-LABEL: func.func @compute_64f
// CHECK: cublaslt.matmul
func.func @compute_64f(%w: tensor<64x32xf64>, %x: tensor<8x64xf64>) -> tensor<8x32xf64> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f64>, b_dtype = #cublaslt<dtype f64>,
      c_dtype = #cublaslt<dtype f64>, d_dtype = #cublaslt<dtype f64>,
      compute_type = #cublaslt<compute compute_64f>, scale_type = #cublaslt<dtype f64>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf64>, tensor<8x64xf64> -> tensor<8x32xf64>
  func.return %d : tensor<8x32xf64>
}

// -----

// Legal neighbour: the integer row with the default epilogue.
// CHECK-LABEL: func.func @i8_default
// CHECK: cublaslt.matmul
func.func @i8_default(%w: tensor<64x32xi8>, %x: tensor<8x64xi8>) -> tensor<8x32xi32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype i8>, b_dtype = #cublaslt<dtype i8>,
      c_dtype = #cublaslt<dtype i32>, d_dtype = #cublaslt<dtype i32>,
      compute_type = #cublaslt<compute compute_32i>, scale_type = #cublaslt<dtype i32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xi8>, tensor<8x64xi8> -> tensor<8x32xi32>
  func.return %d : tensor<8x32xi32>
}
