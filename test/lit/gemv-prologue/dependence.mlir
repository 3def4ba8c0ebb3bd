// RUN: lumir-opt %s --split-input-file -p gemv-prologue | filecheck %s
// RUN: lumir-opt %s --split-input-file -p gemv-prologue,gemv-prologue | filecheck %s

// gemv-prologue on lowered IR: the fused launch that writes the members' B moves down
// into the group only when no op between them depends on it or disturbs it (reads or
// writes bytes it writes, or writes bytes it reads; views resolved), when it is the
// last op to write B, and when the group would verify with it. The bodies centre the
// row (x - mean(x)), a one-row program as an RMSNorm is.

// An op between that only reads the launch's input does not stop it: the launch moves
// past it, and the op stays where it was.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @crosses_a_reader(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%x : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @crosses_a_reader(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %t: memref<1x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  cublaslt_rt.launch "hl.neg" ins(%x : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// An op between that writes the launch's input (through a view of its bytes): moved
// past it, the launch would read the new bytes. It stays.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @input_written_between(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    %xv = cublaslt_rt.view
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
// CHECK:         cublaslt_rt.launch "hl.neg" ins(%t : memref<64xbf16>) outs(%xv : memref<64xbf16>)
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:    }
func.func @input_written_between(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %t: memref<64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %xv = cublaslt_rt.view %x {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<64xbf16>
  cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  cublaslt_rt.launch "hl.neg" ins(%t : memref<64xbf16>) outs(%xv : memref<64xbf16>)
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// An op between that writes part of B: it is the last to write B, not the fused launch,
// so nothing moves.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @b_partly_written_between(
// CHECK:         cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
// CHECK:         cublaslt_rt.launch "hl.neg" ins(%t : memref<32xbf16>) outs(%half : memref<32xbf16>)
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:    }
func.func @b_partly_written_between(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %h: memref<1x64xbf16>, %t: memref<32xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %half = cublaslt_rt.view %h {byte_offset = 64 : i64} : memref<1x64xbf16> -> memref<32xbf16>
  cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  cublaslt_rt.launch "hl.neg" ins(%t : memref<32xbf16>) outs(%half : memref<32xbf16>)
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// An op the pass does not know (a call) may touch anything: nothing moves across it.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func private @opaque()
// CHECK-LABEL: func.func @call_between(
// CHECK:         cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
// CHECK:         func.call @opaque() : () -> ()
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:    }
func.func @call_between(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  func.call @opaque() : () -> ()
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// The launch reads what the group's epilogue writes: in the group, its programs would
// read those bytes while others write them. It stays.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @reads_the_epilogue_output(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
// CHECK-NEXT:    %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%e : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%ev : memref<1x32xbf16>)
func.func @reads_the_epilogue_output(%e: memref<1x64xbf16>, %w: memref<32x64xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.fused_launch ins(%e : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  %ev = cublaslt_rt.view %e {byte_offset = 64 : i64} : memref<1x64xbf16> -> memref<1x32xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%ev : memref<1x32xbf16>) {
    ^bb0(%p: tensor<1x32xbf16>, %q: tensor<1x32xbf16>):
      %s = hl.mul %p, %q : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %s : tensor<1x32xbf16>
    }
  }
  func.return
}

// -----

// Two groups, each after its own launch (a layer's two norms): each takes its own, in
// program order.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @two_layers(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    %h2 = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%y : memref<1x64xbf16>) outs(%h2 : memref<1x64xbf16>)
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h2 : memref<1x64xbf16>) d(%d2 : memref<1x32xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h2 : memref<1x64xbf16>) d(%d3 : memref<1x32xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @two_layers(%x: memref<1x64xbf16>, %y: memref<1x64xbf16>, %w: memref<32x64xbf16>, %d0: memref<1x32xbf16>, %d1: memref<1x32xbf16>, %d2: memref<1x32xbf16>, %d3: memref<1x32xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %h2 = cublaslt_rt.alloc : memref<1x64xbf16>
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
  cublaslt_rt.fused_launch ins(%y : memref<1x64xbf16>) outs(%h2 : memref<1x64xbf16>) {
  ^bb0(%a: tensor<1x64xbf16>):
    %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
    %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
    hl.yield %c : tensor<1x64xbf16>
  }
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h2 : memref<1x64xbf16>) d(%d2 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h2 : memref<1x64xbf16>) d(%d3 : memref<1x32xbf16>)
  }
  func.return
}

// -----

// The launch writes a function argument, which the caller reads after the call: in the
// group its output would never be written. It stays.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @writes_an_argument(
// CHECK-NEXT:    %d0 = cublaslt_rt.alloc
// CHECK-NEXT:    %d1 = cublaslt_rt.alloc
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:      cublaslt_rt.matmul @k
// CHECK-NEXT:    }
func.func @writes_an_argument(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %h: memref<1x64xbf16>) -> (memref<1x32xbf16>, memref<1x32xbf16>) {
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
  func.return %d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>
}
