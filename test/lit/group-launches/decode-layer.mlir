// RUN: lumir-opt %s -p 'group-launches' | filecheck %s
// RUN: lumir-opt %s -p 'group-launches,group-launches' | filecheck %s

// A decode layer's cache updates as the backend loads them (lumir.backend.in_place has
// made them write the caches and counters where they live). The k and v writes read
// one index and become one launch. The i64 adds group greedily in program order: the
// index add anchors, and the second counter's increment, which nothing in between
// reads, moves up to it; the first counter's cannot join, since the anchor reads the
// counter it writes. A second run changes nothing.

// CHECK-LABEL: func.func @decode(
// CHECK:         %idx = cublaslt_rt.alloc : memref<1xi64>
// CHECK-NEXT:    cublaslt_rt.launch_group {
// CHECK-NEXT:      cublaslt_rt.launch "hl.add" ins(%pos, %c0 : memref<1xi64>, memref<i64>) outs(%idx : memref<1xi64>)
// CHECK-NEXT:      cublaslt_rt.launch "hl.add" ins(%c1, %one : memref<i64>, memref<i64>) outs(%c1 : memref<i64>)
// CHECK-NEXT:    }
// CHECK:         cublaslt_rt.launch "hl.neg"
// CHECK-NEXT:    cublaslt_rt.launch_group {
// CHECK-NEXT:      cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %idx, %kpos : {{.*}}) outs(%kc : memref<1x2x8x4xbf16>)
// CHECK-NEXT:      cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%vc, %idx, %vnew : {{.*}}) outs(%vc : memref<1x2x8x4xbf16>)
// CHECK-NEXT:    }
// CHECK:         cublaslt_rt.launch "hl.sdpa"
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%c0, %one : memref<i64>, memref<i64>) outs(%c0 : memref<i64>)
// CHECK-NEXT:    func.return
func.func @decode(%kc: memref<1x2x8x4xbf16>, %vc: memref<1x2x8x4xbf16>, %c0: memref<i64>,
                  %c1: memref<i64>, %pos: memref<1xi64>, %knew: memref<1x2x1x4xbf16>,
                  %vnew: memref<1x2x1x4xbf16>, %q: memref<1x2x1x4xbf16>)
    -> (memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<i64>, memref<i64>, memref<1x2x1x4xbf16>) {
  %one = cublaslt_rt.constant {value = dense<1> : tensor<i64>} : memref<i64>
  %idx = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.add" ins(%pos, %c0 : memref<1xi64>, memref<i64>) outs(%idx : memref<1xi64>)
  %kpos = cublaslt_rt.alloc : memref<1x2x1x4xbf16>
  cublaslt_rt.launch "hl.neg" ins(%knew : memref<1x2x1x4xbf16>) outs(%kpos : memref<1x2x1x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%kc, %idx, %kpos : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%kc : memref<1x2x8x4xbf16>)
  cublaslt_rt.launch "hl.index_copy" {dim = 2 : i64} ins(%vc, %idx, %vnew : memref<1x2x8x4xbf16>, memref<1xi64>, memref<1x2x1x4xbf16>) outs(%vc : memref<1x2x8x4xbf16>)
  %att = cublaslt_rt.alloc : memref<1x2x1x4xbf16>
  cublaslt_rt.launch "hl.sdpa" {scale = 0.5 : f64} ins(%q, %kc, %vc : memref<1x2x1x4xbf16>, memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>) outs(%att : memref<1x2x1x4xbf16>)
  cublaslt_rt.launch "hl.add" ins(%c0, %one : memref<i64>, memref<i64>) outs(%c0 : memref<i64>)
  cublaslt_rt.launch "hl.add" ins(%c1, %one : memref<i64>, memref<i64>) outs(%c1 : memref<i64>)
  func.return %kc, %vc, %c0, %c1, %att : memref<1x2x8x4xbf16>, memref<1x2x8x4xbf16>, memref<i64>, memref<i64>, memref<1x2x1x4xbf16>
}
