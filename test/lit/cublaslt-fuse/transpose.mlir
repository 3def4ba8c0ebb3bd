// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{disable=transpose}' | filecheck %s --check-prefix=OFF

// Transpose folding: an operand produced by an hl.transpose that swaps its last two
// dimensions is read through the flipped trans flag from the transpose's input, and the
// descriptor is rebuilt from the new operand's shape (lda/ldb, strides).

// Folding into A: the call reads %w with transa = t and lda = 8 (the leading dimension
// of %w, not of %wt), and the transpose disappears.
// CHECK-LABEL: func.func @fold_a
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL: func.func @fold_a
// OFF:         cublaslt.matmul %wt, %x {{.*}}transa = #cublaslt<trans n>
func.func @fold_a(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %y = cublaslt.matmul %wt, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 16, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<8x16xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}

// -----

// The transpose has another user, so it runs anyway: reading %w or %wt costs the same,
// and on a tie the input's own call is kept.
// CHECK-LABEL: func.func @transpose_used_elsewhere
// CHECK-NEXT:    %[[WT:.*]] = hl.transpose %w
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %[[WT]], %x {{.*}}transa = #cublaslt<trans n>
// CHECK-NEXT:    func.return %[[Y]], %[[WT]]
func.func @transpose_used_elsewhere(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> (tensor<6x16xbf16>, tensor<8x16xbf16>) {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %y = cublaslt.matmul %wt, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 16, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<8x16xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  func.return %y, %wt : tensor<6x16xbf16>, tensor<8x16xbf16>
}

// -----

// Folding into B; the transpose has no other user and disappears.
// CHECK-LABEL: func.func @fold_b
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %xt {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 6 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans t>,
// CHECK-SAME:      : tensor<16x8xbf16>, tensor<8x6xbf16> -> tensor<6x16xbf16>
// CHECK-NEXT:    func.return %[[Y]]
func.func @fold_b(%w: tensor<16x8xbf16>, %xt: tensor<8x6xbf16>) -> tensor<6x16xbf16> {
  %x = hl.transpose %xt {permutation = array<i64: 1, 0>} : tensor<8x6xbf16> -> tensor<6x8xbf16>
  %y = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}

// -----

// A batch of matrices transposed with [0, 2, 1] folds the same way: ldb = 6 and the
// batch stride of %xt is 8 * 6 = 48.
// CHECK-LABEL: func.func @fold_batched
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %xt {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 6 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 3 : i64, stride_a = 0 : i64, stride_b = 48 : i64, stride_c = 96 : i64, stride_d = 96 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans t>,
// CHECK-SAME:      : tensor<16x8xf32>, tensor<3x8x6xf32> -> tensor<3x6x16xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @fold_batched(%w: tensor<16x8xf32>, %xt: tensor<3x8x6xf32>) -> tensor<3x6x16xf32> {
  %x = hl.transpose %xt {permutation = array<i64: 0, 2, 1>} : tensor<3x8x6xf32> -> tensor<3x6x8xf32>
  %y = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 3, stride_a = 0, stride_b = 48, stride_c = 96, stride_d = 96,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf32>, tensor<3x6x8xf32> -> tensor<3x6x16xf32>
  func.return %y : tensor<3x6x16xf32>
}

// -----

// Refused: [1, 0, 2] moves the batch dimension; no trans flag can express it.
// CHECK-LABEL: func.func @batch_moving_permutation
// CHECK-NEXT:    %[[X:.*]] = hl.transpose %xt
// CHECK-NEXT:    cublaslt.matmul %w, %[[X]]
// CHECK-NOT:     transb = #cublaslt<trans t>
// CHECK-NEXT:    func.return
func.func @batch_moving_permutation(%w: tensor<16x8xf32>, %xt: tensor<6x3x8xf32>) -> tensor<3x6x16xf32> {
  %x = hl.transpose %xt {permutation = array<i64: 1, 0, 2>} : tensor<6x3x8xf32> -> tensor<3x6x8xf32>
  %y = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 3, stride_a = 0, stride_b = 48, stride_c = 96, stride_d = 96,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf32>, tensor<3x6x8xf32> -> tensor<3x6x16xf32>
  func.return %y : tensor<3x6x16xf32>
}
