// RUN: lumir-opt %s | lumir-opt | filecheck %s

// A cublaslt_rt.launch_group prints and parses back: two in-place cache writes reading
// one index (a decode layer's k and v), and two counters' integer adds.

// CHECK-LABEL: func.func @kv(
// CHECK-NEXT:    cublaslt_rt.launch_group {
// CHECK-NEXT:      cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%kc, %i, %k : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%kc : memref<2x8xbf16>)
// CHECK-NEXT:      cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%vc, %i, %v : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%vc : memref<2x8xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    cublaslt_rt.launch_group {
// CHECK-NEXT:      cublaslt_rt.launch "hl.add" ins(%c0, %one : memref<i64>, memref<i64>) outs(%c0 : memref<i64>)
// CHECK-NEXT:      cublaslt_rt.launch "hl.add" ins(%c1, %one : memref<i64>, memref<i64>) outs(%c1 : memref<i64>)
// CHECK-NEXT:    }
func.func @kv(%kc: memref<2x8xbf16>, %vc: memref<2x8xbf16>, %i: memref<1xi64>, %k: memref<2x1xbf16>,
              %v: memref<2x1xbf16>, %c0: memref<i64>, %c1: memref<i64>, %one: memref<i64>) {
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%kc, %i, %k : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%kc : memref<2x8xbf16>)
    cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%vc, %i, %v : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%vc : memref<2x8xbf16>)
  }
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.add" ins(%c0, %one : memref<i64>, memref<i64>) outs(%c0 : memref<i64>)
    cublaslt_rt.launch "hl.add" ins(%c1, %one : memref<i64>, memref<i64>) outs(%c1 : memref<i64>)
  }
  func.return
}
