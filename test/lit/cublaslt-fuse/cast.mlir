// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{disable=cast}' | filecheck %s --check-prefix=OFF

// Cast-to-F32 output: Cast(bf16/f16 call, f32) is the same call writing f32. C and D
// share a dtype (V3, V4) and the bias type follows D (V6), so a call that reads C or a
// bias reads them through an hl.cast to f32 in the new operand list.

// beta = 0: legal as is, only c_dtype and d_dtype change.
// CHECK-LABEL: func.func @cast_to_f32(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64,
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xf32>
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL: func.func @cast_to_f32(
// OFF:         hl.cast
func.func @cast_to_f32(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xf32> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.cast %mm : tensor<6x16xbf16> -> tensor<6x16xf32>
  func.return %y : tensor<6x16xf32>
}
// -----

// beta = 1: C is read as f32 through a cast of the residual (the program already casts
// it, so the cast costs nothing extra and the fused call wins).
// CHECK-LABEL: func.func @cast_to_f32_with_c(
// CHECK-NEXT:    %[[RF:.*]] = hl.cast %r : tensor<6x16xbf16> -> tensor<6x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x c(%[[RF]] : tensor<6x16xf32>) {m = 16 : i64,
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]], %[[RF]]
func.func @cast_to_f32_with_c(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %r: tensor<6x16xbf16>) -> (tensor<6x16xf32>, tensor<6x16xf32>) {
  %h = cublaslt.matmul %w, %x c(%r : tensor<6x16xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.cast %h : tensor<6x16xbf16> -> tensor<6x16xf32>
  %rf = hl.cast %r : tensor<6x16xbf16> -> tensor<6x16xf32>
  func.return %y, %rf : tensor<6x16xf32>, tensor<6x16xf32>
}
// -----

// A bias epilogue reads the bias as D's type: the bias is cast to f32 too.
// CHECK-LABEL: func.func @cast_to_f32_with_bias(
// CHECK-NEXT:    %[[BF:.*]] = hl.cast %b : tensor<16xf16> -> tensor<16xf32>
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x bias(%[[BF]] : tensor<16xf32>) {m = 16 : i64,
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      epilogue = #cublaslt<epilogue gelu_bias>
// CHECK-NEXT:    func.return %[[Y]]
func.func @cast_to_f32_with_bias(%w: tensor<16x8xf16>, %x: tensor<6x8xf16>, %b: tensor<16xf16>) -> tensor<6x16xf32> {
  %mm = cublaslt.matmul %w, %x bias(%b : tensor<16xf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu_bias>
  } : tensor<16x8xf16>, tensor<6x8xf16> -> tensor<6x16xf16>
  %y = hl.cast %mm : tensor<6x16xf16> -> tensor<6x16xf32>
  func.return %y : tensor<6x16xf32>
}
// -----

// Refused: only a cast to f32 is a call writing f32.
// CHECK-LABEL: func.func @cast_to_f16(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x
// CHECK-NEXT:    hl.cast %[[MM]] : tensor<6x16xbf16> -> tensor<6x16xf16>
func.func @cast_to_f16(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.cast %mm : tensor<6x16xbf16> -> tensor<6x16xf16>
  func.return %y : tensor<6x16xf16>
}
// -----

// Refused: compute_16f accumulates in f16; writing f32 would need a different compute
// type, which changes more than the output rounding.
// CHECK-LABEL: func.func @compute_16f(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x
// CHECK-NEXT:    hl.cast %[[MM]] : tensor<6x16xf16> -> tensor<6x16xf32>
func.func @compute_16f(%w: tensor<16x8xf16>, %x: tensor<6x8xf16>) -> tensor<6x16xf32> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_16f>, scale_type = #cublaslt<dtype f16>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf16>, tensor<6x8xf16> -> tensor<6x16xf16>
  %y = hl.cast %mm : tensor<6x16xf16> -> tensor<6x16xf32>
  func.return %y : tensor<6x16xf32>
}
// -----

// Refused: the call is not half precision (f32 to f64 is not a cuBLASLt output type).
// CHECK-LABEL: func.func @f32_call(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x
// CHECK-NEXT:    hl.cast %[[MM]] : tensor<6x16xf32> -> tensor<6x16xf64>
func.func @f32_call(%w: tensor<16x8xf32>, %x: tensor<6x8xf32>) -> tensor<6x16xf64> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xf32>, tensor<6x8xf32> -> tensor<6x16xf32>
  %y = hl.cast %mm : tensor<6x16xf32> -> tensor<6x16xf64>
  func.return %y : tensor<6x16xf64>
}
