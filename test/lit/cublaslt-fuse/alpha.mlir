// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{families=relu}' | filecheck %s --check-prefix=OFF

// Alpha: a product with a splat constant becomes the call's scale factors,
// (alpha*AB + beta*C) * s = (alpha*s)*AB + (beta*s)*C, when the epilogue is DEFAULT and
// the product does not broadcast the result to a larger shape.

// CHECK-LABEL: func.func @scale_into_alpha
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {{.*}}epilogue = #cublaslt<epilogue default>, alpha = 5.000000e-01 : f64, beta = 0.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL: func.func @scale_into_alpha
// OFF:         hl.mul
func.func @scale_into_alpha(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %s = hl.constant {value = dense<5.000000e-01> : tensor<bf16>} : tensor<bf16>
  %y = hl.mul %mm, %s : (tensor<6x16xbf16>, tensor<bf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// The scalar may come first; the constant is removed once nothing reads it.
// CHECK-LABEL: func.func @scalar_on_the_left
// CHECK-NOT:     hl.constant
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {{.*}}alpha = 1.250000e-01 : f64, beta = 0.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @scalar_on_the_left(%w: tensor<16x8xf32>, %x: tensor<6x8xf32>) -> tensor<6x16xf32> {
  %s = hl.constant {value = dense<1.250000e-01> : tensor<f32>} : tensor<f32>
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf32>, tensor<6x8xf32> -> tensor<6x16xf32>
  %y = hl.mul %s, %mm : (tensor<f32>, tensor<6x16xf32>) -> tensor<6x16xf32>
  func.return %y : tensor<6x16xf32>
}
// -----

// beta != 0: the factor scales beta too, or s*C would be left out.
// CHECK-LABEL: func.func @scale_alpha_and_beta
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) {{.*}}alpha = -2.000000e+00 : f64, beta = -2.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @scale_alpha_and_beta(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<6x16xbf16>) -> tensor<6x16xbf16> {
  %h = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %s = hl.constant {value = dense<-2.000000e+00> : tensor<bf16>} : tensor<bf16>
  %y = hl.mul %h, %s : (tensor<6x16xbf16>, tensor<bf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// Refused: a constant with different elements is not a scale factor.
// CHECK-LABEL: func.func @not_a_splat
// CHECK:         %[[MM:.*]] = cublaslt.matmul %w, %x {{.*}}alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64
// CHECK-NEXT:    hl.mul %[[MM]], %s
func.func @not_a_splat(%w: tensor<4x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x4xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 4, n = 6, k = 8, lda = 8, ldb = 8, ldc = 4, ldd = 4,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<4x8xbf16>, tensor<6x8xbf16> -> tensor<6x4xbf16>
  %s = hl.constant {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xbf16>} : tensor<4xbf16>
  %y = hl.mul %mm, %s : (tensor<6x4xbf16>, tensor<4xbf16>) -> tensor<6x4xbf16>
  func.return %y : tensor<6x4xbf16>
}
// -----

// Refused: cuBLASLt applies alpha before the activation, so s would not scale relu's output.
// CHECK-LABEL: func.func @after_an_activation
// CHECK:         %[[MM:.*]] = cublaslt.matmul %w, %x
// CHECK-NOT:     alpha = 5.000000e-01
// CHECK-NEXT:    hl.mul %[[MM]], %s
func.func @after_an_activation(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %s = hl.constant {value = dense<5.000000e-01> : tensor<bf16>} : tensor<bf16>
  %y = hl.mul %mm, %s : (tensor<6x16xbf16>, tensor<bf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// Refused: the product broadcasts [1, 16] to [6, 16]; the call cannot write that shape.
// CHECK-LABEL: func.func @scale_broadcasts_the_result
// CHECK:         %[[MM:.*]] = cublaslt.matmul %w, %x
// CHECK-NOT:     alpha = 5.000000e-01
// CHECK-NEXT:    hl.mul %[[MM]], %s
func.func @scale_broadcasts_the_result(%w: tensor<16x8xbf16>, %x: tensor<1x8xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 1, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<1x8xbf16> -> tensor<1x16xbf16>
  %s = hl.constant {value = dense<5.000000e-01> : tensor<6x1xbf16>} : tensor<6x1xbf16>
  %y = hl.mul %mm, %s : (tensor<1x16xbf16>, tensor<6x1xbf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
// -----

// Refused: a tensor argument is not a known constant.
// CHECK-LABEL: func.func @not_a_constant
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x
// CHECK-NEXT:    hl.mul %[[MM]], %s
func.func @not_a_constant(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %s: tensor<bf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.mul %mm, %s : (tensor<6x16xbf16>, tensor<bf16>) -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
