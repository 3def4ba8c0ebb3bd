// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.compare: aten.eq / ne / lt / le / gt / ge with broadcasting, giving an i1 tensor.
// `predicate` is a string property, one of eq, ne, lt, le, gt, ge.

// Every predicate once.
// CHECK-LABEL: func.func @predicates(
// CHECK-NEXT:    %eq = hl.compare %a, %b {predicate = "eq"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:    %ne = hl.compare %a, %b {predicate = "ne"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:    %lt = hl.compare %a, %b {predicate = "lt"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:    %le = hl.compare %a, %b {predicate = "le"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:    %gt = hl.compare %a, %b {predicate = "gt"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:    %ge = hl.compare %a, %b {predicate = "ge"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:    func.return %ge : tensor<4x8xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "predicates"
// GENERIC:         %eq = "hl.compare"(%a, %b) <{predicate = "eq"}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC:         %ne = "hl.compare"(%a, %b) <{predicate = "ne"}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC:         %lt = "hl.compare"(%a, %b) <{predicate = "lt"}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC:         %le = "hl.compare"(%a, %b) <{predicate = "le"}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC:         %gt = "hl.compare"(%a, %b) <{predicate = "gt"}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC:         %ge = "hl.compare"(%a, %b) <{predicate = "ge"}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
func.func @predicates(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %eq = hl.compare %a, %b {predicate = "eq"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %ne = hl.compare %a, %b {predicate = "ne"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %lt = hl.compare %a, %b {predicate = "lt"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %le = hl.compare %a, %b {predicate = "le"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %gt = hl.compare %a, %b {predicate = "gt"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %ge = hl.compare %a, %b {predicate = "ge"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  func.return %ge : tensor<4x8xi1>
}

// -----

// A causal mask: positions [S, 1] against [1, S] broadcast to [S, S].
// CHECK-LABEL: func.func @causal_mask(
// CHECK-NEXT:    %m = hl.compare %row, %col {predicate = "ge"} : (tensor<6x1xi64>, tensor<1x6xi64>) -> tensor<6x6xi1>
// CHECK-NEXT:    func.return %m : tensor<6x6xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "causal_mask"
// GENERIC:         %m = "hl.compare"(%row, %col) <{predicate = "ge"}> : (tensor<6x1xi64>, tensor<1x6xi64>) -> tensor<6x6xi1>
func.func @causal_mask(%row: tensor<6x1xi64>, %col: tensor<1x6xi64>) -> tensor<6x6xi1> {
  %m = hl.compare %row, %col {predicate = "ge"} : (tensor<6x1xi64>, tensor<1x6xi64>) -> tensor<6x6xi1>
  func.return %m : tensor<6x6xi1>
}
