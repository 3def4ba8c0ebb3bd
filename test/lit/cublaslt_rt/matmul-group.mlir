// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.matmul_group: GEMV matmuls that read one B, run as one launch. Its body
// is the member matmuls themselves (no terminator), each with its own plan, weight, D
// and optional C or bias. It prints as it parses, in the custom and the generic form.

// q (64 rows), k (32 rows) and k with a bias epilogue, over one activation %x.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k_bias {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bias>, workspace_size = 0 : i64, algorithm = "gemv", bias_dtype = #cublaslt<dtype bf16>}
// CHECK-LABEL: func.func @qk(
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k_bias a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) bias(%b : memref<32xbf16>) d(%kb : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "qk"
// GENERIC:         "cublaslt_rt.matmul_group"() ({
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wq, %x, %q) <{plan = @q, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}>
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wk, %x, %k) <{plan = @k, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}>
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wk, %x, %b, %kb) <{plan = @k_bias, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1>}>
// GENERIC-NEXT:    }) : () -> ()
func.func @qk(%x: memref<1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %b: memref<32xbf16>, %q: memref<1x64xbf16>, %k: memref<1x32xbf16>, %kb: memref<1x32xbf16>) {
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
    cublaslt_rt.matmul @k_bias a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) bias(%b : memref<32xbf16>) d(%kb : memref<1x32xbf16>)
  }
  func.return
}

// -----

// Members may read B through a view, and write D into views of one arena, as long as
// no member's D shares a byte with what another member reads or writes.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @views(
// CHECK:         %q = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
// CHECK-NEXT:    %k = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x32xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
// CHECK-NEXT:    }
func.func @views(%x3: memref<1x1x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>) -> memref<256xi8> {
  %x = cublaslt_rt.view %x3 {byte_offset = 0 : i64} : memref<1x1x64xbf16> -> memref<1x64xbf16>
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %q = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %k = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x32xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%x : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
    cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
  }
  func.return %arena : memref<256xi8>
}

// -----

// With an epilogue: one elementwise fused launch after the members, reading their D.
// CHECK-LABEL: func.func @gated(
// CHECK-NEXT:    %g = cublaslt_rt.alloc : memref<1x32xbf16>
// CHECK-NEXT:    %u = cublaslt_rt.alloc : memref<1x32xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%g : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%u : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%g, %u : memref<1x32xbf16>, memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
// CHECK-NEXT:      ^bb0(%{{.*}}: tensor<1x32xbf16>, %{{.*}}: tensor<1x32xbf16>):
// CHECK-NEXT:        %{{.*}} = hl.silu
// CHECK-NEXT:        %{{.*}} = hl.mul
// CHECK-NEXT:        hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @gated(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %m: memref<1x32xbf16>) -> memref<1x32xbf16> {
  %g = cublaslt_rt.alloc : memref<1x32xbf16>
  %u = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%g : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%x : memref<1x64xbf16>) d(%u : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%g, %u : memref<1x32xbf16>, memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
    ^bb0(%a: tensor<1x32xbf16>, %b: tensor<1x32xbf16>):
      %s = hl.silu %a : tensor<1x32xbf16> -> tensor<1x32xbf16>
      %p = hl.mul %s, %b : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
  }
  func.return %m : memref<1x32xbf16>
}
