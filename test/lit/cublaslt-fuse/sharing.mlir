// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s

// No fusion that duplicates work: a fused call recomputes its GEMM, so when the plain
// result is still needed elsewhere the extractor keeps one GEMM and separate kernels,
// unless the roofline cost model (lumir/egraph_bridge/cost_model.py) says running the
// GEMM again is cheaper than the extra launches.

// The plain result is returned too: fusing relu would run the 8 MiB-weight GEMM twice
// (about 5 us) to save one relu launch (about 3 us).
// CHECK-LABEL: func.func @matmul_also_returned(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {
// CHECK-NOT:     cublaslt.matmul
// CHECK:         %[[Y:.*]] = hl.relu %[[MM]]
// CHECK-NEXT:    func.return %[[Y]], %[[MM]]
func.func @matmul_also_returned(%w: tensor<2048x2048xbf16>, %x: tensor<6x2048xbf16>) -> (tensor<6x2048xbf16>, tensor<6x2048xbf16>) {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 2048, n = 6, k = 2048, lda = 2048, ldb = 2048, ldc = 2048, ldd = 2048,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<2048x2048xbf16>, tensor<6x2048xbf16> -> tensor<6x2048xbf16>
  %y = hl.relu %mm : tensor<6x2048xbf16> -> tensor<6x2048xbf16>
  func.return %y, %mm : tensor<6x2048xbf16>, tensor<6x2048xbf16>
}
// -----

// Two consumers that could each fuse: fusing both would run a 32 MiB-weight GEMM twice;
// one GEMM and two small kernels is cheaper, so neither fuses.
// CHECK-LABEL: func.func @two_consumers_large_weight(
// CHECK-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {
// CHECK-NOT:     cublaslt.matmul
// CHECK:         hl.relu %[[MM]]
// CHECK-NEXT:    hl.add %[[MM]], %r
func.func @two_consumers_large_weight(%w: tensor<8192x2048xbf16>, %x: tensor<6x2048xbf16>, %r: tensor<6x8192xbf16>) -> (tensor<6x8192xbf16>, tensor<6x8192xbf16>) {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 8192, n = 6, k = 2048, lda = 2048, ldb = 2048, ldc = 8192, ldd = 8192,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<8192x2048xbf16>, tensor<6x2048xbf16> -> tensor<6x8192xbf16>
  %y = hl.relu %mm : tensor<6x8192xbf16> -> tensor<6x8192xbf16>
  %h = hl.add %mm, %r : (tensor<6x8192xbf16>, tensor<6x8192xbf16>) -> tensor<6x8192xbf16>
  func.return %y, %h : tensor<6x8192xbf16>, tensor<6x8192xbf16>
}
// -----

// The same shape of program with a 4x4x4 GEMM: recomputing it costs less than a
// launch, so both consumers fuse and the plain result disappears.
// CHECK-LABEL: func.func @two_consumers_tiny(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x {{.*}}epilogue = #cublaslt<epilogue relu>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[H:.*]] = cublaslt.matmul %w, %x c(%r : tensor<4x4xbf16>) {{.*}}epilogue = #cublaslt<epilogue default>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[Y]], %[[H]]
func.func @two_consumers_tiny(%w: tensor<4x4xbf16>, %x: tensor<4x4xbf16>, %r: tensor<4x4xbf16>) -> (tensor<4x4xbf16>, tensor<4x4xbf16>) {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 4, n = 4, k = 4, lda = 4, ldb = 4, ldc = 4, ldd = 4,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
  %y = hl.relu %mm : tensor<4x4xbf16> -> tensor<4x4xbf16>
  %h = hl.add %mm, %r : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
  func.return %y, %h : tensor<4x4xbf16>, tensor<4x4xbf16>
}
