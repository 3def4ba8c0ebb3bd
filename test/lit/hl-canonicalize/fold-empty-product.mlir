// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s
// RUN: lumir-opt %s -p lumir-pipeline --split-input-file | filecheck %s --check-prefix=LOWERED

// An empty contraction (K = 0) sums nothing: every element is +0, a constant. The bias
// add that addmm split off stays and reads it (as its rhs, where constants go).
// CHECK-LABEL: func.func @empty_contraction
// CHECK-NEXT:    %[[Z:.*]] = hl.constant {value = dense<0.000000e+00> : tensor<5x4xf32>} : tensor<5x4xf32>
// CHECK-NEXT:    %[[R:.*]] = hl.add %b, %[[Z]] : (tensor<4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<5x4xf32>
// LOWERED-LABEL: func.func @empty_contraction
// LOWERED-NOT:   cublaslt_rt.matmul
// LOWERED:       func.return
func.func @empty_contraction(%b: tensor<4xf32>, %x: tensor<5x0xf32>, %y: tensor<0x4xf32>) -> tensor<5x4xf32> {
  %r = hl.addmm %b, %x, %y : (tensor<4xf32>, tensor<5x0xf32>, tensor<0x4xf32>) -> tensor<5x4xf32>
  func.return %r : tensor<5x4xf32>
}

// -----

// No rows (an empty batch): the product has no element; its constant holds none.
// CHECK-LABEL: func.func @no_rows
// CHECK-NEXT:    %[[E:.*]] = hl.constant {value = dense<> : tensor<0x4xbf16>} : tensor<0x4xbf16>
// CHECK-NEXT:    %[[R:.*]] = hl.relu %[[E]]
// LOWERED-LABEL: func.func @no_rows
// LOWERED-NOT:   cublaslt_rt.matmul
// LOWERED:       func.return
func.func @no_rows(%x: tensor<0x8xbf16>, %w: tensor<8x4xbf16>) -> tensor<0x4xbf16> {
  %m = hl.matmul %x, %w : (tensor<0x8xbf16>, tensor<8x4xbf16>) -> tensor<0x4xbf16>
  %r = hl.relu %m : tensor<0x4xbf16> -> tensor<0x4xbf16>
  func.return %r : tensor<0x4xbf16>
}

// -----

// An empty batch of a batched product, and a product beside it that is not empty and
// stays a matmul.
// CHECK-LABEL: func.func @empty_batch
// CHECK-NEXT:    %[[E:.*]] = hl.constant {value = dense<> : tensor<0x3x4xf16>} : tensor<0x3x4xf16>
// CHECK-NEXT:    %[[M:.*]] = hl.matmul %y, %w
// LOWERED-LABEL: func.func @empty_batch
// LOWERED-COUNT-1: cublaslt_rt.matmul
// LOWERED-NOT:   cublaslt_rt.matmul
func.func @empty_batch(%x: tensor<0x3x8xf16>, %w: tensor<8x4xf16>, %y: tensor<3x8xf16>) -> (tensor<0x3x4xf16>, tensor<3x4xf16>) {
  %e = hl.matmul %x, %w : (tensor<0x3x8xf16>, tensor<8x4xf16>) -> tensor<0x3x4xf16>
  %m = hl.matmul %y, %w : (tensor<3x8xf16>, tensor<8x4xf16>) -> tensor<3x4xf16>
  func.return %e, %m : tensor<0x3x4xf16>, tensor<3x4xf16>
}
