// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.embedding: aten.embedding. Rows of `weight` [V, E] gathered by i32 or i64
// `indices` of any shape; the result is indices.shape + [E] in the weight's type.

// Token embeddings: [B, S] i64 ids.
// CHECK-LABEL: func.func @tokens(
// CHECK-NEXT:    %e = hl.embedding %w, %ids : (tensor<1000x64xbf16>, tensor<2x6xi64>) -> tensor<2x6x64xbf16>
// CHECK-NEXT:    func.return %e : tensor<2x6x64xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "tokens"
// GENERIC:         %e = "hl.embedding"(%w, %ids) : (tensor<1000x64xbf16>, tensor<2x6xi64>) -> tensor<2x6x64xbf16>
func.func @tokens(%w: tensor<1000x64xbf16>, %ids: tensor<2x6xi64>) -> tensor<2x6x64xbf16> {
  %e = hl.embedding %w, %ids : (tensor<1000x64xbf16>, tensor<2x6xi64>) -> tensor<2x6x64xbf16>
  func.return %e : tensor<2x6x64xbf16>
}

// -----

// i32 indices, 1-D.
// CHECK-LABEL: func.func @i32_indices(
// CHECK-NEXT:    %e = hl.embedding %w, %ids : (tensor<16x8xf32>, tensor<5xi32>) -> tensor<5x8xf32>
// CHECK-NEXT:    func.return %e : tensor<5x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "i32_indices"
// GENERIC:         %e = "hl.embedding"(%w, %ids) : (tensor<16x8xf32>, tensor<5xi32>) -> tensor<5x8xf32>
func.func @i32_indices(%w: tensor<16x8xf32>, %ids: tensor<5xi32>) -> tensor<5x8xf32> {
  %e = hl.embedding %w, %ids : (tensor<16x8xf32>, tensor<5xi32>) -> tensor<5x8xf32>
  func.return %e : tensor<5x8xf32>
}

// -----

// A 0-d index gives one row.
// CHECK-LABEL: func.func @scalar_index(
// CHECK-NEXT:    %e = hl.embedding %w, %id : (tensor<16x8xf32>, tensor<i64>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %e : tensor<8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "scalar_index"
// GENERIC:         %e = "hl.embedding"(%w, %id) : (tensor<16x8xf32>, tensor<i64>) -> tensor<8xf32>
func.func @scalar_index(%w: tensor<16x8xf32>, %id: tensor<i64>) -> tensor<8xf32> {
  %e = hl.embedding %w, %id : (tensor<16x8xf32>, tensor<i64>) -> tensor<8xf32>
  func.return %e : tensor<8xf32>
}
