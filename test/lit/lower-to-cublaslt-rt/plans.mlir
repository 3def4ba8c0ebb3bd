// RUN: lumir-opt %s -p lower-to-cublaslt-rt --split-input-file | filecheck %s
// RUN: lumir-opt %s -p lower-to-cublaslt-rt{workspace_size=0} --split-input-file | filecheck %s --check-prefix=WORKSPACE

// Plans are named @plan0, @plan1, ... in IR order across the whole module and placed at
// its top in that order (one plan per call, even for equal descriptors: a CUDA plan is
// bound to its buffers). The alphas tell the plans apart below.

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @plan0 {{{.*}} alpha = 1.000000e+00 : f64,
// CHECK-NEXT:    cublaslt_rt.plan @plan1 {{{.*}} alpha = 2.000000e+00 : f64,
// CHECK-NEXT:    cublaslt_rt.plan @plan2 {{{.*}} alpha = 3.000000e+00 : f64,
// CHECK-NEXT:    func.func @first(
// CHECK:           cublaslt_rt.matmul @plan0 a(%a
// CHECK:           cublaslt_rt.matmul @plan1 a(%y
// CHECK:         func.func @second(
// CHECK:           cublaslt_rt.matmul @plan2 a(%a
// WORKSPACE-COUNT-3: workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @first(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = cublaslt.matmul %a, %b {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 4 : i64, n = 4 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %z = cublaslt.matmul %y, %b {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 4 : i64, n = 4 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 2.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  func.return %z : tensor<4x4xf32>
}
func.func @second(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = cublaslt.matmul %a, %b {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 4 : i64, n = 4 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 3.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

// Names the module already uses are skipped, so plans never shadow a symbol.
// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @plan1 {{{.*}} alpha = 1.000000e+00 : f64,
// CHECK-NEXT:    cublaslt_rt.plan @plan2 {{{.*}} alpha = 2.000000e+00 : f64,
// CHECK-NEXT:    func.func @plan0(
// CHECK:           cublaslt_rt.matmul @plan1 a(%a
// CHECK:           cublaslt_rt.matmul @plan2 a(%y
func.func @plan0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = cublaslt.matmul %a, %b {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 4 : i64, n = 4 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %z = cublaslt.matmul %y, %b {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 4 : i64, n = 4 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 2.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  func.return %z : tensor<4x4xf32>
}
