// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.where: aten.where.self, condition ? lhs : rhs, all three broadcast together.

// Same shapes.
// CHECK-LABEL: func.func @same_shape(
// CHECK-NEXT:    %r = hl.where %c, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "same_shape"
// GENERIC:         %r = "hl.where"(%c, %a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @same_shape(%c: tensor<4x8xi1>, %a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hl.where %c, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// Masking scores with a 0-d fill: an [S, S] mask over [B, H, S, S] scores.
// CHECK-LABEL: func.func @mask_fill(
// CHECK-NEXT:    %fill = hl.constant {value = dense<-1.024000e+03> : tensor<bf16>} : tensor<bf16>
// CHECK-NEXT:    %r = hl.where %m, %s, %fill : (tensor<6x6xi1>, tensor<2x4x6x6xbf16>, tensor<bf16>) -> tensor<2x4x6x6xbf16>
// CHECK-NEXT:    func.return %r : tensor<2x4x6x6xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "mask_fill"
// GENERIC:         %fill = "hl.constant"() <{value = dense<-1.024000e+03> : tensor<bf16>}> : () -> tensor<bf16>
// GENERIC:         %r = "hl.where"(%m, %s, %fill) : (tensor<6x6xi1>, tensor<2x4x6x6xbf16>, tensor<bf16>) -> tensor<2x4x6x6xbf16>
func.func @mask_fill(%m: tensor<6x6xi1>, %s: tensor<2x4x6x6xbf16>) -> tensor<2x4x6x6xbf16> {
  %fill = hl.constant {value = dense<-1.024000e+03> : tensor<bf16>} : tensor<bf16>
  %r = hl.where %m, %s, %fill : (tensor<6x6xi1>, tensor<2x4x6x6xbf16>, tensor<bf16>) -> tensor<2x4x6x6xbf16>
  func.return %r : tensor<2x4x6x6xbf16>
}
