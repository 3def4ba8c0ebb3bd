// RUN: lumir-opt %s --split-input-file -p gemv-prologue,gemv-epilogue | filecheck %s
// RUN: lumir-opt %s --split-input-file -p gemv-epilogue,gemv-prologue | filecheck %s --check-prefix=EPI

// gemv-epilogue where gemv-prologue ran first (lumir-pipeline runs them the other way
// round; -p names any order): a group with a prologue takes the SiLU * mul launch as its
// epilogue only where the group then verifies, i.e. where gemv_prologue_problems allows
// it too; where the two conflict, the pass that runs first wins (the other launch stays
// out), and both programs verify. Before, the epilogue pass asked only
// gemv_epilogue_problems and moved in a launch writing bytes the prologue reads, and
// lumir-opt ended with "IR after pass 'gemv-epilogue' does not verify".

// The SiLU * mul writes over the first half of %x, which the norm reads: the group's
// programs would read %x beside the ones that write it. The norm becomes the prologue;
// the SiLU * mul stays after the group (with gemv-epilogue first the SiLU * mul
// moves in, and the norm stays before the group).
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @output_on_prologue_input(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:    }
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%xv : memref<1x32xbf16>)
// EPI-LABEL:   func.func @output_on_prologue_input(
// EPI:           cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
// EPI:           cublaslt_rt.matmul_group {
// EPI-NEXT:        cublaslt_rt.matmul @k
// EPI-NEXT:        cublaslt_rt.matmul @k
// EPI-NEXT:        cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%xv : memref<1x32xbf16>) {
func.func @output_on_prologue_input(%x0: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> memref<1x32xbf16> {
  %x = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.launch "hl.neg" ins(%x0 : memref<1x64xbf16>) outs(%x : memref<1x64xbf16>)
  %xv = cublaslt_rt.view %x {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<1x32xbf16>
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%xv : memref<1x32xbf16>) {
  ^bb0(%g: tensor<1x32xbf16>, %u: tensor<1x32xbf16>):
    %s = hl.silu %g : tensor<1x32xbf16> -> tensor<1x32xbf16>
    %p = hl.mul %s, %u : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
    hl.yield %p : tensor<1x32xbf16>
  }
  func.return %xv : memref<1x32xbf16>
}

// -----

// The SiLU * mul writes a buffer of its own: the group takes both.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @output_apart(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>) {
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %e
// EPI-LABEL:   func.func @output_apart(
// EPI:           cublaslt_rt.matmul_group {
// EPI-NEXT:        cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
// EPI:             cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>) {
func.func @output_apart(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> memref<1x32xbf16> {
  %e = cublaslt_rt.alloc : memref<1x32xbf16>
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>) {
  ^bb0(%g: tensor<1x32xbf16>, %u: tensor<1x32xbf16>):
    %s = hl.silu %g : tensor<1x32xbf16> -> tensor<1x32xbf16>
    %p = hl.mul %s, %u : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
    hl.yield %p : tensor<1x32xbf16>
  }
  func.return %e : memref<1x32xbf16>
}
