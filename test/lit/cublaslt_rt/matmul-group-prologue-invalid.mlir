// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.matmul_group's prologue verifier (gemv_prologue_problems): a fused launch
// before the members is, on CUDA, recomputed by every program of the group's one kernel,
// which sums its rows against it in registers and never writes its buffer. So it must
// have one output, the members' B (the same bytes and type), computed by a body over one
// row of k lanes; every member must sum that row in one block; nothing outside the group
// may read B; and no step of the group may write what the prologue reads. The bodies
// here centre the row (x - mean(x)), a one-row program as an RMSNorm is.

// B read by a launch after the group, which would find bytes the kernel never wrote.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @b_read_outside(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>, %later: memref<1x64xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: cublaslt_rt.launch outside the group reads its output, which the group's kernel does not write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  cublaslt_rt.launch "hl.neg" ins(%h : memref<1x64xbf16>) outs(%later : memref<1x64xbf16>)
  func.return
}

// -----

// A reader through a view of B after the group counts too. (One before the group runs
// before the group writes anything: matmul-group-aliased-readers.mlir.)
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @b_view_read_after(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>, %late: memref<64xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %hv = cublaslt_rt.view %h {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: cublaslt_rt.launch outside the group reads its output, which the group's kernel does not write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  cublaslt_rt.launch "hl.neg" ins(%hv : memref<64xbf16>) outs(%late : memref<64xbf16>)
  func.return
}

// -----

// One output: a second one (here the f32 row before centring) would never be written.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @two_outputs(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %h: memref<1x64xbf16>, %s: memref<1x64xf32>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: it has 2 outputs; one, the members' B, runs}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h, %s : memref<1x64xbf16>, memref<1x64xf32>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %f = hl.cast %a : tensor<1x64xbf16> -> tensor<1x64xf32>
      %m = hl.mean %f {dims = array<i64: -1>, keepdim} : tensor<1x64xf32> -> tensor<1x1xf32>
      %c = hl.sub %f, %m : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
      %cb = hl.cast %c : tensor<1x64xf32> -> tensor<1x64xbf16>
      hl.yield %cb, %f : tensor<1x64xbf16>, tensor<1x64xf32>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// Its output must be the B the members read: not another buffer ...
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @output_not_b(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %b: memref<1x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: its output must be the members' B, whole (the same bytes)}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// ... nor bytes of one arena that only overlap B's ...
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @output_overlaps_b(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %b = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %h = cublaslt_rt.view %arena {byte_offset = 64 : i64} : memref<256xi8> -> memref<1x64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: its output must be the members' B, whole (the same bytes)}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// ... nor B's bytes as another type (f16 where the members read bf16).
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @output_other_type(%x: memref<1x64xf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %arena = cublaslt_rt.alloc : memref<128xi8>
  %b = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<128xi8> -> memref<1x64xbf16>
  %h = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<128xi8> -> memref<1x64xf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: its output must be the members' B, whole (the same bytes)}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xf16>) outs(%h : memref<1x64xf16>) {
    ^bb0(%a: tensor<1x64xf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xf16> -> tensor<1x1xf16>
      %c = hl.sub %a, %m : (tensor<1x64xf16>, tensor<1x1xf16>) -> tensor<1x64xf16>
      hl.yield %c : tensor<1x64xf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// Its body computes one row of k lanes: B's bytes written as two rows of 32, each
// centred on its own mean, are no row every program can recompute.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @two_rows(%x: memref<2x32xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %b = cublaslt_rt.alloc : memref<1x64xbf16>
  %h = cublaslt_rt.view %b {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<2x32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: its body must compute one row of 64 elements}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<2x32xbf16>) outs(%h : memref<2x32xbf16>) {
    ^bb0(%a: tensor<2x32xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<2x32xbf16> -> tensor<2x1xbf16>
      %c = hl.sub %a, %m : (tensor<2x32xbf16>, tensor<2x1xbf16>) -> tensor<2x32xbf16>
      hl.yield %c : tensor<2x32xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// It reads nothing the group writes: here a member's D, which the members write while
// the prologue's programs read it.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @input_is_d(%w: memref<64x64xbf16>, %d0: memref<1x64xbf16>, %d1: memref<1x64xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: input 0 shares bytes with what the group writes; the programs that read it run beside the ones that write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%d1 : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @q a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x64xbf16>)
    cublaslt_rt.matmul @q a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x64xbf16>)
  }
  func.return
}

// -----

// ... or an epilogue's output (its second input, through a view of the same bytes).
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @input_is_epilogue_output(%x: memref<1x64xbf16>, %w: memref<64x64xbf16>, %e: memref<1x64xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x64xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x64xbf16>
  %ev = cublaslt_rt.view %e {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: input 1 shares bytes with what the group writes; the programs that read it run beside the ones that write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x, %ev : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>, %g: tensor<64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      %n = hl.mul %g, %c : (tensor<64xbf16>, tensor<1x64xbf16>) -> tensor<1x64xbf16>
      hl.yield %n : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @q a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x64xbf16>)
    cublaslt_rt.matmul @q a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x64xbf16>)
    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x64xbf16>, memref<1x64xbf16>) outs(%e : memref<1x64xbf16>) {
    ^bb0(%p: tensor<1x64xbf16>, %q: tensor<1x64xbf16>):
      %t = hl.mul %p, %q : (tensor<1x64xbf16>, tensor<1x64xbf16>) -> tensor<1x64xbf16>
      hl.yield %t : tensor<1x64xbf16>
    }
  }
  func.return
}

// -----

// Every member sums the row in one block: a row of 4096 runs in blocks of 2048, so no
// program holds the whole row the prologue computes.
cublaslt_rt.plan @w {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 4096 : i64, lda = 4096 : i64, ldb = 4096 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @row_wider_than_a_block(%x: memref<1x4096xbf16>, %w: memref<32x4096xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x4096xbf16>
  // expected-error @+2 {{'cublaslt_rt.matmul_group' prologue: member 0 (@w) sums its row in blocks of 2048 columns; a prologue needs the whole row (4096) in one}}
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: member 1 (@w) sums its row in blocks of 2048 columns; a prologue needs the whole row (4096) in one}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x4096xbf16>) outs(%h : memref<1x4096xbf16>) {
    ^bb0(%a: tensor<1x4096xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x4096xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x4096xbf16>, tensor<1x1xbf16>) -> tensor<1x4096xbf16>
      hl.yield %c : tensor<1x4096xbf16>
    }
    cublaslt_rt.matmul @w a(%w : memref<32x4096xbf16>) b(%h : memref<1x4096xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @w a(%w : memref<32x4096xbf16>) b(%h : memref<1x4096xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// One prologue: a second fused launch before the members is no step the kernel runs.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @two_prologues(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %t: memref<1x64xbf16>, %h: memref<1x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' holds at most one cublaslt_rt.fused_launch, then only cublaslt_rt.matmul ops, then at most one cublaslt_rt.fused_launch, and no block arguments; found cublaslt_rt.fused_launch}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %n = hl.neg %a : tensor<1x64xbf16> -> tensor<1x64xbf16>
      hl.yield %n : tensor<1x64xbf16>
    }
    cublaslt_rt.fused_launch ins(%t : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// B in the bytes of a function argument: the caller reads its arguments after the call,
// and the group's kernel never writes B.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @b_is_an_argument(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %h: memref<1x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: its output is in the bytes of argument 2, which the caller reads and the group's kernel does not write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}
