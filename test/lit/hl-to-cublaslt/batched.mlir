// RUN: lumir-opt %s -p hl-to-cublaslt --split-input-file | filecheck %s

// bmm: 3-D x 3-D is a strided batch, each operand's stride R*C (A: 8*16, B: 4*8, D: 4*16).
// CHECK-LABEL: func.func @bmm
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 3 : i64, stride_a = 128 : i64, stride_b = 32 : i64, stride_c = 64 : i64, stride_d = 64 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<3x8x16xbf16>, tensor<3x4x8xbf16> -> tensor<3x4x16xbf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3x4x16xbf16>
func.func @bmm(%x: tensor<3x4x8xbf16>, %w: tensor<3x8x16xbf16>) -> tensor<3x4x16xbf16> {
  %y = hl.matmul %x, %w : (tensor<3x4x8xbf16>, tensor<3x8x16xbf16>) -> tensor<3x4x16xbf16>
  func.return %y : tensor<3x4x16xbf16>
}

// -----

// A 3-D input times a shared 2-D weight (a Linear layer on [B, S, K]): [B, S, K] is
// reshaped to [B*S, K] for one GEMM, and the result back to [B, S, N].
// CHECK-LABEL: func.func @batched_lhs_shared_weight
// CHECK-NEXT:    %[[ROWS:.*]] = hl.reshape %x : tensor<2x3x8xf32> -> tensor<6x8xf32>
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %[[ROWS]] {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<16x8xf32>, tensor<6x8xf32> -> tensor<6x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = hl.reshape %[[D]] : tensor<6x16xf32> -> tensor<2x3x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3x16xf32>
func.func @batched_lhs_shared_weight(%x: tensor<2x3x8xf32>, %w: tensor<16x8xf32>) -> tensor<2x3x16xf32> {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %y = hl.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<8x16xf32>) -> tensor<2x3x16xf32>
  func.return %y : tensor<2x3x16xf32>
}

// -----

// A shared 2-D lhs times a batched rhs: a strided batch where B = X has stride 0.
// CHECK-LABEL: func.func @shared_lhs_batched_rhs
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 3 : i64, stride_a = 128 : i64, stride_b = 0 : i64, stride_c = 64 : i64, stride_d = 64 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<3x8x16xf16>, tensor<4x8xf16> -> tensor<3x4x16xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3x4x16xf16>
func.func @shared_lhs_batched_rhs(%x: tensor<4x8xf16>, %w: tensor<3x8x16xf16>) -> tensor<3x4x16xf16> {
  %y = hl.matmul %x, %w : (tensor<4x8xf16>, tensor<3x8x16xf16>) -> tensor<3x4x16xf16>
  func.return %y : tensor<3x4x16xf16>
}

// -----

// A batched lhs read transposed cannot be flattened into rows (its rows are not
// contiguous), so this stays a strided batch with the shared weight at stride 0.
// CHECK-LABEL: func.func @transposed_batched_lhs_shared_rhs
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 4 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 3 : i64, stride_a = 0 : i64, stride_b = 32 : i64, stride_c = 64 : i64, stride_d = 64 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans t>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<8x16xf32>, tensor<3x8x4xf32> -> tensor<3x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3x4x16xf32>
func.func @transposed_batched_lhs_shared_rhs(%x: tensor<3x8x4xf32>, %w: tensor<8x16xf32>) -> tensor<3x4x16xf32> {
  %xt = hl.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<3x8x4xf32> -> tensor<3x4x8xf32>
  %y = hl.matmul %xt, %w : (tensor<3x4x8xf32>, tensor<8x16xf32>) -> tensor<3x4x16xf32>
  func.return %y : tensor<3x4x16xf32>
}

// -----

// Attention scores q @ k^T on [B, H, L, E]: the batch dims flatten to B*H = 6, the
// key's last-two-dims transpose folds into transa, and the result is reshaped back.
// CHECK-LABEL: func.func @attention_scores
// CHECK-NEXT:    %[[Q3:.*]] = hl.reshape %q : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
// CHECK-NEXT:    %[[K3:.*]] = hl.reshape %k : tensor<2x3x5x8xf32> -> tensor<6x5x8xf32>
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %[[K3]], %[[Q3]] {m = 5 : i64, n = 4 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 5 : i64, ldd = 5 : i64,
// CHECK-SAME:      batch_count = 6 : i64, stride_a = 40 : i64, stride_b = 32 : i64, stride_c = 20 : i64, stride_d = 20 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<6x5x8xf32>, tensor<6x4x8xf32> -> tensor<6x4x5xf32>
// CHECK-NEXT:    %[[S:.*]] = hl.reshape %[[D]] : tensor<6x4x5xf32> -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<2x3x4x5xf32>
func.func @attention_scores(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x5x8xf32>) -> tensor<2x3x4x5xf32> {
  %kt = hl.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x3x5x8xf32> -> tensor<2x3x8x5xf32>
  %s = hl.matmul %q, %kt : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %s : tensor<2x3x4x5xf32>
}

// -----

// Batch dims that broadcast only in part (lhs [2, 1], rhs [3] -> [2, 3]) are materialised
// with hl.expand, as torch's matmul does, then flattened to one batch of 6.
// CHECK-LABEL: func.func @partial_broadcast
// CHECK-NEXT:    %[[XE:.*]] = hl.expand %x : tensor<2x1x4x8xf32> -> tensor<2x3x4x8xf32>
// CHECK-NEXT:    %[[X3:.*]] = hl.reshape %[[XE]] : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
// CHECK-NEXT:    %[[WE:.*]] = hl.expand %w : tensor<3x8x16xf32> -> tensor<2x3x8x16xf32>
// CHECK-NEXT:    %[[W3:.*]] = hl.reshape %[[WE]] : tensor<2x3x8x16xf32> -> tensor<6x8x16xf32>
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %[[W3]], %[[X3]] {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 6 : i64, stride_a = 128 : i64, stride_b = 32 : i64, stride_c = 64 : i64, stride_d = 64 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<6x8x16xf32>, tensor<6x4x8xf32> -> tensor<6x4x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = hl.reshape %[[D]] : tensor<6x4x16xf32> -> tensor<2x3x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3x4x16xf32>
func.func @partial_broadcast(%x: tensor<2x1x4x8xf32>, %w: tensor<3x8x16xf32>) -> tensor<2x3x4x16xf32> {
  %y = hl.matmul %x, %w : (tensor<2x1x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x3x4x16xf32>
  func.return %y : tensor<2x3x4x16xf32>
}

// -----

// A batch of one is a plain call: batch_count 1, every stride 0, no reshape.
// CHECK-LABEL: func.func @batch_of_one
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<1x8x16xf32>, tensor<1x4x8xf32> -> tensor<1x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x16xf32>
func.func @batch_of_one(%x: tensor<1x4x8xf32>, %w: tensor<1x8x16xf32>) -> tensor<1x4x16xf32> {
  %y = hl.matmul %x, %w : (tensor<1x4x8xf32>, tensor<1x8x16xf32>) -> tensor<1x4x16xf32>
  func.return %y : tensor<1x4x16xf32>
}

// -----

// Unit batch dims of rank > 3 are reshaped away; the batch of one is a plain GEMM.
// CHECK-LABEL: func.func @unit_batch_rank4
// CHECK-NEXT:    %[[X2:.*]] = hl.reshape %x : tensor<1x1x4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %[[X2]] {m = 16 : i64, n = 4 : i64, k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<8x16xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = hl.reshape %[[D]] : tensor<4x16xf32> -> tensor<1x1x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x1x4x16xf32>
func.func @unit_batch_rank4(%x: tensor<1x1x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x1x4x16xf32> {
  %y = hl.matmul %x, %w : (tensor<1x1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x1x4x16xf32>
  func.return %y : tensor<1x1x4x16xf32>
}
