// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.matmul_group with a prologue: a cublaslt_rt.fused_launch before the
// members, over one row of k lanes (an RMSNorm), whose one output is the B every member
// reads and which nothing outside the group reads (matmul-group-prologue-invalid.mlir
// has what the verifier refuses). A group with one parses, verifies and prints as it
// parses, in the custom and the generic form.

// q (64 rows), k and v (32 rows) after the input norm: f32 inside, times the weight %g.
cublaslt_rt.plan @q {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @qkv(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x, %g : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
// CHECK-NEXT:      ^bb0(%{{.*}}: tensor<1x64xbf16>, %{{.*}}: tensor<64xbf16>):
// CHECK-NEXT:        %{{.*}} = hl.cast %{{.*}} : tensor<1x64xbf16> -> tensor<1x64xf32>
// CHECK-NEXT:        %{{.*}} = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:        %{{.*}} = hl.pow
// CHECK-NEXT:        %{{.*}} = hl.mean %{{.*}} {dims = array<i64: -1>, keepdim} : tensor<1x64xf32> -> tensor<1x1xf32>
// CHECK-NEXT:        %{{.*}} = hl.constant {value = dense<1.000000e-05> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:        %{{.*}} = hl.add
// CHECK-NEXT:        %{{.*}} = hl.rsqrt
// CHECK-NEXT:        %{{.*}} = hl.mul
// CHECK-NEXT:        %{{.*}} = hl.cast %{{.*}} : tensor<1x64xf32> -> tensor<1x64xbf16>
// CHECK-NEXT:        %{{.*}} = hl.mul
// CHECK-NEXT:        hl.yield %{{.*}} : tensor<1x64xbf16>
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @q a(%wq : memref<64x64xbf16>) b(%h : memref<1x64xbf16>) d(%q : memref<1x64xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%k : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wk : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%v : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "qkv"
// GENERIC:         "cublaslt_rt.matmul_group"() ({
// GENERIC-NEXT:      "cublaslt_rt.fused_launch"(%x, %g, %h) <{operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC:             "hl.rsqrt"
// GENERIC:             "hl.yield"(%{{.*}}) : (tensor<1x64xbf16>) -> ()
// GENERIC-NEXT:      }) : (memref<1x64xbf16>, memref<64xbf16>, memref<1x64xbf16>) -> ()
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wq, %h, %q) <{plan = @q, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}>
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wk, %h, %k) <{plan = @k, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}>
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wk, %h, %v) <{plan = @k, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}>
// GENERIC-NEXT:    }) : () -> ()
func.func @qkv(%x: memref<1x64xbf16>, %g: memref<64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %q: memref<1x64xbf16>, %k: memref<1x32xbf16>, %v: memref<1x32xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x, %g : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%xa: tensor<1x64xbf16>, %ga: tensor<64xbf16>):
      %xf = hl.cast %xa : tensor<1x64xbf16> -> tensor<1x64xf32>
      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
      %p = hl.pow %xf, %two : (tensor<1x64xf32>, tensor<f32>) -> tensor<1x64xf32>
      %ms = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x64xf32> -> tensor<1x1xf32>
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

// -----

// A prologue and an epilogue: the norm, gate and up, then SiLU(gate) * up.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @mlp(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    %gt = cublaslt_rt.alloc : memref<1x32xbf16>
// CHECK-NEXT:    %up = cublaslt_rt.alloc : memref<1x32xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x, %g : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
// CHECK:             hl.rsqrt
// CHECK:             hl.yield %{{.*}} : tensor<1x64xbf16>
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wg : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%gt : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%wu : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%up : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%gt, %up : memref<1x32xbf16>, memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
// CHECK-NEXT:      ^bb0(%{{.*}}: tensor<1x32xbf16>, %{{.*}}: tensor<1x32xbf16>):
// CHECK-NEXT:        %{{.*}} = hl.silu
// CHECK-NEXT:        %{{.*}} = hl.mul
// CHECK-NEXT:        hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %m : memref<1x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "mlp"
// GENERIC:         "cublaslt_rt.matmul_group"() ({
// GENERIC-NEXT:      "cublaslt_rt.fused_launch"(%x, %g, %h) <{operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC:             "hl.yield"
// GENERIC-NEXT:      }) : (memref<1x64xbf16>, memref<64xbf16>, memref<1x64xbf16>) -> ()
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wg, %h, %gt)
// GENERIC-NEXT:      "cublaslt_rt.matmul"(%wu, %h, %up)
// GENERIC-NEXT:      "cublaslt_rt.fused_launch"(%gt, %up, %m) <{operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC:             "hl.yield"
// GENERIC-NEXT:      }) : (memref<1x32xbf16>, memref<1x32xbf16>, memref<1x32xbf16>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @mlp(%x: memref<1x64xbf16>, %g: memref<64xbf16>, %wg: memref<32x64xbf16>, %wu: memref<32x64xbf16>, %m: memref<1x32xbf16>) -> memref<1x32xbf16> {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %gt = cublaslt_rt.alloc : memref<1x32xbf16>
  %up = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x, %g : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%xa: tensor<1x64xbf16>, %ga: tensor<64xbf16>):
      %xf = hl.cast %xa : tensor<1x64xbf16> -> tensor<1x64xf32>
      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
      %p = hl.pow %xf, %two : (tensor<1x64xf32>, tensor<f32>) -> tensor<1x64xf32>
      %ms = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x64xf32> -> tensor<1x1xf32>
      %eps = hl.constant {value = dense<1.000000e-05> : tensor<f32>} : tensor<f32>
      %me = hl.add %ms, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
      %r = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
      %s = hl.mul %xf, %r : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
      %sb = hl.cast %s : tensor<1x64xf32> -> tensor<1x64xbf16>
      %n = hl.mul %ga, %sb : (tensor<64xbf16>, tensor<1x64xbf16>) -> tensor<1x64xbf16>
      hl.yield %n : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%wg : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%gt : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%wu : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%up : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%gt, %up : memref<1x32xbf16>, memref<1x32xbf16>) outs(%m : memref<1x32xbf16>) {
    ^bb0(%a: tensor<1x32xbf16>, %b: tensor<1x32xbf16>):
      %si = hl.silu %a : tensor<1x32xbf16> -> tensor<1x32xbf16>
      %pr = hl.mul %si, %b : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %pr : tensor<1x32xbf16>
    }
  }
  func.return %m : memref<1x32xbf16>
}

// -----

// Views: the prologue writes B's bytes through one view of an arena and the members read
// them through another (the same bytes, views resolved); its input is a view too, of
// bytes no step of the group writes.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @views(
// CHECK:         %h = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
// CHECK-NEXT:    %b = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x, %g : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
// CHECK-NEXT:    }
func.func @views(%x3: memref<1x1x64xbf16>, %g: memref<64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %x = cublaslt_rt.view %x3 {byte_offset = 0 : i64} : memref<1x1x64xbf16> -> memref<1x64xbf16>
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %h = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %b = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x, %g : memref<1x64xbf16>, memref<64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%xa: tensor<1x64xbf16>, %ga: tensor<64xbf16>):
      %xf = hl.cast %xa : tensor<1x64xbf16> -> tensor<1x64xf32>
      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
      %p = hl.pow %xf, %two : (tensor<1x64xf32>, tensor<f32>) -> tensor<1x64xf32>
      %ms = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x64xf32> -> tensor<1x1xf32>
      %eps = hl.constant {value = dense<1.000000e-05> : tensor<f32>} : tensor<f32>
      %me = hl.add %ms, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
      %r = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
      %s = hl.mul %xf, %r : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
      %sb = hl.cast %s : tensor<1x64xf32> -> tensor<1x64xbf16>
      %n = hl.mul %ga, %sb : (tensor<64xbf16>, tensor<1x64xbf16>) -> tensor<1x64xbf16>
      hl.yield %n : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%b : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}
