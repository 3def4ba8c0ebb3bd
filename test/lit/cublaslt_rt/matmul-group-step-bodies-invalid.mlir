// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// A matmul_group's prologue or epilogue whose region has no block: the launch's own
// verifier says so, located at it. The group's rules (gemv_prologue_problems,
// gemv_epilogue_problems) read the body's one block, so they leave such a step to it
// instead of failing inside the verifier (a Python traceback before).

// A prologue with an empty region.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @prologue_without_body(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %h: memref<1x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  cublaslt_rt.matmul_group {
    // expected-error @+1 {{Region 'body' at position 0 expected a single block, but got 0 blocks}}
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// An epilogue with an empty region.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @epilogue_without_body(%w: memref<32x64xbf16>, %h: memref<1x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>, %e: memref<1x32xbf16>) {
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
    // expected-error @+1 {{Region 'body' at position 0 expected a single block, but got 0 blocks}}
    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>) {
    }
  }
  func.return
}

// -----

// Both, the prologue well formed.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @epilogue_without_body_after_prologue(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %h: memref<1x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>, %e: memref<1x32xbf16>) {
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
    // expected-error @+1 {{Region 'body' at position 0 expected a single block, but got 0 blocks}}
    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>) {
    }
  }
  func.return
}
