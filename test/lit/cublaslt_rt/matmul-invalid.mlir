// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.matmul verifier: the plan exists, and the buffers agree with it (V4, V5,
// V6, V8, V9, V10 of docs/design.md, checked against the plan's descriptor), D is apart
// from A, B and the bias.

func.func @no_plan(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul' names plan @plan0, but the enclosing module has no cublaslt_rt.plan of that name}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

// A symbol that is not a plan is no plan.
func.func @plan0() {
  func.return
}
func.func @names_a_function(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul' names plan @plan0, but the enclosing module has no cublaslt_rt.plan of that name}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

// docs/design.md's bug at level 3: the plan writes f32 from an f32 C, but the residual
// buffer holds bf16. cuBLASLt would read pairs of bf16 values as one float.
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @c_f32_over_bf16(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %r: memref<8x32xbf16>, %y: memref<8x32xf32>) {
  // expected-error @+1 {{@plan0: V4: beta = 1.0 reads C as f32, but operand C is memref<8x32xbf16>}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%r : memref<8x32xbf16>) d(%y : memref<8x32xf32>)
  func.return
}

// -----

cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @missing_c(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{@plan0: V4: beta = 1.0 reads C, but the op has no C operand}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @c_with_beta_zero(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %r: memref<8x32xbf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{@plan0: V5: beta = 0.0 does not read C, but the op has operand C memref<8x32xbf16>}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%r : memref<8x32xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue gelu_bias>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype bf16>}
func.func @missing_bias(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{@plan0: V6: epilogue gelu_bias adds a bias, but the op has no bias operand}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

// The bias runs along m (32), not n (8).
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue gelu_bias>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype bf16>}
func.func @bias_along_n(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %b: memref<8xbf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{@plan0: V6: epilogue gelu_bias adds a 1-D bias of length m = 32 (rows of D), but operand bias is memref<8xbf16>}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) bias(%b : memref<8xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

// A buffer of the wrong shape for the plan's m x k.
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @a_shape(%x: memref<8x16xbf16>, %w: memref<16x16xbf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{@plan0: V8: op(A) must be m x k = 32 x 16, but operand A memref<16x16xbf16> read in col order with transa = t is 16 x 16}}
  cublaslt_rt.matmul @plan0 a(%w : memref<16x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

// The plan reads A as bf16; the buffer holds f16.
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @a_dtype(%x: memref<8x16xbf16>, %w: memref<32x16xf16>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{@plan0: V9: a_dtype = bf16, but operand A is memref<32x16xf16>}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}

// -----

// D may not be one of the buffers the call reads (C excepted).
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 4 : i64, n = 4 : i64, k = 4 : i64, lda = 4 : i64, ldb = 4 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @d_is_a(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.matmul' writes D into the buffer it reads as A; cuBLASLt needs D apart from A, B and the bias}}
  cublaslt_rt.matmul @plan0 a(%a : memref<4x4xf32>) b(%b : memref<4x4xf32>) d(%a : memref<4x4xf32>)
  func.return
}

// -----

cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
func.func @strided_buffer(%x: memref<8x16xbf16>, %w: memref<32x16xbf16, strided<[32, 1]>>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul' operand A: buffer memref<32x16xbf16, strided<[32, 1]>> has a layout; buffers are dense and row-major}}
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16, strided<[32, 1]>>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return
}
