// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.cat: aten.cat along `dim`. Any number (>= 1) of inputs with one element type and
// one rank, equal outside `dim`; the custom form ends in `functional-type`.

// Rotary embeddings' cat(-x2, x1) along the last dimension.
// CHECK-LABEL: func.func @last_dim(
// CHECK-NEXT:    %r = hl.cat %a, %b {dim = -1 : i64} : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x16xf32>
// CHECK-NEXT:    func.return %r : tensor<2x4x6x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "last_dim"
// GENERIC:         %r = "hl.cat"(%a, %b) <{dim = -1 : i64}> : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x16xf32>
func.func @last_dim(%a: tensor<2x4x6x8xf32>, %b: tensor<2x4x6x8xf32>) -> tensor<2x4x6x16xf32> {
  %r = hl.cat %a, %b {dim = -1 : i64} : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x16xf32>
  func.return %r : tensor<2x4x6x16xf32>
}

// -----

// Three inputs of different lengths along dimension 0.
// CHECK-LABEL: func.func @three(
// CHECK-NEXT:    %r = hl.cat %a, %b, %c {dim = 0 : i64} : (tensor<1x8xbf16>, tensor<2x8xbf16>, tensor<3x8xbf16>) -> tensor<6x8xbf16>
// CHECK-NEXT:    func.return %r : tensor<6x8xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "three"
// GENERIC:         %r = "hl.cat"(%a, %b, %c) <{dim = 0 : i64}> : (tensor<1x8xbf16>, tensor<2x8xbf16>, tensor<3x8xbf16>) -> tensor<6x8xbf16>
func.func @three(%a: tensor<1x8xbf16>, %b: tensor<2x8xbf16>, %c: tensor<3x8xbf16>) -> tensor<6x8xbf16> {
  %r = hl.cat %a, %b, %c {dim = 0 : i64} : (tensor<1x8xbf16>, tensor<2x8xbf16>, tensor<3x8xbf16>) -> tensor<6x8xbf16>
  func.return %r : tensor<6x8xbf16>
}

// -----

// A single input.
// CHECK-LABEL: func.func @single(
// CHECK-NEXT:    %r = hl.cat %a {dim = 0 : i64} : (tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT:    func.return %r : tensor<4xi64>
// GENERIC-LABEL: "func.func"() <{sym_name = "single"
// GENERIC:         %r = "hl.cat"(%a) <{dim = 0 : i64}> : (tensor<4xi64>) -> tensor<4xi64>
func.func @single(%a: tensor<4xi64>) -> tensor<4xi64> {
  %r = hl.cat %a {dim = 0 : i64} : (tensor<4xi64>) -> tensor<4xi64>
  func.return %r : tensor<4xi64>
}
