// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.launch: a non-GEMM kernel. It names the hl op it runs, carries that op's
// properties as params (printed only when there are some), reads `ins` and writes `outs`.

// An op without properties.
// CHECK-LABEL: func.func @add(
// CHECK-NEXT:    %s = cublaslt_rt.alloc : memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%a, %b : memref<4x8xf32>, memref<8xf32>) outs(%s : memref<4x8xf32>)
// CHECK-NEXT:    func.return %s : memref<4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "add"
// GENERIC:         "cublaslt_rt.launch"(%a, %b, %s) <{kernel = "hl.add"}> : (memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>) -> ()
func.func @add(%a: memref<4x8xf32>, %b: memref<8xf32>) -> memref<4x8xf32> {
  %s = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.launch "hl.add" ins(%a, %b : memref<4x8xf32>, memref<8xf32>) outs(%s : memref<4x8xf32>)
  func.return %s : memref<4x8xf32>
}

// -----

// Properties travel as params: softmax's dim, a reduction's dims and keepdim.
// CHECK-LABEL: func.func @params(
// CHECK-NEXT:    %p = cublaslt_rt.alloc : memref<4x8xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.softmax" {dim = -1 : i64} ins(%a : memref<4x8xbf16>) outs(%p : memref<4x8xbf16>)
// CHECK-NEXT:    %m = cublaslt_rt.alloc : memref<4x1xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.mean" {dims = array<i64: 1>, keepdim} ins(%p : memref<4x8xbf16>) outs(%m : memref<4x1xbf16>)
// CHECK-NEXT:    %g = cublaslt_rt.alloc : memref<4x8xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.gelu" {approximate = "tanh"} ins(%a : memref<4x8xbf16>) outs(%g : memref<4x8xbf16>)
// GENERIC-LABEL: "func.func"() <{sym_name = "params"
// GENERIC:         "cublaslt_rt.launch"(%a, %p) <{kernel = "hl.softmax", params = {dim = -1 : i64}}>
// GENERIC:         "cublaslt_rt.launch"(%p, %m) <{kernel = "hl.mean", params = {dims = array<i64: 1>, keepdim}}>
func.func @params(%a: memref<4x8xbf16>) -> memref<4x1xbf16> {
  %p = cublaslt_rt.alloc : memref<4x8xbf16>
  cublaslt_rt.launch "hl.softmax" {dim = -1 : i64} ins(%a : memref<4x8xbf16>) outs(%p : memref<4x8xbf16>)
  %m = cublaslt_rt.alloc : memref<4x1xbf16>
  cublaslt_rt.launch "hl.mean" {dims = array<i64: 1>, keepdim} ins(%p : memref<4x8xbf16>) outs(%m : memref<4x1xbf16>)
  %g = cublaslt_rt.alloc : memref<4x8xbf16>
  cublaslt_rt.launch "hl.gelu" {approximate = "tanh"} ins(%a : memref<4x8xbf16>) outs(%g : memref<4x8xbf16>)
  func.return %m : memref<4x1xbf16>
}

// -----

// Variadic inputs, integer and boolean buffers.
// CHECK-LABEL: func.func @gather_select(
// CHECK-NEXT:    %e = cublaslt_rt.alloc : memref<2x3x8xf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.embedding" ins(%table, %ids : memref<16x8xf16>, memref<2x3xi64>) outs(%e : memref<2x3x8xf16>)
// CHECK-NEXT:    %c = cublaslt_rt.alloc : memref<2x6x8xf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.cat" {dim = 1 : i64} ins(%e, %e : memref<2x3x8xf16>, memref<2x3x8xf16>) outs(%c : memref<2x6x8xf16>)
// CHECK-NEXT:    %w = cublaslt_rt.alloc : memref<2x6x8xf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.where" ins(%mask, %c, %c : memref<2x6x8xi1>, memref<2x6x8xf16>, memref<2x6x8xf16>) outs(%w : memref<2x6x8xf16>)
func.func @gather_select(%table: memref<16x8xf16>, %ids: memref<2x3xi64>, %mask: memref<2x6x8xi1>) -> memref<2x6x8xf16> {
  %e = cublaslt_rt.alloc : memref<2x3x8xf16>
  cublaslt_rt.launch "hl.embedding" ins(%table, %ids : memref<16x8xf16>, memref<2x3xi64>) outs(%e : memref<2x3x8xf16>)
  %c = cublaslt_rt.alloc : memref<2x6x8xf16>
  cublaslt_rt.launch "hl.cat" {dim = 1 : i64} ins(%e, %e : memref<2x3x8xf16>, memref<2x3x8xf16>) outs(%c : memref<2x6x8xf16>)
  %w = cublaslt_rt.alloc : memref<2x6x8xf16>
  cublaslt_rt.launch "hl.where" ins(%mask, %c, %c : memref<2x6x8xi1>, memref<2x6x8xf16>, memref<2x6x8xf16>) outs(%w : memref<2x6x8xf16>)
  func.return %w : memref<2x6x8xf16>
}

// -----

// A KV cache updated in place: hl.index_copy (one of the in-place kernels) writes its
// first input, the cache argument, and the function returns it.
// CHECK-LABEL: func.func @cache_update(
// CHECK-NEXT:    cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%cache, %pos, %kv : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%cache : memref<1x2x8x4xbf16>)
// CHECK-NEXT:    func.return %cache : memref<1x2x8x4xbf16>
func.func @cache_update(%cache: memref<1x2x8x4xbf16>, %pos: memref<1xi64>, %kv: memref<1x2x1x4xbf16>) -> memref<1x2x8x4xbf16> {
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%cache, %pos, %kv : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%cache : memref<1x2x8x4xbf16>)
  func.return %cache : memref<1x2x8x4xbf16>
}

// -----

// Strided views (hl.sdpa only): input i is read as transpose(input i, permutation i) and
// the output buffer holds transpose(result, output_permutation). Here v is [1, S, KV, D]
// read as [1, KV, S, D], and the [1, H, L, D] result is written as [1, L, H, D].
// CHECK-LABEL: func.func @strided_sdpa(
// CHECK-NEXT:    %o = cublaslt_rt.alloc : memref<1x6x4x16xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sdpa" {is_causal, enable_gqa} ins(%q, %k, %v : memref<1x4x6x16xbf16>, memref<1x2x6x16xbf16>, memref<1x6x2x16xbf16>) outs(%o : memref<1x6x4x16xbf16>) {input_permutations = [array<i64: 0, 1, 2, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>], output_permutation = array<i64: 0, 2, 1, 3>}
// GENERIC-LABEL: "func.func"() <{sym_name = "strided_sdpa"
// GENERIC:         "cublaslt_rt.launch"(%q, %k, %v, %o) <{kernel = "hl.sdpa", params = {is_causal, enable_gqa}, input_permutations = [array<i64: 0, 1, 2, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>], output_permutation = array<i64: 0, 2, 1, 3>}> : (memref<1x4x6x16xbf16>, memref<1x2x6x16xbf16>, memref<1x6x2x16xbf16>, memref<1x6x4x16xbf16>) -> ()
func.func @strided_sdpa(%q: memref<1x4x6x16xbf16>, %k: memref<1x2x6x16xbf16>, %v: memref<1x6x2x16xbf16>) -> memref<1x6x4x16xbf16> {
  %o = cublaslt_rt.alloc : memref<1x6x4x16xbf16>
  cublaslt_rt.launch "hl.sdpa" {is_causal, enable_gqa} ins(%q, %k, %v : memref<1x4x6x16xbf16>, memref<1x2x6x16xbf16>, memref<1x6x2x16xbf16>) outs(%o : memref<1x6x4x16xbf16>) {input_permutations = [array<i64: 0, 1, 2, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>], output_permutation = array<i64: 0, 2, 1, 3>}
  func.return %o : memref<1x6x4x16xbf16>
}

// -----

// Column blocks (hl.sdpa only): input i is read as reshape(slice(input i, -1, start,
// end), shape), then transposed. Here q, k and v are the three 32-wide blocks of one
// [2, 5, 96] projection, each split into 4 heads of 8 and read as [2, 4, 5, 8]; an
// empty array reads its input whole.
// CHECK-LABEL: func.func @column_blocks(
// CHECK-NEXT:    %o = cublaslt_rt.alloc : memref<2x4x5x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sdpa" ins(%qkv, %k, %qkv : memref<2x5x96xf32>, memref<2x4x5x8xf32>, memref<2x5x96xf32>) outs(%o : memref<2x4x5x8xf32>) {input_windows = [array<i64: 0, 32, 2, 5, 4, 8>, array<i64>, array<i64: 64, 96, 2, 5, 4, 8>], input_permutations = [array<i64: 0, 2, 1, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>]}
// GENERIC-LABEL: "func.func"() <{sym_name = "column_blocks"
// GENERIC:         "cublaslt_rt.launch"(%qkv, %k, %qkv, %o) <{kernel = "hl.sdpa", input_windows = [array<i64: 0, 32, 2, 5, 4, 8>, array<i64>, array<i64: 64, 96, 2, 5, 4, 8>], input_permutations = [array<i64: 0, 2, 1, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>]}> : (memref<2x5x96xf32>, memref<2x4x5x8xf32>, memref<2x5x96xf32>, memref<2x4x5x8xf32>) -> ()
func.func @column_blocks(%qkv: memref<2x5x96xf32>, %k: memref<2x4x5x8xf32>) -> memref<2x4x5x8xf32> {
  %o = cublaslt_rt.alloc : memref<2x4x5x8xf32>
  cublaslt_rt.launch "hl.sdpa" ins(%qkv, %k, %qkv : memref<2x5x96xf32>, memref<2x4x5x8xf32>, memref<2x5x96xf32>) outs(%o : memref<2x4x5x8xf32>) {input_windows = [array<i64: 0, 32, 2, 5, 4, 8>, array<i64>, array<i64: 64, 96, 2, 5, 4, 8>], input_permutations = [array<i64: 0, 2, 1, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 2, 1, 3>]}
  func.return %o : memref<2x4x5x8xf32>
}
