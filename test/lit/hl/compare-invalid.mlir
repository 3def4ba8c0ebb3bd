// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.compare verifier: a known predicate, one operand type, broadcasting, an i1 result.

// `neq` is not a predicate (ATen's name is ne).
func.func @unknown_predicate(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'hl.compare' predicate must be one of ['eq', 'ne', 'lt', 'le', 'gt', 'ge'], got 'neq'}}
  %r = hl.compare %a, %b {predicate = "neq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

// Operands share an element type.
func.func @element_types_differ(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error @+1 {{operand element types differ: rhs is i64, not f32 (insert an hl.cast)}}
  %r = hl.compare %a, %b {predicate = "lt"} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

// Operands broadcast.
func.func @shapes_do_not_broadcast(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'hl.compare' operand shapes [4] and [3] do not broadcast}}
  %r = hl.compare %a, %b {predicate = "lt"} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

// The result is i1, not the operands' type.
func.func @result_not_i1(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.compare' result type tensor<4xf32> does not match the inferred type tensor<4xi1>}}
  %r = hl.compare %a, %b {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// `predicate` is required.
func.func @missing_predicate(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{property 'predicate' expected in operation 'hl.compare'}}
  %r = hl.compare %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

// torch orders no f8 values on the CPU ("lt_cpu" not implemented); eq and ne run.
func.func @ordered_f8(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E4M3FN>) -> (tensor<4xi1>, tensor<4xi1>) {
  %e = hl.compare %a, %b {predicate = "eq"} : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xi1>
  // expected-error @+1 {{'hl.compare' cannot run on f8E4M3FN: torch's CPU kernel does not implement it for that type}}
  %r = hl.compare %a, %b {predicate = "lt"} : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xi1>
  func.return %e, %r : tensor<4xi1>, tensor<4xi1>
}
