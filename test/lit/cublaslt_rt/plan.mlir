// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.plan: a module-level symbol holding one cuBLASLt plan: the whole
// descriptor of a cublaslt.matmul, the workspace its algorithm may use and how the
// algorithm is chosen. A plan with no users is legal (it costs a descriptor, no launch).

// A plain bf16 product, beta = 0, DEFAULT epilogue.
// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64,
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64,
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>,
// CHECK-SAME:      workspace_size = 33554432 : i64, algorithm = "heuristic"}
// CHECK-NEXT:  }
// GENERIC-LABEL: "builtin.module"() ({
// GENERIC-NEXT:    "cublaslt_rt.plan"() <{sym_name = "plan0", transa = #cublaslt<trans t>,
// GENERIC-SAME:      workspace_size = 33554432 : i64, algorithm = "heuristic"}> : () -> ()
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 33554432 : i64, algorithm = "heuristic"}

// -----

// A BIAS epilogue names the bias vector's type (cuBLASLt's BIAS_DATA_TYPE).
// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @linear_gelu {
// CHECK-SAME:      epilogue = #cublaslt<epilogue gelu_bias>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype f16>}
// GENERIC-LABEL: "builtin.module"() ({
// GENERIC-NEXT:    "cublaslt_rt.plan"() <{sym_name = "linear_gelu",
// GENERIC-SAME:      bias_dtype = #cublaslt<dtype f16>}> : () -> ()
cublaslt_rt.plan @linear_gelu {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 4 : i64, k = 32 : i64, lda = 32 : i64, ldb = 32 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue gelu_bias>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype f16>}

// -----

// A strided batch with a shared (stride 0) A, ROW-order operands and beta != 0.
// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @batched {
// CHECK-SAME:      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>, order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
// CHECK-SAME:      batch_count = 3 : i64, stride_a = 0 : i64, stride_b = 96 : i64, stride_c = 48 : i64, stride_d = 48 : i64,
// CHECK-SAME:      alpha = 5.000000e-01 : f64, beta = 1.000000e+00 : f64,
cublaslt_rt.plan @batched {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order row>, order_b = #cublaslt<order row>, order_c = #cublaslt<order row>, order_d = #cublaslt<order row>, m = 4 : i64, n = 12 : i64, k = 8 : i64, lda = 8 : i64, ldb = 12 : i64, ldc = 12 : i64, ldd = 12 : i64, batch_count = 3 : i64, stride_a = 0 : i64, stride_b = 96 : i64, stride_c = 48 : i64, stride_d = 48 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 0.5 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 1024 : i64, algorithm = "heuristic"}
