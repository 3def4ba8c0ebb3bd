// RUN: lumir-opt %s -p hl-to-cublaslt --split-input-file --verify-diagnostics
// RUN: not lumir-opt %s -p hl-to-cublaslt --split-input-file 2>&1 | filecheck %s

// Integer products have no cuBLASLt row with an integer D of the inputs' type.
// Without --verify-diagnostics the error is located, with no traceback.
// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: 'hl.matmul' on i32 operands has no cuBLASLt lowering
func.func @integer(%x: tensor<4x8xi32>, %w: tensor<8x16xi32>) -> tensor<4x16xi32> {
  // expected-error @+1 {{'hl.matmul' on i32 operands has no cuBLASLt lowering; expected f16, bf16, f32, f64 operands}}
  %y = hl.matmul %x, %w : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
  func.return %y : tensor<4x16xi32>
}

// -----

// FP8 products need scales (torch's _scaled_mm), not a plain matmul.
func.func @fp8(%x: tensor<16x16xf8E4M3FN>, %w: tensor<16x16xf8E4M3FN>) -> tensor<16x16xf8E4M3FN> {
  // expected-error @+1 {{'hl.matmul' on f8E4M3FN operands has no cuBLASLt lowering}}
  %y = hl.matmul %x, %w : (tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>) -> tensor<16x16xf8E4M3FN>
  func.return %y : tensor<16x16xf8E4M3FN>
}

// -----

// Every unsupported matmul of a module is reported at once, each at its own line.
// CHECK: errors.mlir:[[# @LINE + 4]]:3: error: 'hl.matmul' on i8 operands
// CHECK: errors.mlir:[[# @LINE + 6]]:3: error: 'hl.matmul' on i8 operands
func.func @two_errors(%x: tensor<4x8xi8>, %w: tensor<8x16xi8>, %a: tensor<2x2xf32>) -> (tensor<4x16xi8>, tensor<4x16xi8>, tensor<2x2xf32>) {
  // expected-error @+1 {{'hl.matmul' on i8 operands has no cuBLASLt lowering}}
  %y = hl.matmul %x, %w : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi8>
  %b = hl.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // expected-error @+1 {{'hl.matmul' on i8 operands has no cuBLASLt lowering}}
  %z = hl.matmul %x, %w : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi8>
  func.return %y, %z, %b : tensor<4x16xi8>, tensor<4x16xi8>, tensor<2x2xf32>
}

// -----

// A zero-sized dimension is no cuBLASLt problem size.
func.func @empty(%x: tensor<0x8xf32>, %w: tensor<8x16xf32>) -> tensor<0x16xf32> {
  // expected-error @+1 {{'hl.matmul' lhs tensor<0x8xf32> has a dynamic or zero dimension; cuBLASLt lowering expects static sizes >= 1}}
  %y = hl.matmul %x, %w : (tensor<0x8xf32>, tensor<8x16xf32>) -> tensor<0x16xf32>
  func.return %y : tensor<0x16xf32>
}

// CHECK-NOT: Traceback
