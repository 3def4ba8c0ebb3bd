// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{disable=bias}' | filecheck %s --check-prefix=OFF

// Bias epilogue: matmul + bias[N] (broadcast along the rows of the row-major [M, N]
// result) is the BIAS epilogue, with the bias along m of the column-major view.

// CHECK-LABEL: func.func @bias
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {m = 16 : i64, n = 6 : i64,
// CHECK-SAME:      epilogue = #cublaslt<epilogue bias>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL: func.func @bias
// OFF:         hl.add
func.func @bias(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.add %mm, %b : (tensor<6x16xbf16>, tensor<16xbf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// The bias may be the left operand.
// CHECK-LABEL: func.func @bias_on_the_left
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xf16>) {{.*}}epilogue = #cublaslt<epilogue bias>
// CHECK-NEXT:    func.return %[[Y]]
func.func @bias_on_the_left(%w: tensor<16x8xf16>, %x: tensor<6x8xf16>, %b: tensor<16xf16>) -> tensor<6x16xf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf16>, tensor<6x8xf16> -> tensor<6x16xf16>
  %y = hl.add %b, %mm : (tensor<16xf16>, tensor<6x16xf16>) -> tensor<6x16xf16>
  func.return %y : tensor<6x16xf16>
}
// -----

// A fused residual stays: cuBLASLt adds the bias after beta*C.
// CHECK-LABEL: func.func @bias_after_residual
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) bias(%b : tensor<16xbf16>) {{.*}}epilogue = #cublaslt<epilogue bias>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @bias_after_residual(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<6x16xbf16>, %b: tensor<16xbf16>) -> tensor<6x16xbf16> {
  %h = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.add %h, %b : (tensor<6x16xbf16>, tensor<16xbf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// Refused: with a ROW-order D, m counts the rows of the row-major result, so BIAS would
// add b[i] to row i instead of b[j] to column j. The verifier cannot tell (m = 16 is also
// the bias length here); the rule's order_d = col guard is what refuses it.
// CHECK-LABEL: func.func @row_major_d
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %x, %w {
// CHECK-NOT:     bias(
// CHECK-NEXT:    hl.add %[[MM]], %b
func.func @row_major_d(%x: tensor<16x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<16x16xf32> {
  %mm = cublaslt.matmul %x, %w {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>, order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
      m = 16, n = 16, k = 8, lda = 8, ldb = 16, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf32>, tensor<8x16xf32> -> tensor<16x16xf32>
  %y = hl.add %mm, %b : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  func.return %y : tensor<16x16xf32>
}
// -----

// Refused: a bias of length 1 broadcasts along N; BIAS needs length m = 16.
// CHECK-LABEL: func.func @bias_of_length_one
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {
// CHECK-NEXT:    hl.add %[[MM]], %b
func.func @bias_of_length_one(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<1xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.add %mm, %b : (tensor<6x16xbf16>, tensor<1xbf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// Refused: the call already adds a bias.
// CHECK-LABEL: func.func @second_bias
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>)
// CHECK-NEXT:    hl.add %[[MM]], %b2
func.func @second_bias(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<16xbf16>, %b2: tensor<16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.add %mm, %b2 : (tensor<6x16xbf16>, tensor<16xbf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
