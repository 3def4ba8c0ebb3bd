// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.matmul: one cublasLtMatmul with a named plan, on buffers. It writes D in
// place; C and the bias appear exactly when the plan reads them.

// Y[8,32] = X[8,16] @ W[32,16]^T in the column-major view: A = W, B = X.
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
// CHECK-LABEL: func.func @plain(
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<8x32xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
// CHECK-NEXT:    func.return %y : memref<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "plain"
// GENERIC:         "cublaslt_rt.matmul"(%w, %x, %y) <{plan = @plan0, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}> : (memref<32x16xbf16>, memref<8x16xbf16>, memref<8x32xbf16>) -> ()
func.func @plain(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>) -> memref<8x32xbf16> {
  %y = cublaslt_rt.alloc : memref<8x32xbf16>
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
  func.return %y : memref<8x32xbf16>
}

// -----

// beta = 1 reads a residual C.
cublaslt_rt.plan @residual_plan {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
// CHECK-LABEL: func.func @residual(
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<8x32xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul @residual_plan a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%r : memref<8x32xbf16>) d(%y : memref<8x32xbf16>)
// GENERIC-LABEL: "func.func"() <{sym_name = "residual"
// GENERIC:         "cublaslt_rt.matmul"(%w, %x, %r, %y) <{plan = @residual_plan, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}>
func.func @residual(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %r: memref<8x32xbf16>) -> memref<8x32xbf16> {
  %y = cublaslt_rt.alloc : memref<8x32xbf16>
  cublaslt_rt.matmul @residual_plan a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%r : memref<8x32xbf16>) d(%y : memref<8x32xbf16>)
  func.return %y : memref<8x32xbf16>
}

// -----

// cuBLASLt's in-place form: C is D's own buffer.
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
// CHECK-LABEL: func.func @in_place(
// CHECK-NEXT:    cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%acc : memref<8x32xbf16>) d(%acc : memref<8x32xbf16>)
func.func @in_place(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %acc: memref<8x32xbf16>) {
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%acc : memref<8x32xbf16>) d(%acc : memref<8x32xbf16>)
  func.return
}

// -----

// A BIAS epilogue reads a bias of length m = 32 (the Linear's out features).
cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue gelu_bias>, workspace_size = 0 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype bf16>}
// CHECK-LABEL: func.func @gelu_bias(
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<8x32xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) bias(%b : memref<32xbf16>) d(%y : memref<8x32xbf16>)
// GENERIC-LABEL: "func.func"() <{sym_name = "gelu_bias"
// GENERIC:         "cublaslt_rt.matmul"(%w, %x, %b, %y) <{plan = @plan0, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1>}>
func.func @gelu_bias(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %b: memref<32xbf16>) -> memref<8x32xbf16> {
  %y = cublaslt_rt.alloc : memref<8x32xbf16>
  cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) bias(%b : memref<32xbf16>) d(%y : memref<8x32xbf16>)
  func.return %y : memref<8x32xbf16>
}
