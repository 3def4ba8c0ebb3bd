// RUN: lumir-opt %s | lumir-opt | filecheck %s
// RUN: lumir-opt %s --print-op-generic | lumir-opt | filecheck %s
// RUN: lumir-opt %s -p lumir-pipeline | filecheck %s --check-prefix=LOWERED

// hl.index_copy is aten.index_copy, a KV cache's update: the cache with the slices at
// %pos along dim 2 replaced by the new keys. It is functional: the result is a new
// value, and lowering gives it a buffer of its own and one launch.

// CHECK-LABEL: func.func @update(
// CHECK-NEXT:    %r = hl.index_copy %cache[%pos], %kv {dim = 2 : i64} : (tensor<1x2x8x4xbf16>, tensor<3xi64>, tensor<1x2x3x4xbf16>) -> tensor<1x2x8x4xbf16>
// LOWERED-LABEL: func.func @update(
// LOWERED-NEXT:    %r = cublaslt_rt.alloc : memref<1x2x8x4xbf16>
// LOWERED-NEXT:    cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%cache, %pos, %kv : memref<1x2x8x4xbf16>, memref<3xi64>, memref<1x2x3x4xbf16>) outs(%r : memref<1x2x8x4xbf16>)
// LOWERED-NEXT:    func.return %r : memref<1x2x8x4xbf16>
func.func @update(%cache: tensor<1x2x8x4xbf16>, %pos: tensor<3xi64>, %kv: tensor<1x2x3x4xbf16>) -> tensor<1x2x8x4xbf16> {
  %r = hl.index_copy %cache[%pos], %kv {dim = 2 : i64} : (tensor<1x2x8x4xbf16>, tensor<3xi64>, tensor<1x2x3x4xbf16>) -> tensor<1x2x8x4xbf16>
  func.return %r : tensor<1x2x8x4xbf16>
}
