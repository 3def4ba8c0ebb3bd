// RUN: lumir-opt %s -p hl-to-cublaslt --split-input-file | filecheck %s

// A Linear weight W[N,K] read through a transpose: A = W with transa = t and lda = K;
// the transpose, now unused, is erased.
// CHECK-LABEL: func.func @rhs_transposed
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<16x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x16xf32>
func.func @rhs_transposed(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %y = hl.matmul %x, %wt : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// X^T @ W with X[K,M]: B = X with transb = t and ldb = M.
// CHECK-LABEL: func.func @lhs_transposed
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 4 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans t>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<8x16xbf16>, tensor<8x4xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x16xbf16>
func.func @lhs_transposed(%x: tensor<8x4xbf16>, %w: tensor<8x16xbf16>) -> tensor<4x16xbf16> {
  %xt = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<8x4xbf16> -> tensor<4x8xbf16>
  %y = hl.matmul %xt, %w : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  func.return %y : tensor<4x16xbf16>
}

// -----

// Both operands transposed, and one of the transposes has another use: that one stays.
// CHECK-LABEL: func.func @both_transposed_one_shared
// CHECK-NEXT:    %[[XT:.*]] = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<8x4xf16> -> tensor<4x8xf16>
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 4 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans t>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<16x8xf16>, tensor<8x4xf16> -> tensor<4x16xf16>
// CHECK-NEXT:    func.return %[[Y]], %[[XT]] : tensor<4x16xf16>, tensor<4x8xf16>
func.func @both_transposed_one_shared(%x: tensor<8x4xf16>, %w: tensor<16x8xf16>) -> (tensor<4x16xf16>, tensor<4x8xf16>) {
  %xt = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<8x4xf16> -> tensor<4x8xf16>
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf16> -> tensor<8x16xf16>
  %y = hl.matmul %xt, %wt : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  func.return %y, %xt : tensor<4x16xf16>, tensor<4x8xf16>
}

// -----

// x @ x^T reads one tensor as both operands.
// CHECK-LABEL: func.func @gram
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %x, %x {m = 4 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 4 : i64, ldd = 4 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x4xf32>
func.func @gram(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %xt = hl.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %y = hl.matmul %x, %xt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

// Refused fold: this transpose moves a batch dimension, which no trans flag expresses;
// it stays a real transpose and the call reads its result.
// CHECK-LABEL: func.func @batch_permutation_not_folded
// CHECK-NEXT:    %[[XP:.*]] = hl.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %[[XP]] {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 2 : i64, stride_a = 128 : i64, stride_b = 32 : i64, stride_c = 64 : i64, stride_d = 64 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<2x8x16xf32>, tensor<2x4x8xf32> -> tensor<2x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x4x16xf32>
func.func @batch_permutation_not_folded(%x: tensor<4x2x8xf32>, %w: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %xp = hl.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
  %y = hl.matmul %xp, %w : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  func.return %y : tensor<2x4x16xf32>
}
