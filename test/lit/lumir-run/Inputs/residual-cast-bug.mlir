// docs/design.md's bug: Cast(matmul + R, f32) fused into one call that writes f32, keeping
// the bf16 residual R as C under c_dtype = f32 (a V4 violation).
func.func @block(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xf32> {
  %y = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<32x16xbf16>, tensor<8x16xbf16> -> tensor<8x32xf32>
  func.return %y : tensor<8x32xf32>
}
