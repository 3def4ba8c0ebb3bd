// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s
// RUN: lumir-opt %s -p hl-canonicalize --split-input-file --print-debuginfo | filecheck %s --check-prefix=LOC

// aten.linear is x @ w^T + b: a transpose of the weight, a matmul and an add of the bias,
// with the matmul on the add's lhs.
// CHECK-LABEL: func.func @linear_bias
// CHECK-NEXT:    %[[WT:.*]] = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    %[[MM:.*]] = hl.matmul %x, %[[WT]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = hl.add %[[MM]], %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x16xf32>
// The created ops keep the location of the hl.linear they replace.
// LOC-LABEL: func.func @linear_bias
// LOC-NEXT:    hl.transpose {{.*}} loc("{{.*}}split-linear.mlir":[[# @LINE + 4]]:3)
// LOC-NEXT:    hl.matmul {{.*}} loc("{{.*}}split-linear.mlir":[[# @LINE + 3]]:3)
// LOC-NEXT:    hl.add {{.*}} loc("{{.*}}split-linear.mlir":[[# @LINE + 2]]:3)
func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %y = hl.linear %x, %w bias(%b : tensor<16xf32>) : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// Without a bias there is no add; a 3-D input keeps its batch dims in the matmul.
// CHECK-LABEL: func.func @linear_batched_no_bias
// CHECK-NEXT:    %[[WT:.*]] = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
// CHECK-NEXT:    %[[MM:.*]] = hl.matmul %x, %[[WT]] : (tensor<2x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x16xbf16>
// CHECK-NEXT:    func.return %[[MM]] : tensor<2x4x16xbf16>
func.func @linear_batched_no_bias(%x: tensor<2x4x8xbf16>, %w: tensor<16x8xbf16>) -> tensor<2x4x16xbf16> {
  %y = hl.linear %x, %w : tensor<2x4x8xbf16>, tensor<16x8xbf16> -> tensor<2x4x16xbf16>
  func.return %y : tensor<2x4x16xbf16>
}

// -----

// A 1-D input is a [1, K] matrix for the product (hl.matmul takes rank >= 2), reshaped
// back to [N] before the bias is added.
// CHECK-LABEL: func.func @linear_vector
// CHECK-NEXT:    %[[X2:.*]] = hl.reshape %x : tensor<8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[WT:.*]] = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    %[[MM:.*]] = hl.matmul %[[X2]], %[[WT]] : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %[[V:.*]] = hl.reshape %[[MM]] : tensor<1x16xf32> -> tensor<16xf32>
// CHECK-NEXT:    %[[Y:.*]] = hl.add %[[V]], %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<16xf32>
func.func @linear_vector(%x: tensor<8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %y = hl.linear %x, %w bias(%b : tensor<16xf32>) : tensor<8xf32>, tensor<16x8xf32> -> tensor<16xf32>
  func.return %y : tensor<16xf32>
}

