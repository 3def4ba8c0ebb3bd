// RUN: lumir-opt %s -p hoist-index-math | filecheck %s
// RUN: lumir-opt %s -p hoist-index-math,hoist-index-math | filecheck %s

// Two layers of a decode step, lowered and not yet placed in an arena: each layer
// computes its cache index from its own counter (`arange(1) + counter`, the arange a
// constant), after the layer before has run. Both index adds move up to the first
// launch, in their order, with the buffers they write; the float work stays where it
// was. A second run moves nothing more.

// CHECK-LABEL: func.func @layers(
// CHECK:         %[[ONE:.*]] = cublaslt_rt.constant {value = dense<0> : tensor<1xi64>}
// CHECK-NEXT:    %[[I0:.*]] = cublaslt_rt.alloc : memref<1xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%[[ONE]], %c0 : memref<1xi64>, memref<i64>) outs(%[[I0]] : memref<1xi64>)
// CHECK-NEXT:    %[[I1:.*]] = cublaslt_rt.alloc : memref<1xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%[[ONE]], %c1 : memref<1xi64>, memref<i64>) outs(%[[I1]] : memref<1xi64>)
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x : memref<4xf32>)
// CHECK:         cublaslt_rt.launch "hl.index_copy" {dim = 0 : i64} ins(%kc0, %[[I0]],
// CHECK:         cublaslt_rt.launch "hl.exp" ins(%h0 : memref<4xf32>)
// CHECK:         cublaslt_rt.launch "hl.index_copy" {dim = 0 : i64} ins(%kc1, %[[I1]],
func.func @layers(%x: memref<4xf32>, %c0: memref<i64>, %c1: memref<i64>, %kc0: memref<8x4xf32>,
                  %kc1: memref<8x4xf32>) -> (memref<8x4xf32>, memref<8x4xf32>) {
  %h0 = cublaslt_rt.alloc : memref<4xf32>
  cublaslt_rt.launch "hl.exp" ins(%x : memref<4xf32>) outs(%h0 : memref<4xf32>)
  %one = cublaslt_rt.constant {value = dense<0> : tensor<1xi64>} : memref<1xi64>
  %i0 = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.add" ins(%one, %c0 : memref<1xi64>, memref<i64>) outs(%i0 : memref<1xi64>)
  %row0 = cublaslt_rt.view %h0 {byte_offset = 0 : i64} : memref<4xf32> -> memref<1x4xf32>
  %k0 = cublaslt_rt.alloc : memref<8x4xf32>
  cublaslt_rt.launch "hl.index_copy" {dim = 0 : i64} ins(%kc0, %i0, %row0 : memref<8x4xf32>, memref<1xi64>, memref<1x4xf32>) outs(%k0 : memref<8x4xf32>)
  %h1 = cublaslt_rt.alloc : memref<4xf32>
  cublaslt_rt.launch "hl.exp" ins(%h0 : memref<4xf32>) outs(%h1 : memref<4xf32>)
  %i1 = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.add" ins(%one, %c1 : memref<1xi64>, memref<i64>) outs(%i1 : memref<1xi64>)
  %row1 = cublaslt_rt.view %h1 {byte_offset = 0 : i64} : memref<4xf32> -> memref<1x4xf32>
  %k1 = cublaslt_rt.alloc : memref<8x4xf32>
  cublaslt_rt.launch "hl.index_copy" {dim = 0 : i64} ins(%kc1, %i1, %row1 : memref<8x4xf32>, memref<1xi64>, memref<1x4xf32>) outs(%k1 : memref<8x4xf32>)
  func.return %k0, %k1 : memref<8x4xf32>, memref<8x4xf32>
}

// The buffer of a launch that moves may stand right after the last launch moved (or
// first): it stays where it is, above the launch, which goes below it.

// CHECK-LABEL: func.func @buffer_first(
// CHECK:         cublaslt_rt.launch "hl.add" ins(%one, %c0 :
// CHECK-NEXT:    %i1 = cublaslt_rt.alloc : memref<1xi64>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%one, %c1 :
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<4xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x :
func.func @buffer_first(%x: memref<4xf32>, %c0: memref<i64>, %c1: memref<i64>)
    -> (memref<4xf32>, memref<1xf32>) {
  %one = cublaslt_rt.constant {value = dense<0> : tensor<1xi64>} : memref<1xi64>
  %i0 = cublaslt_rt.alloc : memref<1xi64>
  cublaslt_rt.launch "hl.add" ins(%one, %c0 : memref<1xi64>, memref<i64>) outs(%i0 : memref<1xi64>)
  %i1 = cublaslt_rt.alloc : memref<1xi64>
  %h = cublaslt_rt.alloc : memref<4xf32>
  cublaslt_rt.launch "hl.exp" ins(%x : memref<4xf32>) outs(%h : memref<4xf32>)
  cublaslt_rt.launch "hl.add" ins(%one, %c1 : memref<1xi64>, memref<i64>) outs(%i1 : memref<1xi64>)
  %f = cublaslt_rt.alloc : memref<1xf32>
  cublaslt_rt.launch "hl.cast" ins(%i1 : memref<1xi64>) outs(%f : memref<1xf32>)
  func.return %h, %f : memref<4xf32>, memref<1xf32>
}
