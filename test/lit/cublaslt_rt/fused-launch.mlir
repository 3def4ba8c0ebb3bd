// RUN: lumir-opt %s | filecheck %s
// RUN: lumir-opt %s | lumir-opt | filecheck %s

// cublaslt_rt.fused_launch: one fused kernel from input buffers into output buffers; its
// body (a bufferized hl.fused) stays on tensors. It prints as it parses.

// CHECK-LABEL: func.func @scale_shift(
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%x, %w : memref<4x16xf32>, memref<16xf32>) outs(%y, %z : memref<4x16xf32>, memref<4x1xf32>) {
// CHECK-NEXT:    ^bb0(%a: tensor<4x16xf32>, %b: tensor<16xf32>):
// CHECK-NEXT:      %m = hl.mul %a, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:      %s = hl.sum %m {dims = array<i64: -1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      hl.yield %m, %s : tensor<4x16xf32>, tensor<4x1xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @scale_shift(%x: memref<4x16xf32>, %w: memref<16xf32>, %y: memref<4x16xf32>, %z: memref<4x1xf32>) {
  cublaslt_rt.fused_launch ins(%x, %w : memref<4x16xf32>, memref<16xf32>) outs(%y, %z : memref<4x16xf32>, memref<4x1xf32>) {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<16xf32>):
    %m = hl.mul %a, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %s = hl.sum %m {dims = array<i64: -1>, keepdim} : tensor<4x16xf32> -> tensor<4x1xf32>
    hl.yield %m, %s : tensor<4x16xf32>, tensor<4x1xf32>
  }
  func.return
}

// An elementwise body may write its output over an input of the output's type: each
// element is read before the same element is written (what the buffer plan does for
// SiLU(gate) * up).
// CHECK-LABEL: func.func @in_place(
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%g, %u : memref<4x16xbf16>, memref<4x16xbf16>) outs(%g : memref<4x16xbf16>) {
func.func @in_place(%g: memref<4x16xbf16>, %u: memref<4x16xbf16>) {
  cublaslt_rt.fused_launch ins(%g, %u : memref<4x16xbf16>, memref<4x16xbf16>) outs(%g : memref<4x16xbf16>) {
  ^bb0(%a: tensor<4x16xbf16>, %b: tensor<4x16xbf16>):
    %s = hl.silu %a : tensor<4x16xbf16> -> tensor<4x16xbf16>
    %m = hl.mul %s, %b : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
    hl.yield %m : tensor<4x16xbf16>
  }
  func.return
}
