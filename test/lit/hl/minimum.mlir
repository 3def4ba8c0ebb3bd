// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.minimum: aten.minimum, with ATen broadcasting.
// Both operands and the result share one element type; the custom form ends in
// `functional-type(operands, results)`.

// Same shapes.
// CHECK-LABEL: func.func @same_shape(
// CHECK-NEXT:    %r = hl.minimum %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "same_shape"
// GENERIC:         %r = "hl.minimum"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @same_shape(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hl.minimum %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// A missing leading dimension broadcasts (rank 1 against rank 3).
// CHECK-LABEL: func.func @broadcast_rank(
// CHECK-NEXT:    %r = hl.minimum %a, %b : (tensor<2x4x8xbf16>, tensor<8xbf16>) -> tensor<2x4x8xbf16>
// CHECK-NEXT:    func.return %r : tensor<2x4x8xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "broadcast_rank"
// GENERIC:         %r = "hl.minimum"(%a, %b) : (tensor<2x4x8xbf16>, tensor<8xbf16>) -> tensor<2x4x8xbf16>
func.func @broadcast_rank(%a: tensor<2x4x8xbf16>, %b: tensor<8xbf16>) -> tensor<2x4x8xbf16> {
  %r = hl.minimum %a, %b : (tensor<2x4x8xbf16>, tensor<8xbf16>) -> tensor<2x4x8xbf16>
  func.return %r : tensor<2x4x8xbf16>
}

// -----

// Size-1 dimensions broadcast on both sides: [4, 1] and [1, 8] give [4, 8].
// CHECK-LABEL: func.func @broadcast_ones(
// CHECK-NEXT:    %r = hl.minimum %a, %b : (tensor<4x1xf16>, tensor<1x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT:    func.return %r : tensor<4x8xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "broadcast_ones"
// GENERIC:         %r = "hl.minimum"(%a, %b) : (tensor<4x1xf16>, tensor<1x8xf16>) -> tensor<4x8xf16>
func.func @broadcast_ones(%a: tensor<4x1xf16>, %b: tensor<1x8xf16>) -> tensor<4x8xf16> {
  %r = hl.minimum %a, %b : (tensor<4x1xf16>, tensor<1x8xf16>) -> tensor<4x8xf16>
  func.return %r : tensor<4x8xf16>
}

// -----

// A 0-d constant operand (how the importer writes a Python scalar).
// CHECK-LABEL: func.func @scalar_rhs(
// CHECK-NEXT:    %s = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    %r = hl.minimum %a, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "scalar_rhs"
// GENERIC:         %s = "hl.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// GENERIC:         %r = "hl.minimum"(%a, %s) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
func.func @scalar_rhs(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
  %r = hl.minimum %a, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// Integer tensors are fine: the op does not care about the element kind.
// CHECK-LABEL: func.func @integers(
// CHECK-NEXT:    %r = hl.minimum %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
// CHECK-NEXT:    func.return %r : tensor<3xi64>
// GENERIC-LABEL: "func.func"() <{sym_name = "integers"
// GENERIC:         %r = "hl.minimum"(%a, %b) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
func.func @integers(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %r = hl.minimum %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  func.return %r : tensor<3xi64>
}
