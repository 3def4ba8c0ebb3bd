// RUN: lumir-opt %s -p hl-canonicalize,hl-to-cublaslt | filecheck %s

// The pipeline's first two passes on a Linear layer over [B, S, K]: hl-canonicalize
// splits it into transpose + matmul + add, hl-to-cublaslt folds the transpose into
// transa (lda = K) and flattens [B, S, K] to [B*S, K]; the bias add stays for the
// fusion pass.
// CHECK-LABEL: func.func @linear
// CHECK-NEXT:    %[[ROWS:.*]] = hl.reshape %x : tensor<2x3x8xbf16> -> tensor<6x8xbf16>
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %[[ROWS]] {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
// CHECK-NEXT:    %[[MM:.*]] = hl.reshape %[[D]] : tensor<6x16xbf16> -> tensor<2x3x16xbf16>
// CHECK-NEXT:    %[[Y:.*]] = hl.add %[[MM]], %b : (tensor<2x3x16xbf16>, tensor<16xbf16>) -> tensor<2x3x16xbf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3x16xbf16>
func.func @linear(%x: tensor<2x3x8xbf16>, %w: tensor<16x8xbf16>, %b: tensor<16xbf16>) -> tensor<2x3x16xbf16> {
  %y = hl.linear %x, %w bias(%b : tensor<16xbf16>) : tensor<2x3x8xbf16>, tensor<16x8xbf16> -> tensor<2x3x16xbf16>
  func.return %y : tensor<2x3x16xbf16>
}
