// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{disable=residual}' | filecheck %s --check-prefix=OFF

// Residual into beta*C: matmul + R becomes beta = 1 with C = R when R has exactly D's
// dtype and shape, the call reads no C yet, and its epilogue has no activation.

// CHECK-LABEL: func.func @residual
// CHECK-NEXT:    %[[H:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[H]]
// OFF-LABEL: func.func @residual
// OFF:         hl.add
func.func @residual(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<6x16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %h = hl.add %mm, %r : (tensor<6x16xbf16>, tensor<6x16xbf16>) -> tensor<6x16xbf16>
  func.return %h : tensor<6x16xbf16>
}
// -----

// The residual may be the left operand.
// CHECK-LABEL: func.func @residual_on_the_left
// CHECK-NEXT:    %[[H:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x16xf32>) {{.*}}beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[H]]
func.func @residual_on_the_left(%w: tensor<16x8xf32>, %x: tensor<6x8xf32>, %r: tensor<6x16xf32>) -> tensor<6x16xf32> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf32>, tensor<6x8xf32> -> tensor<6x16xf32>
  %h = hl.add %r, %mm : (tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<6x16xf32>
  func.return %h : tensor<6x16xf32>
}
// -----

// A bias epilogue stays: cuBLASLt adds the bias after beta*C, and addition reorders.
// CHECK-LABEL: func.func @residual_after_bias
// CHECK-NEXT:    %[[H:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) bias(%b : tensor<16xbf16>) {{.*}}epilogue = #cublaslt<epilogue bias>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[H]]
func.func @residual_after_bias(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<16xbf16>, %r: tensor<6x16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %h = hl.add %mm, %r : (tensor<6x16xbf16>, tensor<6x16xbf16>) -> tensor<6x16xbf16>
  func.return %h : tensor<6x16xbf16>
}
// -----

// Refused: gelu(AB) + R is not gelu(AB + R), which is what cuBLASLt would compute.
// CHECK-LABEL: func.func @after_an_activation
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {
// CHECK-NOT:     c(
// CHECK-NEXT:    hl.add %[[MM]], %r
func.func @after_an_activation(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<6x16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %h = hl.add %mm, %r : (tensor<6x16xbf16>, tensor<6x16xbf16>) -> tensor<6x16xbf16>
  func.return %h : tensor<6x16xbf16>
}
// -----

// Refused: a [1, 16] residual broadcasts; C must have D's shape.
// CHECK-LABEL: func.func @broadcast_residual
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {
// CHECK-NEXT:    hl.add %[[MM]], %r
func.func @broadcast_residual(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<1x16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %h = hl.add %mm, %r : (tensor<6x16xbf16>, tensor<1x16xbf16>) -> tensor<6x16xbf16>
  func.return %h : tensor<6x16xbf16>
}
// -----

// Refused: the call already reads C (beta = 1); a second residual stays an add.
// CHECK-LABEL: func.func @c_already_read
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>)
// CHECK-NEXT:    hl.add %[[MM]], %s
func.func @c_already_read(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<6x16xbf16>, %s: tensor<6x16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %h = hl.add %mm, %s : (tensor<6x16xbf16>, tensor<6x16xbf16>) -> tensor<6x16xbf16>
  func.return %h : tensor<6x16xbf16>
}
