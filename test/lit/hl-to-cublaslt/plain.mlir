// RUN: lumir-opt %s -p hl-to-cublaslt --split-input-file | filecheck %s

// Y[4,16] = X[4,8] @ W[8,16] in cuBLASLt's column-major view (docs/conventions.md):
// A = W (lda = N = 16), B = X (ldb = K = 8), m = N, n = M, k = K, D col with ldd = N;
// alpha 1, beta 0, no C, the DEFAULT epilogue, true fp32 (compute_32f, no TF32).
// CHECK-LABEL: func.func @plain_f32
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<8x16xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x16xf32>
func.func @plain_f32(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %y = hl.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// bf16 accumulates in f32 with an f32 scale; A/B/C/D are bf16.
// CHECK-LABEL: func.func @plain_bf16
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 64 : i64, n = 6 : i64, k = 32 : i64, lda = 64 : i64, ldb = 32 : i64, ldc = 64 : i64, ldd = 64 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<32x64xbf16>, tensor<6x32xbf16> -> tensor<6x64xbf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<6x64xbf16>
func.func @plain_bf16(%x: tensor<6x32xbf16>, %w: tensor<32x64xbf16>) -> tensor<6x64xbf16> {
  %y = hl.matmul %x, %w : (tensor<6x32xbf16>, tensor<32x64xbf16>) -> tensor<6x64xbf16>
  func.return %y : tensor<6x64xbf16>
}

// -----

// f16 also accumulates in f32 (as torch does), not compute_16f.
// CHECK-LABEL: func.func @plain_f16
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 7 : i64, n = 3 : i64, k = 5 : i64, lda = 7 : i64, ldb = 5 : i64, ldc = 7 : i64, ldd = 7 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<5x7xf16>, tensor<3x5xf16> -> tensor<3x7xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3x7xf16>
func.func @plain_f16(%x: tensor<3x5xf16>, %w: tensor<5x7xf16>) -> tensor<3x7xf16> {
  %y = hl.matmul %x, %w : (tensor<3x5xf16>, tensor<5x7xf16>) -> tensor<3x7xf16>
  func.return %y : tensor<3x7xf16>
}

// -----

// f64 uses cuBLASLt's compute_64f row with an f64 scale.
// CHECK-LABEL: func.func @plain_f64
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 4 : i64, n = 2 : i64, k = 3 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 4 : i64, ldd = 4 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f64>, b_dtype = #cublaslt<dtype f64>, c_dtype = #cublaslt<dtype f64>, d_dtype = #cublaslt<dtype f64>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_64f>, scale_type = #cublaslt<dtype f64>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<3x4xf64>, tensor<2x3xf64> -> tensor<2x4xf64>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x4xf64>
func.func @plain_f64(%x: tensor<2x3xf64>, %w: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %y = hl.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  func.return %y : tensor<2x4xf64>
}

// -----

// Every hl.matmul of a function is lowered, in order; the other ops stay.
// CHECK-LABEL: func.func @two_matmuls
// CHECK-NEXT:    %[[H:.*]] = cublaslt.matmul %w1, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<8x16xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %[[R:.*]] = hl.relu %[[H]] : tensor<4x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w2, %[[R]] {m = 8 : i64, n = 4 : i64, k = 16 : i64, lda = 8 : i64, ldb = 16 : i64, ldc = 8 : i64, ldd = 8 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<16x8xf32>, tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x8xf32>
func.func @two_matmuls(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %h = hl.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %r = hl.relu %h : tensor<4x16xf32> -> tensor<4x16xf32>
  %y = hl.matmul %r, %w2 : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
