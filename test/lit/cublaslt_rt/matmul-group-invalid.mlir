// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.matmul_group verifier: it refuses any group the grouped GEMV launch could
// not run as its members would run alone: only matmuls, 2 to 4 of them, GEMV plans
// only, one B read alike (same k, type and step), one block shape, and no member
// writing bytes another member reads or writes (views resolved).

cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @stranger(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %q: memref<1x64xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' holds at most one cublaslt_rt.fused_launch, then only cublaslt_rt.matmul ops, then at most one cublaslt_rt.fused_launch, and no block arguments; found cublaslt_rt.alloc}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    %t = cublaslt_rt.alloc : memref<1x64xbf16>
  }
  func.return
}

// -----

cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @alone(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %q: memref<1x64xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' holds 1 matmul(s); a grouped GEMV runs 2 to 4}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
  }
  func.return
}

// -----

// The kernel has four member slots.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @five(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>, %d2: memref<1x32xbf16>, %d3: memref<1x32xbf16>, %d4: memref<1x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' holds 5 matmul(s); a grouped GEMV runs 2 to 4}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d2 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d3 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%d4 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// A cuBLASLt plan is no GEMV launch.
cublaslt_rt.plan @q_cublaslt {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "heuristic"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @not_gemv(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %q: memref<1x64xbf16>, %k: memref<1x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 0 (@q_cublaslt) runs algorithm = "heuristic"; a group runs GEMV plans (algorithm = "gemv") only}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q_cublaslt a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  }
  func.return
}

// -----

// The launch loads one activation vector for all its members.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @two_activations(%x: memref<1x64xbf16>, %y: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %q: memref<1x64xbf16>, %k: memref<1x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 1 (@k) reads another B than member 0; a group reads one B}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%y : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  }
  func.return
}

// -----

// Another k is another activation (and so another B).
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k48 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 48 : i64, lda = 48 : i64, ldb = 48 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @another_k(%x: memref<1x64xbf16>, %x48: memref<1x48xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x48xbf16>, %q: memref<1x64xbf16>, %k: memref<1x32xbf16>) {
  // expected-error @+2 {{'cublaslt_rt.matmul_group' member 1 (@k48) reads another B than member 0; a group reads one B}}
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 1 (@k48): k = 48, but the group's activation has k = 64}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    cublaslt_rt.matmul @k48 a(%wk : memref<32x48xbf16>) b(%x48 : memref<1x48xbf16>) d(%k : memref<1x32xbf16>)
  }
  func.return
}

// -----

// Another input type: the f16 member's own verifier refuses the bf16 buffer too.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k_f16 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>, c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @another_type(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xf16>, %q: memref<1x64xbf16>, %k: memref<1x32xf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 1 (@k_f16): b_dtype = f16, but the group reads B as bf16}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    // expected-error @+1 {{@k_f16: V9: b_dtype = f16, but operand B is memref<1x64xbf16>}}
    cublaslt_rt.matmul @k_f16 a(%wk : memref<32x64xf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xf16>)
  }
  func.return
}

// -----

// A 2048-row call (two rows per program) and a 128-row one (one row per program: fewer
// than 256 rows) would not be summed in one launch as each is alone.
cublaslt_rt.plan @q_1b {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 2048 : i64, n = 1 : i64, k = 2048 : i64, lda = 2048 : i64, ldb = 2048 : i64, ldc = 2048 : i64, ldd = 2048 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k_small {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 128 : i64, n = 1 : i64, k = 2048 : i64, lda = 2048 : i64, ldb = 2048 : i64, ldc = 128 : i64, ldd = 128 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @block_shapes(%x: memref<1x2048xbf16>, %wq: memref<2048x2048xbf16>, %wk: memref<128x2048xbf16>, %q: memref<1x2048xbf16>, %k: memref<1x128xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 1 (@k_small): runs alone with (BLOCK_M, BLOCK_K, num_warps) = (1, 2048, 2), but the group runs (2, 2048, 2): its sums would not be the ones it computes alone}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q_1b a(%wq : memref<2048x2048xbf16>) b(%x : memref<1x2048xbf16>) d(%q : memref<1x2048xbf16>)
    cublaslt_rt.matmul @k_small a(%wk : memref<128x2048xbf16>) b(%x : memref<1x2048xbf16>) d(%k : memref<1x128xbf16>)
  }
  func.return
}

// -----

// A member may not write what another reads: here k's D is a view of q's weight.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @d_into_a(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %q: memref<1x64xbf16>) {
  %k = cublaslt_rt.view %wq {byte_offset = 64 : i64} : memref<64x64xbf16> -> memref<1x32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 1 (@k) writes D into bytes member 0 (@q) reads as A; the members of a group run at once and may not depend on each other}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  }
  func.return
}

// -----

// ... nor read what another writes: k_bias reads k's D as its bias.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k_bias {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bias>, workspace_size = 0 : i64, algorithm = "gemv", bias_dtype = #cublaslt<dtype bf16>}
func.func @bias_from_d(%x: memref<1x64xbf16>, %wk: memref<32x64xbf16>, %k: memref<1x32xbf16>, %kb: memref<1x32xbf16>) {
  %b = cublaslt_rt.view %k {byte_offset = 0 : i64} : memref<1x32xbf16> -> memref<32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 0 (@k) writes D into bytes member 1 (@k_bias) reads as the bias; the members of a group run at once and may not depend on each other}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
    cublaslt_rt.matmul @k_bias a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) bias(%b : memref<32xbf16>) d(%kb : memref<1x32xbf16>)
  }
  func.return
}

// -----

// ... nor write where another writes (reported once per pair).
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k_bias {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bias>, workspace_size = 0 : i64, algorithm = "gemv", bias_dtype = #cublaslt<dtype bf16>}
func.func @one_d(%x: memref<1x64xbf16>, %wk: memref<32x64xbf16>, %b: memref<32xbf16>, %k: memref<1x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' member 0 (@k) writes D into bytes member 1 (@k_bias) writes; the members of a group run at once and may not depend on each other}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
    cublaslt_rt.matmul @k_bias a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) bias(%b : memref<32xbf16>) d(%k : memref<1x32xbf16>)
  }
  func.return
}

// -----

// An epilogue (a fused launch after the members) is one kernel with them on CUDA, which
// never writes the members' D: a D read outside the group is refused.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @d_read_outside(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %m: memref<1x32xbf16>, %later: memref<1x32xbf16>) {
  %g = cublaslt_rt.alloc : memref<1x32xbf16>
  %u = cublaslt_rt.alloc : memref<1x32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' epilogue: cublaslt_rt.launch outside the group reads the D of member 0 (@k), which the group's kernel does not write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%g : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%u : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%g, %u : memref<1x32xbf16>, memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
    ^bb0(%a: tensor<1x32xbf16>, %b: tensor<1x32xbf16>):
      %p = hl.mul %a, %b : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
  }
  cublaslt_rt.launch "hl.neg" ins(%g : memref<1x32xbf16>) outs(%later : memref<1x32xbf16>)
  func.return
}

// -----

// Its body must be elementwise, and read only the members' D.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @reduction_and_stranger(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %other: memref<1x32xbf16>, %m: memref<1x32xbf16>) {
  %g = cublaslt_rt.alloc : memref<1x32xbf16>
  %u = cublaslt_rt.alloc : memref<1x32xbf16>
  // expected-error @+3 {{'cublaslt_rt.matmul_group' epilogue: its body must be elementwise (no reduction, slice, cat or transpose)}}
  // expected-error @+2 {{'cublaslt_rt.matmul_group' epilogue: input 1 must be one member's D, whole (32 elements of its type)}}
  // expected-error @+1 {{'cublaslt_rt.matmul_group' epilogue: it reads no D of member 1 (@k)}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%g : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%u : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%g, %other : memref<1x32xbf16>, memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
    ^bb0(%a: tensor<1x32xbf16>, %b: tensor<1x32xbf16>):
      %p = hl.mul %a, %b : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      %s = hl.sum %p {dims = array<i64: 1>, keepdim} : tensor<1x32xbf16> -> tensor<1x1xbf16>
      %q = hl.mul %p, %s : (tensor<1x32xbf16>, tensor<1x1xbf16>) -> tensor<1x32xbf16>
      hl.yield %q : tensor<1x32xbf16>
    }
  }
  func.return
}

// -----

// A fused launch before the members is the group's prologue: it must compute the
// members' B, one row of k elements, from bytes no step of the group writes.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @launch_first(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %g: memref<1x32xbf16>, %u: memref<1x32xbf16>) {
  %m = cublaslt_rt.alloc : memref<1x32xbf16>
  // expected-error @+3 {{'cublaslt_rt.matmul_group' prologue: its output must be the members' B, whole (the same bytes)}}
  // expected-error @+2 {{'cublaslt_rt.matmul_group' prologue: its body must compute one row of 64 elements}}
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: input 0 shares bytes with what the group writes; the programs that read it run beside the ones that write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%g : memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
    ^bb0(%a: tensor<1x32xbf16>):
      %p = hl.neg %a : tensor<1x32xbf16> -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%g : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%u : memref<1x32xbf16>)
  }
  func.return
}

// -----

// An epilogue input without a byte width: refused at the epilogue (matching it to a
// member's D by byte range asserted).
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @index_epilogue(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %g: memref<1x32xbf16>, %u: memref<1x32xbf16>, %i: memref<1x32xindex>, %m: memref<1x32xbf16>) {
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%g : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%u : memref<1x32xbf16>)
    // expected-error @+1 {{'cublaslt_rt.fused_launch' input: buffer memref<1x32xindex> holds index, which has no byte width}}
    cublaslt_rt.fused_launch ins(%g, %u, %i : memref<1x32xbf16>, memref<1x32xbf16>, memref<1x32xindex>) outs(%m : memref<1x32xbf16>) {
    ^bb0(%a: tensor<1x32xbf16>, %b: tensor<1x32xbf16>, %c: tensor<1x32xindex>):
      %p = hl.mul %a, %b : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
  }
  func.return
}

// -----

// A D in the bytes of a function argument, here through a view of it: the caller reads
// its arguments after the call (an input updated in place is the caller's own tensor),
// and the group's kernel never writes D.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @d_in_an_argument(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %m: memref<1x32xbf16>, %out: memref<2x32xbf16>) {
  %g = cublaslt_rt.view %out {byte_offset = 64 : i64} : memref<2x32xbf16> -> memref<1x32xbf16>
  %u = cublaslt_rt.alloc : memref<1x32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' epilogue: the D of member 0 (@k) is in the bytes of argument 3, which the caller reads and the group's kernel does not write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%g : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%u : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%g, %u : memref<1x32xbf16>, memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
    ^bb0(%a: tensor<1x32xbf16>, %b: tensor<1x32xbf16>):
      %p = hl.mul %a, %b : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
  }
  func.return
}
