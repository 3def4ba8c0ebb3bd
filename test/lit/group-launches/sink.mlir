// RUN: lumir-opt %s --split-input-file -p group-launches | filecheck %s
// RUN: lumir-opt %s --split-input-file -p group-launches,group-launches | filecheck %s

// The value-cache write stands before the op that makes the key-cache write's source
// (the key's rotary, here a neg), as the CUDA lowering of a decode layer orders them:
// the key write cannot move up past the op it reads from, but the value write can move
// down past it (the neg touches neither the value cache nor its source), so the two
// writes still share a launch, standing where the key write stood.
// CHECK-LABEL: func.func @value_write_first(
// CHECK-NEXT:    %rk = cublaslt_rt.alloc : memref<1x2x1x4xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%k : memref<1x2x1x4xbf16>) outs(%rk : memref<1x2x1x4xbf16>)
// CHECK-NEXT:    cublaslt_rt.launch_group {
// CHECK-NEXT:      cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%vc, %i, %v : {{.*}}) outs(%vc : memref<1x2x8x4xbf16>)
// CHECK-NEXT:      cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %i, %rk : {{.*}}) outs(%kc : memref<1x2x8x4xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @value_write_first(%kc: memref<1x2x8x4xbf16>, %vc: memref<1x2x8x4xbf16>, %i: memref<1xi64>,
                             %k: memref<1x2x1x4xbf16>, %v: memref<1x2x1x4xbf16>)
    -> (memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>) {
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%vc, %i, %v : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%vc : memref<1x2x8x4xbf16>)
  %rk = cublaslt_rt.alloc : memref<1x2x1x4xbf16>
  cublaslt_rt.launch "hl.neg" ins(%k : memref<1x2x1x4xbf16>) outs(%rk : memref<1x2x1x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %i, %rk : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%kc : memref<1x2x8x4xbf16>)
  func.return %kc, %vc : memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>
}

// -----

// Moving down is refused like moving up: here the op in between reads the value cache
// (an attention over both caches would), so the value write must stay before it.
// CHECK-LABEL: func.func @value_cache_read_between(
// CHECK-NOT:     cublaslt_rt.launch_group
// CHECK:         func.return
func.func @value_cache_read_between(%kc: memref<1x2x8x4xbf16>, %vc: memref<1x2x8x4xbf16>, %i: memref<1xi64>,
                                    %k: memref<1x2x1x4xbf16>, %v: memref<1x2x1x4xbf16>)
    -> (memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>) {
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%vc, %i, %v : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%vc : memref<1x2x8x4xbf16>)
  %nv = cublaslt_rt.alloc : memref<1x2x8x4xbf16>
  cublaslt_rt.launch "hl.neg" ins(%vc : memref<1x2x8x4xbf16>) outs(%nv : memref<1x2x8x4xbf16>)
  %rk = cublaslt_rt.alloc : memref<1x2x1x4xbf16>
  cublaslt_rt.launch "hl.neg" ins(%k : memref<1x2x1x4xbf16>) outs(%rk : memref<1x2x1x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %i, %rk : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%kc : memref<1x2x8x4xbf16>)
  func.return %kc, %vc, %nv : memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>
}
