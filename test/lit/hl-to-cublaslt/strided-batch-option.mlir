// RUN: lumir-opt %s -p 'hl-to-cublaslt{flatten-batched-lhs=false}' | filecheck %s

// With flatten-batched-lhs=false, a batched lhs times a shared weight is a strided batch
// with the weight at stride 0, and D is the [B, S, N] result itself (no reshapes).
// CHECK-LABEL: func.func @batched_lhs_shared_weight
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {m = 16 : i64, n = 3 : i64, k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldc = 16 : i64, ldd = 16 : i64,
// CHECK-SAME:      batch_count = 2 : i64, stride_a = 0 : i64, stride_b = 24 : i64, stride_c = 48 : i64, stride_d = 48 : i64,
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-SAME:      : tensor<16x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3x16xf32>
func.func @batched_lhs_shared_weight(%x: tensor<2x3x8xf32>, %w: tensor<16x8xf32>) -> tensor<2x3x16xf32> {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %y = hl.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<8x16xf32>) -> tensor<2x3x16xf32>
  func.return %y : tensor<2x3x16xf32>
}
