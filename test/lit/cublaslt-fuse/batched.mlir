// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{disable=batched}' | filecheck %s --check-prefix=OFF

// Batched forms. A 3-D strided-batch call fuses through the same rules (the bias runs
// along the last dimension of every matrix; a residual must have D's whole 3-D shape).
// A Linear layer on [B, S, K] runs as one [B*S, K] GEMM between hl.reshape views: the
// `batched` family moves the bias, residual, activation, scale and cast inside the view.

// CHECK-LABEL: func.func @strided_batch_bias(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 3 : i64, stride_a = 128 : i64, stride_b = 48 : i64, stride_c = 96 : i64, stride_d = 96 : i64,
// CHECK-SAME:      epilogue = #cublaslt<epilogue bias>
// CHECK-NEXT:    func.return %[[Y]]
func.func @strided_batch_bias(%w: tensor<3x16x8xbf16>, %x: tensor<3x6x8xbf16>, %b: tensor<16xbf16>) -> tensor<3x6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 3, stride_a = 128, stride_b = 48, stride_c = 96, stride_d = 96,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<3x16x8xbf16>, tensor<3x6x8xbf16> -> tensor<3x6x16xbf16>
  %y = hl.add %mm, %b : (tensor<3x6x16xbf16>, tensor<16xbf16>) -> tensor<3x6x16xbf16>
  func.return %y : tensor<3x6x16xbf16>
}
// -----

// The shared 2-D weight keeps stride 0; C is a strided batch like D.
// CHECK-LABEL: func.func @strided_batch_residual_relu(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x c(%r : tensor<3x6x16xbf16>) {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 3 : i64, stride_a = 0 : i64, stride_b = 48 : i64, stride_c = 96 : i64, stride_d = 96 : i64,
// CHECK-SAME:      epilogue = #cublaslt<epilogue relu>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @strided_batch_residual_relu(%w: tensor<16x8xbf16>, %x: tensor<3x6x8xbf16>, %r: tensor<3x6x16xbf16>) -> tensor<3x6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 3, stride_a = 0, stride_b = 48, stride_c = 96, stride_d = 96,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<3x6x8xbf16> -> tensor<3x6x16xbf16>
  %h = hl.add %r, %mm : (tensor<3x6x16xbf16>, tensor<3x6x16xbf16>) -> tensor<3x6x16xbf16>
  %y = hl.relu %h : tensor<3x6x16xbf16> -> tensor<3x6x16xbf16>
  func.return %y : tensor<3x6x16xbf16>
}
// -----

// relu(view(AB) + b + R): the residual is viewed as [6, 16] and read as C.
// CHECK-LABEL: func.func @linear_between_views(
// CHECK-NEXT:    %[[X2:.*]] = hl.reshape %x : tensor<2x3x8xbf16> -> tensor<6x8xbf16>
// CHECK-NEXT:    %[[R2:.*]] = hl.reshape %r : tensor<2x3x16xbf16> -> tensor<6x16xbf16>
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %[[X2]] c(%[[R2]] : tensor<6x16xbf16>) bias(%b : tensor<16xbf16>) {{.*}}epilogue = #cublaslt<epilogue relu_bias>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[Y:.*]] = hl.reshape %[[D]] : tensor<6x16xbf16> -> tensor<2x3x16xbf16>
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL: func.func @linear_between_views(
// OFF:         epilogue = #cublaslt<epilogue default>
// OFF:         hl.relu
func.func @linear_between_views(%w: tensor<16x8xbf16>, %x: tensor<2x3x8xbf16>, %b: tensor<16xbf16>, %r: tensor<2x3x16xbf16>) -> tensor<2x3x16xbf16> {
  %x2 = hl.reshape %x : tensor<2x3x8xbf16> -> tensor<6x8xbf16>
  %mm = cublaslt.matmul %w, %x2 {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %mm3 = hl.reshape %mm : tensor<6x16xbf16> -> tensor<2x3x16xbf16>
  %z = hl.add %mm3, %b : (tensor<2x3x16xbf16>, tensor<16xbf16>) -> tensor<2x3x16xbf16>
  %h = hl.add %z, %r : (tensor<2x3x16xbf16>, tensor<2x3x16xbf16>) -> tensor<2x3x16xbf16>
  %y = hl.relu %h : tensor<2x3x16xbf16> -> tensor<2x3x16xbf16>
  func.return %y : tensor<2x3x16xbf16>
}
// -----

// A 0-d scale and a cast to f32 move inside the view too.
// CHECK-LABEL: func.func @scale_and_cast_through_view(
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %x {{.*}}c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, {{.*}}alpha = 2.500000e-01 : f64, beta = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[Y:.*]] = hl.reshape %[[D]] : tensor<6x16xf32> -> tensor<2x3x16xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @scale_and_cast_through_view(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<2x3x16xf32> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %mm3 = hl.reshape %mm : tensor<6x16xbf16> -> tensor<2x3x16xbf16>
  %s = hl.constant {value = dense<2.500000e-01> : tensor<bf16>} : tensor<bf16>
  %z = hl.mul %s, %mm3 : (tensor<bf16>, tensor<2x3x16xbf16>) -> tensor<2x3x16xbf16>
  %y = hl.cast %z : tensor<2x3x16xbf16> -> tensor<2x3x16xf32>
  func.return %y : tensor<2x3x16xf32>
}
// -----

// Refused: a [6, 16] residual broadcast over the batch is not a C of D's shape.
// CHECK-LABEL: func.func @residual_broadcast_over_batch(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {
// CHECK-NEXT:    hl.add %[[MM]], %r
func.func @residual_broadcast_over_batch(%w: tensor<16x8xbf16>, %x: tensor<3x6x8xbf16>, %r: tensor<6x16xbf16>) -> tensor<3x6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 3, stride_a = 0, stride_b = 48, stride_c = 96, stride_d = 96,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<3x6x8xbf16> -> tensor<3x6x16xbf16>
  %h = hl.add %mm, %r : (tensor<3x6x16xbf16>, tensor<6x16xbf16>) -> tensor<3x6x16xbf16>
  func.return %h : tensor<3x6x16xbf16>
}
// -----

// Refused: the view changes the last dimension (16 -> 48), so the bias does not run
// along the call's m.
// CHECK-LABEL: func.func @view_changes_last_dim(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {
// CHECK-NEXT:    %[[V:.*]] = hl.reshape %[[MM]]
// CHECK-NEXT:    hl.add %[[V]], %b
func.func @view_changes_last_dim(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<48xbf16>) -> tensor<2x48xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %v = hl.reshape %mm : tensor<6x16xbf16> -> tensor<2x48xbf16>
  %y = hl.add %v, %b : (tensor<2x48xbf16>, tensor<48xbf16>) -> tensor<2x48xbf16>
  func.return %y : tensor<2x48xbf16>
}

// -----

// A view and its inverse are the tensor itself (the identity-view rule makes the e-graph
// cyclic: the extractor must not follow the cycle), so relu reaches the call.
// CHECK-LABEL: func.func @views_that_cancel(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {{.*}}epilogue = #cublaslt<epilogue relu>
// CHECK-NEXT:    func.return %[[Y]]
func.func @views_that_cancel(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %v = hl.reshape %mm : tensor<6x16xbf16> -> tensor<2x48xbf16>
  %back = hl.reshape %v : tensor<2x48xbf16> -> tensor<6x16xbf16>
  %y = hl.relu %back : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
