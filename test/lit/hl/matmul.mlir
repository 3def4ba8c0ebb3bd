// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.matmul: aten.mm / bmm / matmul on operands of rank >= 2:
// lhs[..., M, K] @ rhs[..., K, N] -> [broadcast(batch), M, N], one element type.

// aten.mm: [M, K] @ [K, N].
// CHECK-LABEL: func.func @mm(
// CHECK-NEXT:    %y = hl.matmul %x, %w : (tensor<8x64xbf16>, tensor<64x32xbf16>) -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %y : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "mm"
// GENERIC:         %y = "hl.matmul"(%x, %w) : (tensor<8x64xbf16>, tensor<64x32xbf16>) -> tensor<8x32xbf16>
func.func @mm(%x: tensor<8x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<8x32xbf16> {
  %y = hl.matmul %x, %w : (tensor<8x64xbf16>, tensor<64x32xbf16>) -> tensor<8x32xbf16>
  func.return %y : tensor<8x32xbf16>
}

// -----

// aten.bmm: a batch of 4 on both sides.
// CHECK-LABEL: func.func @bmm(
// CHECK-NEXT:    %y = hl.matmul %a, %b : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
// CHECK-NEXT:    func.return %y : tensor<4x8x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "bmm"
// GENERIC:         %y = "hl.matmul"(%a, %b) : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
func.func @bmm(%a: tensor<4x8x16xf32>, %b: tensor<4x16x8xf32>) -> tensor<4x8x8xf32> {
  %y = hl.matmul %a, %b : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  func.return %y : tensor<4x8x8xf32>
}

// -----

// aten.matmul: a 3-D activation against a shared 2-D weight.
// CHECK-LABEL: func.func @batch_times_matrix(
// CHECK-NEXT:    %y = hl.matmul %x, %w : (tensor<2x6x64xf16>, tensor<64x32xf16>) -> tensor<2x6x32xf16>
// CHECK-NEXT:    func.return %y : tensor<2x6x32xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "batch_times_matrix"
// GENERIC:         %y = "hl.matmul"(%x, %w) : (tensor<2x6x64xf16>, tensor<64x32xf16>) -> tensor<2x6x32xf16>
func.func @batch_times_matrix(%x: tensor<2x6x64xf16>, %w: tensor<64x32xf16>) -> tensor<2x6x32xf16> {
  %y = hl.matmul %x, %w : (tensor<2x6x64xf16>, tensor<64x32xf16>) -> tensor<2x6x32xf16>
  func.return %y : tensor<2x6x32xf16>
}

// -----

// Batch dimensions broadcast: [2, 1] with [1, 3] gives [2, 3].
// CHECK-LABEL: func.func @broadcast_batch(
// CHECK-NEXT:    %y = hl.matmul %a, %b : (tensor<2x1x8x16xf32>, tensor<1x3x16x4xf32>) -> tensor<2x3x8x4xf32>
// CHECK-NEXT:    func.return %y : tensor<2x3x8x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "broadcast_batch"
// GENERIC:         %y = "hl.matmul"(%a, %b) : (tensor<2x1x8x16xf32>, tensor<1x3x16x4xf32>) -> tensor<2x3x8x4xf32>
func.func @broadcast_batch(%a: tensor<2x1x8x16xf32>, %b: tensor<1x3x16x4xf32>) -> tensor<2x3x8x4xf32> {
  %y = hl.matmul %a, %b : (tensor<2x1x8x16xf32>, tensor<1x3x16x4xf32>) -> tensor<2x3x8x4xf32>
  func.return %y : tensor<2x3x8x4xf32>
}
