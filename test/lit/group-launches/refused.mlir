// RUN: lumir-opt %s -p 'group-launches' | filecheck %s

// What stays apart. A cache write into a new buffer (not in place) would copy the whole
// cache; writes reading different indices; float adds (torch rounds them its own way);
// and a write that cannot move up to the first: the sdpa between them reads the cache
// it writes.

// CHECK-LABEL: func.func @apart(
// CHECK-NOT:     cublaslt_rt.launch_group
// CHECK:         func.return
func.func @apart(%kc: memref<1x2x8x4xbf16>, %vc: memref<1x2x8x4xbf16>, %i0: memref<1xi64>,
                 %i1: memref<1xi64>, %src: memref<1x2x1x4xbf16>, %q: memref<1x2x1x4xbf16>,
                 %x: memref<4xf32>, %y: memref<4xf32>, %z: memref<4xf32>)
    -> (memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<4xf32>, memref<4xf32>, memref<1x2x1x4xbf16>) {
  %copy = cublaslt_rt.alloc : memref<1x2x8x4xbf16>
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %i0, %src : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%copy : memref<1x2x8x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %i0, %src : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%kc : memref<1x2x8x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%vc, %i1, %src : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%vc : memref<1x2x8x4xbf16>)
  cublaslt_rt.launch "hl.add" ins(%x, %y : memref<4xf32>, memref<4xf32>) outs(%x : memref<4xf32>)
  cublaslt_rt.launch "hl.add" ins(%y, %z : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  func.return %kc, %vc, %copy, %x, %y, %q : memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<4xf32>, memref<4xf32>, memref<1x2x1x4xbf16>
}

// CHECK-LABEL: func.func @blocked(
// CHECK-NOT:     cublaslt_rt.launch_group
// CHECK:         func.return
func.func @blocked(%kc: memref<1x2x8x4xbf16>, %vc: memref<1x2x8x4xbf16>, %i: memref<1xi64>,
                   %src: memref<1x2x1x4xbf16>, %q: memref<1x2x1x4xbf16>)
    -> (memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x1x4xbf16>) {
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %i, %src : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%kc : memref<1x2x8x4xbf16>)
  %att = cublaslt_rt.alloc : memref<1x2x1x4xbf16>
  cublaslt_rt.launch "hl.sdpa" {scale = 0.5 : f64} ins(%q, %kc, %vc : memref<1x2x1x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>) outs(%att : memref<1x2x1x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%vc, %i, %src : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%vc : memref<1x2x8x4xbf16>)
  func.return %kc, %vc, %att : memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x1x4xbf16>
}
