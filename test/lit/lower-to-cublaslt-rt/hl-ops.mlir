// RUN: lumir-opt %s -p "lower-to-cublaslt-rt{share_buffers=false}" --split-input-file | filecheck %s
// RUN: lumir-opt %s -p "lower-to-cublaslt-rt{share_buffers=false},lower-to-cublaslt-rt" --split-input-file | filecheck %s

// Every hl op that fusion left becomes an alloc for its result and a launch of that
// op, its properties becoming the launch's params; hl.constant becomes a constant
// buffer. (The second RUN line shows the pass is idempotent on its own output.)

// CHECK-LABEL: func.func @block(%x: memref<4x8xbf16>, %g: memref<8xbf16>) -> memref<4x8xbf16> {
// CHECK-NEXT:    %sq = cublaslt_rt.alloc : memref<4x8xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.mul" ins(%x, %x : memref<4x8xbf16>, memref<4x8xbf16>) outs(%sq : memref<4x8xbf16>)
// CHECK-NEXT:    %ms = cublaslt_rt.alloc : memref<4x1xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.mean" {dims = array<i64: 1>, keepdim} ins(%sq : memref<4x8xbf16>) outs(%ms : memref<4x1xbf16>)
// CHECK-NEXT:    %half = cublaslt_rt.constant {value = dense<5.000000e-01> : tensor<bf16>} : memref<bf16>
// CHECK-NEXT:    %v = cublaslt_rt.alloc : memref<4x1xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%ms, %half : memref<4x1xbf16>, memref<bf16>) outs(%v : memref<4x1xbf16>)
// CHECK-NEXT:    %inv = cublaslt_rt.alloc : memref<4x1xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.rsqrt" ins(%v : memref<4x1xbf16>) outs(%inv : memref<4x1xbf16>)
// CHECK-NEXT:    %n = cublaslt_rt.alloc : memref<4x8xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.mul" ins(%x, %inv : memref<4x8xbf16>, memref<4x1xbf16>) outs(%n : memref<4x8xbf16>)
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<4x8xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.mul" ins(%n, %g : memref<4x8xbf16>, memref<8xbf16>) outs(%y : memref<4x8xbf16>)
// CHECK-NEXT:    func.return %y : memref<4x8xbf16>
func.func @block(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %sq = hl.mul %x, %x : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %ms = hl.mean %sq {dims = array<i64: 1>, keepdim} : tensor<4x8xbf16> -> tensor<4x1xbf16>
  %half = hl.constant {value = dense<0.5> : tensor<bf16>} : tensor<bf16>
  %v = hl.add %ms, %half : (tensor<4x1xbf16>, tensor<bf16>) -> tensor<4x1xbf16>
  %inv = hl.rsqrt %v : tensor<4x1xbf16> -> tensor<4x1xbf16>
  %n = hl.mul %x, %inv : (tensor<4x8xbf16>, tensor<4x1xbf16>) -> tensor<4x8xbf16>
  %y = hl.mul %n, %g : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
  func.return %y : tensor<4x8xbf16>
}

// -----

// Shape ops and matmuls that were not lowered to cuBLASLt are kernels too.
// CHECK-LABEL: func.func @attention_scores(%q: memref<2x4x8xf16>, %k: memref<2x4x8xf16>) -> memref<2x4x4xf16> {
// CHECK-NEXT:    %kt = cublaslt_rt.alloc : memref<2x8x4xf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.transpose" {permutation = array<i64: 0, 2, 1>} ins(%k : memref<2x4x8xf16>) outs(%kt : memref<2x8x4xf16>)
// CHECK-NEXT:    %s = cublaslt_rt.alloc : memref<2x4x4xf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.matmul" ins(%q, %kt : memref<2x4x8xf16>, memref<2x8x4xf16>) outs(%s : memref<2x4x4xf16>)
// CHECK-NEXT:    %p = cublaslt_rt.alloc : memref<2x4x4xf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.softmax" {dim = -1 : i64} ins(%s : memref<2x4x4xf16>) outs(%p : memref<2x4x4xf16>)
// CHECK-NEXT:    func.return %p : memref<2x4x4xf16>
func.func @attention_scores(%q: tensor<2x4x8xf16>, %k: tensor<2x4x8xf16>) -> tensor<2x4x4xf16> {
  %kt = hl.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<2x4x8xf16> -> tensor<2x8x4xf16>
  %s = hl.matmul %q, %kt : (tensor<2x4x8xf16>, tensor<2x8x4xf16>) -> tensor<2x4x4xf16>
  %p = hl.softmax %s {dim = -1 : i64} : tensor<2x4x4xf16> -> tensor<2x4x4xf16>
  func.return %p : tensor<2x4x4xf16>
}

// -----

// A function may return its argument, or one value twice: both are just buffers.
// CHECK-LABEL: func.func @passthrough(%x: memref<3xi64>) -> (memref<3xi64>, memref<3xi64>) {
// CHECK-NEXT:    func.return %x, %x : memref<3xi64>, memref<3xi64>
func.func @passthrough(%x: tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>) {
  func.return %x, %x : tensor<3xi64>, tensor<3xi64>
}

// -----

// Declarations get a buffer signature as well.
// CHECK-LABEL: func.func private @external(memref<2x2xf32>) -> memref<2xf32>
func.func private @external(tensor<2x2xf32>) -> tensor<2xf32>
