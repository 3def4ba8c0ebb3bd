// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.plan verifier: the descriptor alone (V1, V2, V3, V7 and cuBLASLt's layout
// rules), the algorithm choice, the workspace size, the bias type, the placement.

// A plan runs on cuBLASLt's heuristic or on lumir's GEMV, nothing else.
// expected-error @+1 {{@plan0: algorithm = "fastest", but it must be one of 'heuristic', 'gemv'}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "fastest"}

// -----

// expected-error @+1 {{@plan0: workspace_size = -1, but it must not be negative}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = -1 : i64, algorithm = "heuristic"}

// -----

// C and D share a dtype outside the FP8 rows: a plan cannot write bf16 from an f32 C.
// expected-error @+1 {{@plan0: V3: c_dtype = f32 but d_dtype = bf16; C and D share a dtype outside the FP8 rows (A bf16, B bf16)}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}

// -----

// bf16 inputs have no compute_16f row.
// expected-error @+1 {{@plan0: V2: (compute compute_16f, scale f32, A bf16, B bf16, C bf16, D bf16) is not in cuBLASLt's supported-type table}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_16f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}

// -----

// RELU_BIAS with a row-major D is refused by cuBLASLt (measured on the H200).
// expected-error @+1 {{@plan0: V7: epilogue relu_bias is not supported with order_d = row}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order row>, order_b = #cublaslt<order row>, order_c = #cublaslt<order row>, order_d = #cublaslt<order row>, m = 4 : i64, n = 4 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue relu_bias>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype f32>}

// -----

// A is read transposed (transa = t): stored k x m = 16 x 32 in col order, so lda >= 16.
// expected-error @+1 {{@plan0: lda = 8, but a 16 x 32 matrix in col order needs a leading dimension of at least 16}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 8 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}

// -----

// expected-error @+1 {{@plan0: ldd = 31, but a 32 x 8 matrix in col order needs a leading dimension of at least 32}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 31 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}

// -----

// expected-error @+1 {{@plan0: batch_count = 0, but it must be at least 1}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 0 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}

// -----

// A BIAS epilogue needs the bias type; other epilogues take none.
// expected-error @+1 {{@plan0: epilogue bias adds a bias, but the plan has no bias_dtype}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue bias>, workspace_size = 0 : i64, algorithm = "heuristic"}

// -----

// expected-error @+1 {{@plan0: epilogue default adds no bias, but the plan has bias_dtype = bf16}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype bf16>}

// -----

// The bf16 row's BIAS epilogues read a bf16 bias.
// expected-error @+1 {{@plan0: bias_dtype = f32, but this type row takes a bias of bf16}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue bias>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype f32>}

// -----

// Plans live at module level, where every function can name them.
func.func @inside() {
  // expected-error @+1 {{'cublaslt_rt.plan' expects parent op 'builtin.module'}}
  cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
  func.return
}

// -----

// The GEMV computes one column: a plan of n = 8 columns cannot run on it.
// expected-error @+1 {{@plan0: algorithm = "gemv": n = 8, but the GEMV computes one column (n = 1)}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}

// -----

// ... and reads half-precision A and B only.
// expected-error @+1 {{@plan0: algorithm = "gemv": a_dtype = f32, b_dtype = f32, but the GEMV reads A and B of one type among bf16, f16}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}

// -----

// A plan's epilogue is one the executors run: the AUX and gradient ones need
// auxiliary buffers that cublaslt_rt does not carry.
// expected-error @+1 {{@plan0: epilogue relu_aux needs auxiliary buffers that lumir's executors do not provide; expected one of default, relu, bias, relu_bias, gelu, gelu_bias}}
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue relu_aux>, workspace_size = 0 : i64, algorithm = "heuristic"}
