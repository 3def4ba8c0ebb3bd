// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// A member may read the prologue's output only as its B: the group's kernel holds the
// row in registers and never writes its buffer, so a member reading it as C or as the
// bias would read bytes nobody wrote.

// A member reads the prologue's output as its bias (GemvOperands.bias is loaded from
// memory by the kernel: the bytes of %h, never written).
cublaslt_rt.plan @qb {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bias>, workspace_size = 0 : i64, algorithm = "gemv", bias_dtype = #cublaslt<dtype bf16>}
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @bias_is_b(%x: memref<1x64xbf16>, %w: memref<64x64xbf16>, %d0: memref<1x64xbf16>, %d1: memref<1x64xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %hv = cublaslt_rt.view %h {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: member 0 (@qb) reads its output as the bias; the group's kernel holds it in registers only, as the members' B}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @qb a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) bias(%hv : memref<64xbf16>) d(%d0 : memref<1x64xbf16>)
    cublaslt_rt.matmul @q a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x64xbf16>)
  }
  func.return
}

// -----

// A member reads the prologue's output as C (beta = 1): what lumir-pipeline makes of
// linear(h) + h (resid.mlir).
cublaslt_rt.plan @qc {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @c_is_b(%x: memref<1x64xbf16>, %w: memref<64x64xbf16>, %d0: memref<1x64xbf16>, %d1: memref<1x64xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: member 0 (@qc) reads its output as C; the group's kernel holds it in registers only, as the members' B}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @qc a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) c(%h : memref<1x64xbf16>) d(%d0 : memref<1x64xbf16>)
    cublaslt_rt.matmul @q a(%w : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x64xbf16>)
  }
  func.return
}

// -----

// A prologue whose body has an op that does not verify: that op says so, located (the
// group does not analyse a body its own ops refuse).

cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @qkv(%x: memref<1x64xbf16>, %g: memref<64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %h: memref<1x64xbf16>, %q: memref<1x64xbf16>, %k: memref<1x32xbf16>, %v: memref<1x32xbf16>) {
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x, %g : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%xa: tensor<1x64xbf16>, %ga: tensor<64xbf16>):
      %xf = hl.cast %xa : tensor<1x64xbf16> -> tensor<1x64xf32>
      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
      %p = hl.pow %xf, %two : (tensor<1x64xf32>, tensor<f32>) -> tensor<1x64xf32>
      // expected-error @+1 {{property 'dims' expected in operation 'hl.mean'}}
      %ms = hl.mean %p {keepdim} : tensor<1x64xf32> -> tensor<1x1xf32>
      %eps = hl.constant {value = dense<1.000000e-05> : tensor<f32>} : tensor<f32>
      %me = hl.add %ms, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
      %r = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
      %s = hl.mul %xf, %r : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
      %sb = hl.cast %s : tensor<1x64xf32> -> tensor<1x64xbf16>
      %n = hl.mul %ga, %sb : (tensor<64xbf16>, tensor<1x64xbf16>) -> tensor<1x64xbf16>
      hl.yield %n : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%v : memref<1x32xbf16>)
  }
  func.return
}
