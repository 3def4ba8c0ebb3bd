// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{disable=relu}' | filecheck %s --check-prefix=OFF

// ReLU epilogues: relu(alpha*AB + beta*C [+ bias]) is RELU (RELU_BIAS). cuBLASLt applies
// the activation last, after beta*C and the bias, so a fused residual may stay.

// CHECK-LABEL: func.func @relu(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {{.*}}epilogue = #cublaslt<epilogue relu>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL: func.func @relu(
// OFF:         hl.relu
func.func @relu(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.relu %mm : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// CHECK-LABEL: func.func @relu_bias(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {{.*}}epilogue = #cublaslt<epilogue relu_bias>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @relu_bias(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %z = hl.add %mm, %b : (tensor<6x16xbf16>, tensor<16xbf16>) -> tensor<6x16xbf16>
  %y = hl.relu %z : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// relu(AB + R) fuses with beta = 1: it is exactly the order cuBLASLt computes in.
// CHECK-LABEL: func.func @relu_of_residual(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) {{.*}}epilogue = #cublaslt<epilogue relu>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @relu_of_residual(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<6x16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %z = hl.add %mm, %r : (tensor<6x16xbf16>, tensor<6x16xbf16>) -> tensor<6x16xbf16>
  %y = hl.relu %z : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// Refused: RELU_BIAS with a ROW-order D is not supported by cuBLASLt (V7).
// CHECK-LABEL: func.func @relu_bias_row_major_d(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %x, %w bias(%b : tensor<16xf32>)
// CHECK-NOT:     relu_bias
// CHECK-NEXT:    hl.relu %[[MM]]
func.func @relu_bias_row_major_d(%x: tensor<16x8xf32>, %w: tensor<8x8xf32>, %b: tensor<16xf32>) -> tensor<16x8xf32> {
  %mm = cublaslt.matmul %x, %w bias(%b : tensor<16xf32>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>, order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
      m = 16, n = 8, k = 8, lda = 8, ldb = 8, ldc = 8, ldd = 8,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  %y = hl.relu %mm : tensor<16x8xf32> -> tensor<16x8xf32>
  func.return %y : tensor<16x8xf32>
}
// -----

// Refused: the call already applies gelu.
// CHECK-LABEL: func.func @relu_after_gelu(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x
// CHECK-NEXT:    hl.relu %[[MM]]
func.func @relu_after_gelu(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.relu %mm : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
