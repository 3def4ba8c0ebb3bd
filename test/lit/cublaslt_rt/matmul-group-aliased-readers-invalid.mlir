// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// The group's one CUDA kernel never writes its prologue's output (the members' B) nor,
// with an epilogue, the members' D, so nothing outside the group may read those bytes
// after it. A reader through another view of the same buffer counts as a reader of the
// value itself does: a sibling view at the same bytes, the buffer the value views (here
// returned), a later group reading it as its B. Before, only the value and views of it
// were followed, and each program here verified (on the CPU it ran as it should; on
// CUDA the reader would have found bytes nobody wrote). The ones that still verify:
// matmul-group-aliased-readers.mlir.

// The prologue writes %h, a view of %buf; a view %hs of the same bytes is read later.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @prologue_sibling_read(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> (memref<1x32xbf16>, memref<1x64xbf16>) {
  %buf = cublaslt_rt.alloc : memref<256xi8>
  %h = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %hs = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  %t = cublaslt_rt.alloc : memref<1x64xbf16>
  %ts = cublaslt_rt.view %t {byte_offset = 0 : i64} : memref<1x64xbf16> -> memref<64xbf16>
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
  cublaslt_rt.launch "hl.neg" ins(%hs : memref<64xbf16>) outs(%ts : memref<64xbf16>)
  func.return %d0, %t : memref<1x32xbf16>, memref<1x64xbf16>
}

// -----

// The buffer the prologue's output views is returned: the caller reads B's bytes.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @prologue_parent_returned(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> (memref<1x32xbf16>, memref<256xi8>) {
  %buf = cublaslt_rt.alloc : memref<256xi8>
  %h = cublaslt_rt.view %buf {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: func.return outside the group reads its output, which the group's kernel does not write}}
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
  func.return %d0, %buf : memref<1x32xbf16>, memref<256xi8>
}

// -----

// A later group reads the bytes as its own B (through a sibling view), after a write to
// other bytes of the buffer, which does not cover them.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @prologue_read_by_later_group(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> (memref<1x32xbf16>, memref<1x32xbf16>) {
  %buf = cublaslt_rt.alloc : memref<256xi8>
  %h = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %hs = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %tail = cublaslt_rt.view %buf {byte_offset = 128 : i64} : memref<256xi8> -> memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  %e0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %e1 = cublaslt_rt.alloc : memref<1x32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' prologue: cublaslt_rt.matmul_group outside the group reads its output, which the group's kernel does not write}}
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
  cublaslt_rt.launch "hl.neg" ins(%x : memref<1x64xbf16>) outs(%tail : memref<1x64xbf16>)
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%hs : memref<1x64xbf16>) d(%e0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%hs : memref<1x64xbf16>) d(%e1 : memref<1x32xbf16>)
  }
  func.return %d0, %e1 : memref<1x32xbf16>, memref<1x32xbf16>
}

// -----

// An epilogue group (no prologue): member 0's D is a view of %buf, and a sibling view of
// its bytes is returned.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @epilogue_sibling_returned(%h: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> (memref<1x32xbf16>, memref<32xbf16>) {
  %buf = cublaslt_rt.alloc : memref<64xi8>
  %d0 = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<64xi8> -> memref<1x32xbf16>
  %d0s = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<64xi8> -> memref<32xbf16>
  %d1 = cublaslt_rt.alloc : memref<1x32xbf16>
  %e = cublaslt_rt.alloc : memref<1x32xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' epilogue: func.return outside the group reads the D of member 0 (@k), which the group's kernel does not write}}
  cublaslt_rt.matmul_group {
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d0 : memref<1x32xbf16>)
    cublaslt_rt.matmul @k a(%w : memref<32x64xbf16>) b(%h : memref<1x64xbf16>) d(%d1 : memref<1x32xbf16>)
    cublaslt_rt.fused_launch ins(%d0, %d1 : memref<1x32xbf16>, memref<1x32xbf16>) outs(%e : memref<1x32xbf16>) {
    ^bb0(%g: tensor<1x32xbf16>, %u: tensor<1x32xbf16>):
      %s = hl.silu %g : tensor<1x32xbf16> -> tensor<1x32xbf16>
      %p = hl.mul %s, %u : (tensor<1x32xbf16>, tensor<1x32xbf16>) -> tensor<1x32xbf16>
      hl.yield %p : tensor<1x32xbf16>
    }
  }
  func.return %e, %d0s : memref<1x32xbf16>, memref<32xbf16>
}

// -----

// The same with a prologue, and the reader a launch reading part of member 1's D
// through a view of its buffer.
cublaslt_rt.plan @k {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 1 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 0 : i64, algorithm = "gemv"}
func.func @epilogue_part_read(%x: memref<1x64xbf16>, %w: memref<32x64xbf16>) -> (memref<1x32xbf16>, memref<8xbf16>) {
  %h = cublaslt_rt.alloc : memref<1x64xbf16>
  %d0 = cublaslt_rt.alloc : memref<1x32xbf16>
  %buf = cublaslt_rt.alloc : memref<64xi8>
  %d1 = cublaslt_rt.view %buf {byte_offset = 0 : i64} : memref<64xi8> -> memref<1x32xbf16>
  %part = cublaslt_rt.view %buf {byte_offset = 48 : i64} : memref<64xi8> -> memref<8xbf16>
  %e = cublaslt_rt.alloc : memref<1x32xbf16>
  %t = cublaslt_rt.alloc : memref<8xbf16>
  // expected-error @+1 {{'cublaslt_rt.matmul_group' epilogue: cublaslt_rt.launch outside the group reads the D of member 1 (@k), which the group's kernel does not write}}
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
  cublaslt_rt.launch "hl.neg" ins(%part : memref<8xbf16>) outs(%t : memref<8xbf16>)
  func.return %e, %t : memref<1x32xbf16>, memref<8xbf16>
}
