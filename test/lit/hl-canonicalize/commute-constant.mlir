// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s

// A constant operand of hl.mul moves to the rhs: the alpha rule matches `hl.mul %mm, %c`.
// CHECK-LABEL: func.func @mul_constant_lhs
// CHECK-NEXT:    %[[C:.*]] = hl.constant {value = dense<5.000000e-01> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = hl.mul %x, %[[C]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[M]] : tensor<4x8xf32>
func.func @mul_constant_lhs(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = hl.constant {value = dense<0.5> : tensor<f32>} : tensor<f32>
  %m = hl.mul %c, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}

// -----

// The same for hl.add, with a non-scalar constant.
// CHECK-LABEL: func.func @add_constant_lhs
// CHECK-NEXT:    %[[C:.*]] = hl.constant {value = dense<1.000000e+00> : tensor<8xbf16>} : tensor<8xbf16>
// CHECK-NEXT:    %[[A:.*]] = hl.add %x, %[[C]] : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
// CHECK-NEXT:    func.return %[[A]] : tensor<4x8xbf16>
func.func @add_constant_lhs(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %c = hl.constant {value = dense<1.0> : tensor<8xbf16>} : tensor<8xbf16>
  %a = hl.add %c, %x : (tensor<8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  func.return %a : tensor<4x8xbf16>
}

// -----

// Already canonical (constant on the rhs), two constants, and non-commutative ops: nothing moves.
// CHECK-LABEL: func.func @nothing_to_commute
// CHECK-NEXT:    %[[C:.*]] = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    %[[D:.*]] = hl.constant {value = dense<3.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = hl.mul %x, %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[CD:.*]] = hl.mul %[[C]], %[[D]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[S:.*]] = hl.sub %[[C]], %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[Q:.*]] = hl.div %[[C]], %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[M]], %[[CD]], %[[S]], %[[Q]] : tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>
func.func @nothing_to_commute(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %c = hl.constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %d = hl.constant {value = dense<3.0> : tensor<f32>} : tensor<f32>
  %m = hl.mul %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %cd = hl.mul %c, %d : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %s = hl.sub %c, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %q = hl.div %c, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m, %cd, %s, %q : tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The alpha idiom after canonicalization: `hl.mul %mm, %scale`, with the linear split.
// CHECK-LABEL: func.func @scaled_linear
// CHECK-NEXT:    %[[WT:.*]] = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf16> -> tensor<8x16xf16>
// CHECK-NEXT:    %[[MM:.*]] = hl.matmul %x, %[[WT]] : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    %[[C:.*]] = hl.constant {value = dense<1.250000e-01> : tensor<f16>} : tensor<f16>
// CHECK-NEXT:    %[[S:.*]] = hl.mul %[[MM]], %[[C]] : (tensor<4x16xf16>, tensor<f16>) -> tensor<4x16xf16>
// CHECK-NEXT:    func.return %[[S]] : tensor<4x16xf16>
func.func @scaled_linear(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>) -> tensor<4x16xf16> {
  %y = hl.linear %x, %w : tensor<4x8xf16>, tensor<16x8xf16> -> tensor<4x16xf16>
  %c = hl.constant {value = dense<0.125> : tensor<f16>} : tensor<f16>
  %s = hl.mul %c, %y : (tensor<f16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  func.return %s : tensor<4x16xf16>
}
