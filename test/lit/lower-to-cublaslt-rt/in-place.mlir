// RUN: lumir-opt %s -p hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt --split-input-file | filecheck %s

// The buffer plan's in-place rule: a fused launch's output takes the bytes of an input
// that dies at that launch, when it is the input's whole buffer, of the same type, and
// the body is elementwise (each element is read before the same element is written).

// A gated MLP: SiLU(gate) * up is written over gate, so the three [4, 64] values need
// two places in the arena (2048 bytes), not three.
// CHECK-LABEL: func.func @gated(
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<2048xi8>
// CHECK-NEXT:    %gate = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<2048xi8> -> memref<4x64xf32>
// CHECK-NEXT:    cublaslt_rt.matmul @plan0
// CHECK-NEXT:    %up = cublaslt_rt.view %arena {byte_offset = 1024 : i64} : memref<2048xi8> -> memref<4x64xf32>
// CHECK-NEXT:    cublaslt_rt.matmul @plan1
// CHECK-NEXT:    %h = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<2048xi8> -> memref<4x64xf32>
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%gate, %up : memref<4x64xf32>, memref<4x64xf32>) outs(%h : memref<4x64xf32>) {
func.func @gated(%x: tensor<4x64xf32>, %wg: tensor<64x64xf32>, %wu: tensor<64x64xf32>, %wd: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %gate = hl.matmul %x, %wg : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %up = hl.matmul %x, %wu : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %act = hl.silu %gate : tensor<4x64xf32> -> tensor<4x64xf32>
  %h = hl.mul %act, %up : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %out = hl.matmul %h, %wd : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  func.return %out : tensor<4x64xf32>
}

// -----

// A reduction in the body reads a whole row before any of it is written: the kernel
// could still write it in place, but the rule is elementwise bodies only, so the
// softmax's result gets bytes of its own.
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<2048xi8>
// CHECK-NEXT:    %s = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// CHECK-NEXT:    cublaslt_rt.matmul @plan0
// CHECK-NEXT:    %q = cublaslt_rt.view %arena {byte_offset = 1024 : i64}
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%s : memref<4x64xf32>) outs(%q : memref<4x64xf32>) {
func.func @softmax(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %s = hl.matmul %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %p = hl.softmax %s {dim = -1 : i64} : tensor<4x64xf32> -> tensor<4x64xf32>
  %half = hl.constant {value = dense<5.000000e-01> : tensor<f32>} : tensor<f32>
  %q = hl.mul %p, %half : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %out = hl.matmul %q, %v : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  func.return %out : tensor<4x64xf32>
}

// -----

// %gate is read again after the fused launch (by the final add), so it is not dead
// there; %up is, and SiLU(gate) * up is written over %up instead.
// CHECK-LABEL: func.func @gate_read_later(
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<3072xi8>
// CHECK-NEXT:    %gate = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// CHECK-NEXT:    cublaslt_rt.matmul @plan0
// CHECK-NEXT:    %up = cublaslt_rt.view %arena {byte_offset = 1024 : i64}
// CHECK-NEXT:    cublaslt_rt.matmul @plan1
// CHECK-NEXT:    %h = cublaslt_rt.view %arena {byte_offset = 1024 : i64}
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%gate, %up : memref<4x64xf32>, memref<4x64xf32>) outs(%h : memref<4x64xf32>) {
func.func @gate_read_later(%x: tensor<4x64xf32>, %wg: tensor<64x64xf32>, %wu: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %gate = hl.matmul %x, %wg : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %up = hl.matmul %x, %wu : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %act = hl.silu %gate : tensor<4x64xf32> -> tensor<4x64xf32>
  %h = hl.mul %act, %up : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %out = hl.matmul %h, %wg : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %sum = hl.add %out, %gate : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  func.return %sum : tensor<4x64xf32>
}
