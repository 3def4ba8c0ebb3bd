// RUN: lumir-opt %s --split-input-file -p hl-canonicalize | filecheck %s

// What a decode step over a static cache repeats in every layer: the boolean mask
// made additive and a one-position index range. Identical pure ops on the same
// operands are one value; the first in program order stays, and its users read it.
// CHECK-LABEL: func.func @per_layer_mask_and_index(
// CHECK-NEXT:    %[[ZERO:.*]] = hl.constant {value = dense<0.000000e+00> : tensor<bf16>}
// CHECK-NEXT:    %[[NEG:.*]] = hl.constant {value = dense<-3.389530e+38> : tensor<bf16>}
// CHECK-NEXT:    %[[MASK:.*]] = hl.where %m, %[[ZERO]], %[[NEG]]
// CHECK-NEXT:    %[[POS:.*]] = hl.arange {start = 0 : i64, end = 1 : i64, step = 1 : i64}
// CHECK-NEXT:    %[[I0:.*]] = hl.add %[[POS]], %c0
// CHECK-NEXT:    %[[I1:.*]] = hl.add %[[POS]], %c1
// CHECK-NOT:     hl.where
// CHECK-NOT:     hl.arange
// CHECK:         func.return %[[MASK]], %[[MASK]], %[[I0]], %[[I1]]
func.func @per_layer_mask_and_index(%m: tensor<1x1x1x8xi1>, %c0: tensor<i64>, %c1: tensor<i64>) -> (tensor<1x1x1x8xbf16>, tensor<1x1x1x8xbf16>, tensor<1xi64>, tensor<1xi64>) {
  %z0 = hl.constant {value = dense<0.000000e+00> : tensor<bf16>} : tensor<bf16>
  %n0 = hl.constant {value = dense<-3.389530e+38> : tensor<bf16>} : tensor<bf16>
  %mask0 = hl.where %m, %z0, %n0 : (tensor<1x1x1x8xi1>, tensor<bf16>, tensor<bf16>) -> tensor<1x1x1x8xbf16>
  %p0 = hl.arange {start = 0 : i64, end = 1 : i64, step = 1 : i64} : tensor<1xi64>
  %i0 = hl.add %p0, %c0 : (tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  %z1 = hl.constant {value = dense<0.000000e+00> : tensor<bf16>} : tensor<bf16>
  %n1 = hl.constant {value = dense<-3.389530e+38> : tensor<bf16>} : tensor<bf16>
  %mask1 = hl.where %m, %z1, %n1 : (tensor<1x1x1x8xi1>, tensor<bf16>, tensor<bf16>) -> tensor<1x1x1x8xbf16>
  %p1 = hl.arange {start = 0 : i64, end = 1 : i64, step = 1 : i64} : tensor<1xi64>
  %i1 = hl.add %p1, %c1 : (tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %mask0, %mask1, %i0, %i1 : tensor<1x1x1x8xbf16>, tensor<1x1x1x8xbf16>, tensor<1xi64>, tensor<1xi64>
}

// -----

// Ops that differ in a property, an operand or a result type are different values.
// CHECK-LABEL: func.func @not_the_same(
// CHECK-COUNT-2: hl.arange
// CHECK-COUNT-2: hl.exp
// CHECK:         func.return
func.func @not_the_same(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<2xi64>, tensor<3xi64>, tensor<4xf32>, tensor<4xf32>) {
  %a = hl.arange {start = 0 : i64, end = 2 : i64, step = 1 : i64} : tensor<2xi64>
  %b = hl.arange {start = 0 : i64, end = 3 : i64, step = 1 : i64} : tensor<3xi64>
  %e = hl.exp %x : tensor<4xf32> -> tensor<4xf32>
  %f = hl.exp %y : tensor<4xf32> -> tensor<4xf32>
  func.return %a, %b, %e, %f : tensor<2xi64>, tensor<3xi64>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The importer tags an op whose sizes come from symbols with those symbols and a
// digest of what it computes from them (lumir.frontend.size_tags). Two ranges of
// length 4 made from two different symbols (or one from a symbol, one from a literal)
// are equal at this length only: merged here, the program would differ from the one
// at the next length, and the graph would fuse again. Ops with the same tag are the
// same function of the same symbols and merge as before. The tags go with the pass.
// CHECK-LABEL: func.func @equal_at_this_length_only(
// CHECK-NEXT:    %[[S0:.*]] = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
// CHECK-NEXT:    %[[S1:.*]] = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
// CHECK-NEXT:    %[[C:.*]] = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
// CHECK-NOT:     lumir.sizes
// CHECK-NEXT:    func.return %[[S0]], %[[S1]], %[[C]], %[[S0]], %[[C]]
func.func @equal_at_this_length_only() -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %s0 = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64, lumir.sizes = "s0: 0123456789ab.0"} : tensor<4xi64>
  %s1 = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64, lumir.sizes = "s1: 456789abcdef.0"} : tensor<4xi64>
  %c = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
  %again = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64, lumir.sizes = "s0: 0123456789ab.0"} : tensor<4xi64>
  %literal = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xi64>
  func.return %s0, %s1, %c, %again, %literal : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}
