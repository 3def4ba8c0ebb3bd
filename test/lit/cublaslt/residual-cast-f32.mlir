// RUN: lumir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lumir-opt %s --split-input-file --verify-diagnostics --disable-verify -p cublaslt-verify | filecheck %s

// The motivating case of docs/design.md: the cast-to-F32 fusion with a residual in C.
// C and D share a dtype in cuBLASLt, so writing f32 with beta = 1 needs an f32 C.

// The bug: Y = X W^T + R on a Llama-3.2-1B layer, fused into one call writing f32, kept
// the bf16 residual R as C under c_dtype = f32. cuBLASLt would read 2-byte values as
// 4-byte floats.
func.func @residual_bf16_as_f32(%w: tensor<2048x2048xbf16>, %x: tensor<6x2048xbf16>, %r: tensor<6x2048xbf16>) -> tensor<6x2048xf32> {
  // expected-error @+1 {{V4: beta = 1.0 reads C as f32, but operand C is tensor<6x2048xbf16>}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<6x2048xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 2048, n = 6, k = 2048, lda = 2048, ldb = 2048, ldc = 2048, ldd = 2048,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<2048x2048xbf16>, tensor<6x2048xbf16> -> tensor<6x2048xf32>
  func.return %d : tensor<6x2048xf32>
}

// -----

// The fix: cast C to f32 and put the cast in the input list.
// CHECK-LABEL: func.func @residual_cast_to_f32
// CHECK: %[[C:.*]] = hl.cast %r : tensor<6x2048xbf16> -> tensor<6x2048xf32>
// CHECK: cublaslt.matmul %w, %x c(%[[C]] : tensor<6x2048xf32>)
func.func @residual_cast_to_f32(%w: tensor<2048x2048xbf16>, %x: tensor<6x2048xbf16>, %r: tensor<6x2048xbf16>) -> tensor<6x2048xf32> {
  %c = hl.cast %r : tensor<6x2048xbf16> -> tensor<6x2048xf32>
  %d = cublaslt.matmul %w, %x c(%c : tensor<6x2048xf32>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 2048, n = 6, k = 2048, lda = 2048, ldb = 2048, ldc = 2048, ldd = 2048,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<2048x2048xbf16>, tensor<6x2048xbf16> -> tensor<6x2048xf32>
  func.return %d : tensor<6x2048xf32>
}
