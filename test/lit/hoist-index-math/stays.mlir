// RUN: lumir-opt %s -p hoist-index-math | filecheck %s

// What stays where it is: an integer cast of a value the first launch computes (moving
// it would cross that write); a float add; an integer output of more than 256 bytes;
// and a result the function returns (the backend may write it into its input in
// place, which needs the input's other readers to come first). The launch that moves
// is the add of two arguments, last in the input: it goes up to the first launch, above
// everything it does not depend on; the launch reading it returns its result, so it
// stays.

// CHECK-LABEL: func.func @stays(
// CHECK:         %[[MOVED:.*]] = cublaslt_rt.alloc : memref<1xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%a, %b : memref<1xi64>, memref<1xi64>) outs(%[[MOVED]] :
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x :
// CHECK-NEXT:    %{{.*}} = cublaslt_rt.alloc : memref<4xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.cast" ins(%e :
// CHECK-NEXT:    %{{.*}} = cublaslt_rt.alloc : memref<4xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.cast" ins(%computed :
// CHECK-NEXT:    %{{.*}} = cublaslt_rt.alloc : memref<4xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%x, %x :
// CHECK-NEXT:    %{{.*}} = cublaslt_rt.alloc : memref<64xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%wide, %wide :
// CHECK-NEXT:    %{{.*}} = cublaslt_rt.alloc : memref<1xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%b, %b :
// CHECK-NEXT:    %{{.*}} = cublaslt_rt.alloc : memref<1xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%[[MOVED]] :
// CHECK-NEXT:    func.return
func.func @stays(%x: memref<4xf32>, %a: memref<1xi64>, %b: memref<1xi64>, %wide: memref<64xi64>)
    -> (memref<4xf32>, memref<1xi64>, memref<4xf32>, memref<64xi64>, memref<1xi64>) {
  %e = cublaslt_rt.alloc : memref<4xf32>
  cublaslt_rt.launch "hl.exp" ins(%x : memref<4xf32>) outs(%e : memref<4xf32>)
  %computed = cublaslt_rt.alloc : memref<4xi64>
  cublaslt_rt.launch "hl.cast" ins(%e : memref<4xf32>) outs(%computed : memref<4xi64>)
  %back = cublaslt_rt.alloc : memref<4xf32>
  cublaslt_rt.launch "hl.cast" ins(%computed : memref<4xi64>) outs(%back : memref<4xf32>)
  %f = cublaslt_rt.alloc : memref<4xf32>
  cublaslt_rt.launch "hl.add" ins(%x, %x : memref<4xf32>, memref<4xf32>) outs(%f : memref<4xf32>)
  %w = cublaslt_rt.alloc : memref<64xi64>
  cublaslt_rt.launch "hl.add" ins(%wide, %wide : memref<64xi64>, memref<64xi64>) outs(%w : memref<64xi64>)
  %ret = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.add" ins(%b, %b : memref<1xi64>, memref<1xi64>) outs(%ret : memref<1xi64>)
  %moved = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.add" ins(%a, %b : memref<1xi64>, memref<1xi64>) outs(%moved : memref<1xi64>)
  %out = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.neg" ins(%moved : memref<1xi64>) outs(%out : memref<1xi64>)
  func.return %back, %ret, %f, %w, %out : memref<4xf32>, memref<1xi64>, memref<4xf32>, memref<64xi64>, memref<1xi64>
}
