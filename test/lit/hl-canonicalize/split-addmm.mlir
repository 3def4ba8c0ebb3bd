// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s

// aten.addmm(b, x, y) is x @ y + b: the matmul is the add's lhs, as for hl.linear.
// CHECK-LABEL: func.func @addmm_row_bias
// CHECK-NEXT:    %[[MM:.*]] = hl.matmul %x, %y : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    %[[R:.*]] = hl.add %[[MM]], %b : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x16xf16>
func.func @addmm_row_bias(%b: tensor<16xf16>, %x: tensor<4x8xf16>, %y: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %r = hl.addmm %b, %x, %y : (tensor<16xf16>, tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  func.return %r : tensor<4x16xf16>
}

// -----

// A full-size addend is split the same way.
// CHECK-LABEL: func.func @addmm_full_addend
// CHECK-NEXT:    %[[MM:.*]] = hl.matmul %x, %y : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[R:.*]] = hl.add %[[MM]], %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x16xf32>
func.func @addmm_full_addend(%c: tensor<4x16xf32>, %x: tensor<4x8xf32>, %y: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %r = hl.addmm %c, %x, %y : (tensor<4x16xf32>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  func.return %r : tensor<4x16xf32>
}

// -----

// The weight of addmm(b, x, t(w)) arrives as a transpose, which stays for hl-to-cublaslt
// to fold into transa.
// CHECK-LABEL: func.func @addmm_transposed_weight
// CHECK-NEXT:    %[[WT:.*]] = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
// CHECK-NEXT:    %[[MM:.*]] = hl.matmul %x, %[[WT]] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
// CHECK-NEXT:    %[[R:.*]] = hl.add %[[MM]], %b : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x16xbf16>
func.func @addmm_transposed_weight(%b: tensor<16xbf16>, %x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>) -> tensor<4x16xbf16> {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %r = hl.addmm %b, %x, %wt : (tensor<16xbf16>, tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  func.return %r : tensor<4x16xbf16>
}
