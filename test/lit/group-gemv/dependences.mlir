// RUN: lumir-opt %s --split-input-file -p group-gemv | filecheck %s

// What group-gemv leaves alone: a GEMV matmul joins a group only if it can run where
// the group's first member runs. Level-3 IR written by hand, one case per function.

// An op between the two calls writes B in place: k must read the new %x.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @b_written_between(
// CHECK-NOT:     cublaslt_rt.matmul_group
// CHECK:         func.return
func.func @b_written_between(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>) -> (memref<1x64xbf16>, memref<1x32xbf16>) {
  %q = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
  cublaslt_rt.launch "hl.neg" ins(%x : memref<1x64xbf16>) outs(%x : memref<1x64xbf16>)
  %k = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  func.return %q, %k : memref<1x64xbf16>, memref<1x32xbf16>
}

// -----

// An op between writes k's weight in place (through a view of it).
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @a_written_between(
// CHECK-NOT:     cublaslt_rt.matmul_group
// CHECK:         func.return
func.func @a_written_between(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>) -> (memref<1x64xbf16>, memref<1x32xbf16>) {
  %q = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
  %row = cublaslt_rt.view %wk {byte_offset = 128 : i64} : memref<32x64xbf16> -> memref<64xbf16>
  cublaslt_rt.launch "hl.neg" ins(%row : memref<64xbf16>) outs(%row : memref<64xbf16>)
  %k = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  func.return %q, %k : memref<1x64xbf16>, memref<1x32xbf16>
}

// -----

// An op between reads what k overwrites (%out's old value).
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @d_read_between(
// CHECK-NOT:     cublaslt_rt.matmul_group
// CHECK:         func.return
func.func @d_read_between(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %out: memref<1x32xbf16>) -> (memref<1x64xbf16>, memref<1x32xbf16>) {
  %q = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
  %old = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.launch "hl.neg" ins(%out : memref<1x32xbf16>) outs(%old : memref<1x32xbf16>)
  cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%out : memref<1x32xbf16>)
  func.return %q, %old : memref<1x64xbf16>, memref<1x32xbf16>
}

// -----

// k's weight is computed between the calls: it does not exist yet where q runs.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @a_computed_between(
// CHECK-NOT:     cublaslt_rt.matmul_group
// CHECK:         func.return
func.func @a_computed_between(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>) -> (memref<1x64xbf16>, memref<1x32xbf16>) {
  %q = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
  %nk = cublaslt_rt.alloc : memref<32x64xbf16>
  cublaslt_rt.launch "hl.neg" ins(%wk : memref<32x64xbf16>) outs(%nk : memref<32x64xbf16>)
  %k = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul @k a(%nk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  func.return %q, %k : memref<1x64xbf16>, memref<1x32xbf16>
}

// -----

// A dependent call: k's bias is (a view of) q's D, so it must run after q.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k_bias {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bias>, workspace_size = 0 : i64, algorithm = "gemv", bias_dtype = #cublaslt<dtype bf16>}
// CHECK-LABEL: func.func @dependent(
// CHECK-NOT:     cublaslt_rt.matmul_group
// CHECK:         func.return
func.func @dependent(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>) -> (memref<1x64xbf16>, memref<1x32xbf16>) {
  %q = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
  %qb = cublaslt_rt.view %q {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<32xbf16>
  %k = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul @k_bias a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) bias(%qb : memref<32xbf16>) d(%k : memref<1x32xbf16>)
  func.return %q, %k : memref<1x64xbf16>, memref<1x32xbf16>
}

// -----

// Different activations, and a call on cuBLASLt: nothing to group.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @q_cublaslt {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
// CHECK-LABEL: func.func @nothing_shared(
// CHECK-NOT:     cublaslt_rt.matmul_group
// CHECK:         func.return
func.func @nothing_shared(%x: memref<1x64xbf16>, %y: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>) -> (memref<1x64xbf16>, memref<1x32xbf16>, memref<1x64xbf16>) {
  %q = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
  %k = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%y : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  %c = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q_cublaslt a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%c : memref<1x64xbf16>)
  func.return %q, %k, %c : memref<1x64xbf16>, memref<1x32xbf16>, memref<1x64xbf16>
}

// -----

// Two activations, their calls interleaved: each group takes its first member's place,
// members in program order (a1, a2 of %x; b1, b2 of %y).
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @interleaved(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%a1 : memref<1x64xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%a2 : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%y : memref<1x64xbf16>) d(%b1 : memref<1x64xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%y : memref<1x64xbf16>) d(%b2 : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @interleaved(%x: memref<1x64xbf16>, %y: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>) -> (memref<1x64xbf16>, memref<1x64xbf16>, memref<1x32xbf16>, memref<1x32xbf16>) {
  %a1 = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%a1 : memref<1x64xbf16>)
  %b1 = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%y : memref<1x64xbf16>) d(%b1 : memref<1x64xbf16>)
  %a2 = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%a2 : memref<1x32xbf16>)
  %b2 = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%y : memref<1x64xbf16>) d(%b2 : memref<1x32xbf16>)
  func.return %a1, %b1, %a2, %b2 : memref<1x64xbf16>, memref<1x64xbf16>, memref<1x32xbf16>, memref<1x32xbf16>
}

// -----

// Five calls on one activation: the kernel has four member slots, so the first four
// share a launch and the fifth runs alone.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @five(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      d(%d0 : memref<1x32xbf16>)
// CHECK-NEXT:      d(%d1 : memref<1x32xbf16>)
// CHECK-NEXT:      d(%d2 : memref<1x32xbf16>)
// CHECK-NEXT:      d(%d3 : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d4 : memref<1x32xbf16>)
// CHECK-NEXT:    func.return
func.func @five(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>, %d2: memref<1x32xbf16>, %d3: memref<1x32xbf16>, %d4: memref<1x32xbf16>) {
  cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
  cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d2 : memref<1x32xbf16>)
  cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d3 : memref<1x32xbf16>)
  cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d4 : memref<1x32xbf16>)
  func.return
}
