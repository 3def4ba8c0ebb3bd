// RUN: lumir-opt %s --split-input-file | filecheck %s

// What still verifies around the bytes a group's one CUDA kernel leaves unwritten (its
// prologue's output; with an epilogue, the members' D) when other views of their buffer
// touch them (matmul-group-aliased-readers-invalid.mlir has the readers it refuses):
// a view that writes the bytes before it reads them (the buffer plan's next tenant),
// one that reads other bytes of the buffer, one that reads them before the group, and
// an epilogue that writes its output over a D (the buffer plan's in-place SiLU * mul,
// through a sibling view or the D value itself), whose bytes the kernel does write.

// After the group, a sibling view of B's bytes is written (a fresh tenant), then read.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @written_before_read(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK:         cublaslt_rt.launch "hl.neg" ins(%x : memref<1x64xbf16>) outs(%hs : memref<1x64xbf16>)
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%hs : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
func.func @written_before_read(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> (memref<1x32xbf16>, memref<1x64xbf16>) {
  %buf = cublaslt_rt.alloc : memref<256xi8>
  %h = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %hs = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  %t = cublaslt_rt.alloc : memref<1x64xbf16>
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
  cublaslt_rt.launch "hl.neg" ins(%x : memref<1x64xbf16>) outs(%hs : memref<1x64xbf16>)
  cublaslt_rt.launch "hl.neg" ins(%hs : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
  func.return %d0, %t : memref<1x32xbf16>, memref<1x64xbf16>
}

// -----

// Other bytes of B's buffer read after the group; B's own bytes read before it.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @other_bytes_and_before(
// CHECK:         cublaslt_rt.launch "hl.neg" ins(%hs : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK:         cublaslt_rt.launch "hl.neg" ins(%tail : memref<1x64xbf16>) outs(%u : memref<1x64xbf16>)
func.func @other_bytes_and_before(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %y: memref<1x64xbf16>) -> (memref<1x32xbf16>, memref<1x64xbf16>, memref<1x64xbf16>) {
  %buf = cublaslt_rt.alloc : memref<256xi8>
  %h = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %hs = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %tail = cublaslt_rt.view %buf {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  %t = cublaslt_rt.alloc : memref<1x64xbf16>
  %u = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.launch "hl.neg" ins(%y : memref<1x64xbf16>) outs(%hs : memref<1x64xbf16>)
  cublaslt_rt.launch "hl.neg" ins(%hs : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
  cublaslt_rt.launch "hl.neg" ins(%y : memref<1x64xbf16>) outs(%tail : memref<1x64xbf16>)
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
  cublaslt_rt.launch "hl.neg" ins(%tail : memref<1x64xbf16>) outs(%u : memref<1x64xbf16>)
  func.return %d0, %t, %u : memref<1x32xbf16>, memref<1x64xbf16>, memref<1x64xbf16>
}

// -----

// B's own bytes written and read before the group through the value itself, not a
// sibling view: what hl-canonicalize makes of the function above (it merges the two
// views of the same bytes). Those ops run before the group, whatever it writes (mutate
// fuzzer, mutant 4469 of seed 1002: 'IR after pass hl-canonicalize does not verify').
// CHECK-LABEL: func.func @same_value_before(
// CHECK:         cublaslt_rt.launch "hl.neg" ins(%y : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%h : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK:         cublaslt_rt.launch "hl.neg" ins(%tail : memref<1x64xbf16>) outs(%u : memref<1x64xbf16>)
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @same_value_before(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>, %y: memref<1x64xbf16>) -> (memref<1x32xbf16>, memref<1x64xbf16>, memref<1x64xbf16>) {
  %buf = cublaslt_rt.alloc : memref<256xi8>
  %h = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %tail = cublaslt_rt.view %buf {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  %t = cublaslt_rt.alloc : memref<1x64xbf16>
  %u = cublaslt_rt.alloc : memref<1x64xbf16>
  cublaslt_rt.launch "hl.neg" ins(%y : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>)
  cublaslt_rt.launch "hl.neg" ins(%h : memref<1x64xbf16>) outs(%t : memref<1x64xbf16>)
  cublaslt_rt.launch "hl.neg" ins(%y : memref<1x64xbf16>) outs(%tail : memref<1x64xbf16>)
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
  cublaslt_rt.launch "hl.neg" ins(%tail : memref<1x64xbf16>) outs(%u : memref<1x64xbf16>)
  func.return %d0, %t, %u : memref<1x32xbf16>, memref<1x64xbf16>, memref<1x64xbf16>
}

// -----

// The epilogue writes SiLU(gate) * up over gate's bytes (a sibling view of member 0's
// D, as the buffer plan places it), and that result is returned.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @epilogue_over_gate(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK:           cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>)
// CHECK:         func.return %e
func.func @epilogue_over_gate(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> memref<1x32xbf16> {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %buf = cublaslt_rt.alloc : memref<64xi8>
  %d0 = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<64xi8> -> memref<1x32xbf16>
  %e = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<64xi8> -> memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>) {
    ^bb0(%g: tensor<1x32xbf16>, %u: tensor<1x32xbf16>):
      %s = hl.silu %g : tensor<1x32xbf16> -> tensor<1x32xbf16>
      %p = hl.mul %s, %u : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
  }
  func.return %e : memref<1x32xbf16>
}

// -----

// The same with the epilogue's output the D value itself (what CSE makes of two views of
// one offset): the function returns %d0, whose bytes the epilogue writes on CUDA too.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
// CHECK-LABEL: func.func @epilogue_in_place(
// CHECK:           cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%d0 : memref<1x32xbf16>)
// CHECK:         func.return %d0
func.func @epilogue_in_place(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> memref<1x32xbf16> {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  cublaslt_rt.matmul_group {
    cublaslt_rt.fused_launch ins(%x : memref<1x64xbf16>) outs(%h : memref<1x64xbf16>) {
    ^bb0(%a: tensor<1x64xbf16>):
      %m = hl.mean %a {dims = array<i64: -1>, keepdim} : tensor<1x64xbf16> -> tensor<1x1xbf16>
      %c = hl.sub %a, %m : (tensor<1x64xbf16>, tensor<1x1xbf16>) -> tensor<1x64xbf16>
      hl.yield %c : tensor<1x64xbf16>
    }
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%d0 : memref<1x32xbf16>) {
    ^bb0(%g: tensor<1x32xbf16>, %u: tensor<1x32xbf16>):
      %s = hl.silu %g : tensor<1x32xbf16> -> tensor<1x32xbf16>
      %p = hl.mul %s, %u : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
  }
  func.return %d0 : memref<1x32xbf16>
}
