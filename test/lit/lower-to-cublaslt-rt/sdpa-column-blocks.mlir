// RUN: lumir-opt %s -p "lower-to-cublaslt-rt{share_buffers=false}" --split-input-file | filecheck %s
// RUN: lumir-run %s -p lower-to-cublaslt-rt --split-input-file | filecheck %s --check-prefix=EXEC

// q, k and v as column blocks of one fused projection's result (GPT-2's c_attn split
// into three, each viewed as heads and transposed): the sdpa launch reads each block in
// place through input_windows ([start, end) of the last dimension, viewed as the
// block's shape), so the three hl.slice copies and their buffers go. The second RUN
// line runs each function against the unfused program.

// CHECK-LABEL: func.func @fused_qkv(
// CHECK-NEXT:    %qkv = cublaslt_rt.alloc : memref<2x5x96xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%x : memref<2x5x96xf32>) outs(%qkv : memref<2x5x96xf32>)
// CHECK-NEXT:    %o = cublaslt_rt.alloc : memref<2x5x4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sdpa" {is_causal} ins(%qkv, %qkv, %qkv : memref<2x5x96xf32>, memref<2x5x96xf32>, memref<2x5x96xf32>) outs(%o : memref<2x5x4x8xf32>) {input_windows = [array<i64: 0, 32, 2, 5, 4, 8>, array<i64: 32, 64, 2, 5, 4, 8>, array<i64: 64, 96, 2, 5, 4, 8>], input_permutations = [array<i64: 0, 2, 1, 3>, array<i64: 0, 2, 1, 3>, array<i64: 0, 2, 1, 3>], output_permutation = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT:    func.return %o : memref<2x5x4x8xf32>
// EXEC-LABEL: @fused_qkv on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @fused_qkv(%x: tensor<2x5x96xf32>) -> tensor<2x5x4x8xf32> {
  %qkv = hl.neg %x : tensor<2x5x96xf32> -> tensor<2x5x96xf32>
  %q = hl.slice %qkv {dim = 2 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : tensor<2x5x96xf32> -> tensor<2x5x32xf32>
  %k = hl.slice %qkv {dim = -1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : tensor<2x5x96xf32> -> tensor<2x5x32xf32>
  %v = hl.slice %qkv {dim = 2 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : tensor<2x5x96xf32> -> tensor<2x5x32xf32>
  %qh = hl.reshape %q : tensor<2x5x32xf32> -> tensor<2x5x4x8xf32>
  %kh = hl.reshape %k : tensor<2x5x32xf32> -> tensor<2x5x4x8xf32>
  %vh = hl.reshape %v : tensor<2x5x32xf32> -> tensor<2x5x4x8xf32>
  %qt = hl.transpose %qh {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x8xf32> -> tensor<2x4x5x8xf32>
  %kt = hl.transpose %kh {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x8xf32> -> tensor<2x4x5x8xf32>
  %vt = hl.transpose %vh {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x8xf32> -> tensor<2x4x5x8xf32>
  %a = hl.sdpa %qt, %kt, %vt {is_causal} : tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x5x8xf32>
  %o = hl.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x5x8xf32> -> tensor<2x5x4x8xf32>
  func.return %o : tensor<2x5x4x8xf32>
}

// -----

// A block read in place without a reshape or transpose (a [B, H, S, 3D] projection
// chunked into q, k, v along the last dimension); the key block is also returned, so
// its copy stays and the launch reads the copy.
// CHECK-LABEL: func.func @chunked_heads(
// CHECK:         cublaslt_rt.launch "hl.slice" {dim = 3 : i64, start = 8 : i64, end = 16 : i64, step = 1 : i64} ins(%p : memref<1x2x6x24xf32>) outs(%k : memref<1x2x6x8xf32>)
// CHECK-NOT:     "hl.slice"
// CHECK:         cublaslt_rt.launch "hl.sdpa" ins(%p, %k, %p : memref<1x2x6x24xf32>, memref<1x2x6x8xf32>, memref<1x2x6x24xf32>) outs(%o : memref<1x2x6x8xf32>) {input_windows = [array<i64: 0, 8, 1, 2, 6, 8>, array<i64>, array<i64: 16, 24, 1, 2, 6, 8>]}
// EXEC-LABEL: @chunked_heads on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
// EXEC-NEXT:    result 1 {{.*}}: ok
func.func @chunked_heads(%x: tensor<1x2x6x24xf32>) -> (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) {
  %p = hl.neg %x : tensor<1x2x6x24xf32> -> tensor<1x2x6x24xf32>
  %q = hl.slice %p {dim = 3 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x2x6x24xf32> -> tensor<1x2x6x8xf32>
  %k = hl.slice %p {dim = 3 : i64, start = 8 : i64, end = 16 : i64, step = 1 : i64} : tensor<1x2x6x24xf32> -> tensor<1x2x6x8xf32>
  %v = hl.slice %p {dim = 3 : i64, start = 16 : i64, end = 24 : i64, step = 1 : i64} : tensor<1x2x6x24xf32> -> tensor<1x2x6x8xf32>
  %o = hl.sdpa %q, %k, %v : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x6x8xf32>
  func.return %o, %k : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>
}

// -----

// A block of a function argument keeps its copy: an argument may be a cache that the
// loader updates in place, so reading it later than the copy did could see other values.
// CHECK-LABEL: func.func @argument_blocks(
// CHECK-COUNT-3: cublaslt_rt.launch "hl.slice"
// CHECK-NOT:     input_windows
// EXEC-LABEL: @argument_blocks on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @argument_blocks(%p: tensor<1x2x6x24xf32>) -> tensor<1x2x6x8xf32> {
  %q = hl.slice %p {dim = 3 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<1x2x6x24xf32> -> tensor<1x2x6x8xf32>
  %k = hl.slice %p {dim = 3 : i64, start = 8 : i64, end = 16 : i64, step = 1 : i64} : tensor<1x2x6x24xf32> -> tensor<1x2x6x8xf32>
  %v = hl.slice %p {dim = 3 : i64, start = 16 : i64, end = 24 : i64, step = 1 : i64} : tensor<1x2x6x24xf32> -> tensor<1x2x6x8xf32>
  %o = hl.sdpa %q, %k, %v : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x6x8xf32>
  func.return %o : tensor<1x2x6x8xf32>
}
