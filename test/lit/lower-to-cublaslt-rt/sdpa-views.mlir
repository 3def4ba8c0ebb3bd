// RUN: lumir-opt %s -p "lower-to-cublaslt-rt{share_buffers=false}" --split-input-file | filecheck %s
// RUN: lumir-run %s -p lower-to-cublaslt-rt --split-input-file | filecheck %s --check-prefix=EXEC

// Transposes around hl.sdpa are no copy kernels: the sdpa launch reads a transposed
// query/key/value through input_permutations (a strided view of the transpose's input)
// and writes a transposed result through output_permutation (a permuted view of the
// transpose's buffer). The second RUN line runs each function against the unfused
// program: the strided views read and write the right bytes.

// Llama's attention: v [1, S, KV, D] transposed to [1, KV, S, D], grouped over 4 query
// heads, and the result [1, H, S, D] transposed back to [1, S, H, D] for o_proj.
// CHECK-LABEL: func.func @llama_attention(
// CHECK-NEXT:    %t = cublaslt_rt.alloc : memref<1x6x4x16xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sdpa" {is_causal, scale = 2.500000e-01 : f64, enable_gqa} ins(%q, %k, %v : memref<1x4x6x16xbf16>, memref<1x2x6x16xbf16>, memref<1x6x2x16xbf16>) outs(%t : memref<1x6x4x16xbf16>) {input_permutations = [array<i64: 0, 1, 2, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>], output_permutation = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT:    %r = cublaslt_rt.view %t {byte_offset = 0 : i64} : memref<1x6x4x16xbf16> -> memref<6x64xbf16>
// CHECK-NEXT:    func.return %r : memref<6x64xbf16>
// EXEC-LABEL: @llama_attention on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @llama_attention(%q: tensor<1x4x6x16xbf16>, %k: tensor<1x2x6x16xbf16>, %v: tensor<1x6x2x16xbf16>) -> tensor<6x64xbf16> {
  %vt = hl.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16> -> tensor<1x2x6x16xbf16>
  %o = hl.sdpa %q, %k, %vt {is_causal, scale = 2.500000e-01 : f64, enable_gqa} : tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %t = hl.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xbf16> -> tensor<1x6x4x16xbf16>
  %r = hl.reshape %t : tensor<1x6x4x16xbf16> -> tensor<6x64xbf16>
  func.return %r : tensor<6x64xbf16>
}

// -----

// One transpose read as both key and value; no output transpose: the result is the
// sdpa's own dense buffer (no output_permutation).
// CHECK-LABEL: func.func @shared_operand(
// CHECK-NEXT:    %o = cublaslt_rt.alloc : memref<2x3x5x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sdpa" ins(%q, %kv, %kv : memref<2x3x5x8xf32>, memref<2x5x3x8xf32>, memref<2x5x3x8xf32>) outs(%o : memref<2x3x5x8xf32>) {input_permutations = [array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>, array<i64: 0, 2, 1, 3>]}
// CHECK-NEXT:    func.return %o : memref<2x3x5x8xf32>
// EXEC-LABEL: @shared_operand on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @shared_operand(%q: tensor<2x3x5x8xf32>, %kv: tensor<2x5x3x8xf32>) -> tensor<2x3x5x8xf32> {
  %t = hl.transpose %kv {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x8xf32> -> tensor<2x3x5x8xf32>
  %o = hl.sdpa %q, %t, %t : tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32> -> tensor<2x3x5x8xf32>
  func.return %o : tensor<2x3x5x8xf32>
}

// -----

// Transposes that stay copies: one that another op reads too (the copy is needed
// anyway), one that moves the last dimension (SDPA needs it contiguous), and an output
// transpose of a result that has a second use. Without any strided operand or result
// the launch is the plain one.
// CHECK-LABEL: func.func @kept_copies(
// CHECK-NEXT:    %kt = cublaslt_rt.alloc : memref<1x2x4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.transpose" {permutation = array<i64: 0, 2, 1, 3>} ins(%k : memref<1x4x2x8xf32>) outs(%kt : memref<1x2x4x8xf32>)
// CHECK-NEXT:    %vt = cublaslt_rt.alloc : memref<1x2x4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.transpose" {permutation = array<i64: 0, 1, 3, 2>} ins(%v : memref<1x2x8x4xf32>) outs(%vt : memref<1x2x4x8xf32>)
// CHECK-NEXT:    %o = cublaslt_rt.alloc : memref<1x2x4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sdpa" ins(%q, %kt, %vt : memref<1x2x4x8xf32>, memref<1x2x4x8xf32>, memref<1x2x4x8xf32>) outs(%o : memref<1x2x4x8xf32>)
// CHECK-NEXT:    %ot = cublaslt_rt.alloc : memref<1x4x2x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.transpose" {permutation = array<i64: 0, 2, 1, 3>} ins(%o : memref<1x2x4x8xf32>) outs(%ot : memref<1x4x2x8xf32>)
// CHECK-NEXT:    %s = cublaslt_rt.alloc : memref<1x2x4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%o, %kt : memref<1x2x4x8xf32>, memref<1x2x4x8xf32>) outs(%s : memref<1x2x4x8xf32>)
// EXEC-LABEL: @kept_copies on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
// EXEC-NEXT:    result 1 {{.*}}: ok
func.func @kept_copies(%q: tensor<1x2x4x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x2x8x4xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x2x4x8xf32>) {
  %kt = hl.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x8xf32> -> tensor<1x2x4x8xf32>
  %vt = hl.transpose %v {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x4xf32> -> tensor<1x2x4x8xf32>
  %o = hl.sdpa %q, %kt, %vt : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %ot = hl.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x8xf32> -> tensor<1x4x2x8xf32>
  %s = hl.add %o, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %ot, %s : tensor<1x4x2x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// Decode (one query): the transposes [1, 1, H, D] <-> [1, H, 1, D] only move a unit
// dimension, so they are views as before, not permuted reads or writes.
// CHECK-LABEL: func.func @decode_query(
// CHECK-NEXT:    %qt = cublaslt_rt.view %q {byte_offset = 0 : i64} : memref<1x1x4x8xf32> -> memref<1x4x1x8xf32>
// CHECK-NEXT:    %o = cublaslt_rt.alloc : memref<1x4x1x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sdpa" ins(%qt, %k, %v : memref<1x4x1x8xf32>, memref<1x4x6x8xf32>, memref<1x4x6x8xf32>) outs(%o : memref<1x4x1x8xf32>){{$}}
// CHECK-NEXT:    %ot = cublaslt_rt.view %o {byte_offset = 0 : i64} : memref<1x4x1x8xf32> -> memref<1x1x4x8xf32>
// EXEC-LABEL: @decode_query on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @decode_query(%q: tensor<1x1x4x8xf32>, %k: tensor<1x4x6x8xf32>, %v: tensor<1x4x6x8xf32>) -> tensor<1x1x4x8xf32> {
  %qt = hl.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x4x8xf32> -> tensor<1x4x1x8xf32>
  %o = hl.sdpa %qt, %k, %v : tensor<1x4x1x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32> -> tensor<1x4x1x8xf32>
  %ot = hl.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x4x1x8xf32> -> tensor<1x1x4x8xf32>
  func.return %ot : tensor<1x1x4x8xf32>
}
