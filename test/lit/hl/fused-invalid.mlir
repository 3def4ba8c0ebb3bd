// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.fused verifier: the body is a row program of fusable ops, typed like the op.

// A GEMM is not part of a fused kernel.
func.func @matmul_inside(%x: tensor<4x8xf32>, %y: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.matmul' cannot be part of a fused kernel}}
  %r = hl.fused(%x, %y) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %m = hl.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    hl.yield %m : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

// A reduction over a leading dimension is not a row reduction.
func.func @column_sum(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.sum' in a fused kernel reduces the last dimension only, with keepdim}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<1x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = hl.sum %a {dims = array<i64: 0>, keepdim} : tensor<4x8xf32> -> tensor<1x8xf32>
    hl.yield %s : tensor<1x8xf32>
  }
  func.return %r : tensor<1x8xf32>
}

// -----

// Without keepdim the reduced value no longer broadcasts against its row.
func.func @no_keepdim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.mean' in a fused kernel reduces the last dimension only, with keepdim}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %m = hl.mean %a {dims = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
    hl.yield %a : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

// The yielded values must have the result types.
func.func @yield_type(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'hl.fused' hl.yield must yield values of the result types}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16> {
  ^bb0(%a: tensor<4x8xf32>):
    %n = hl.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %n : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xbf16>
}

// -----

// Block arguments have the operands' types.
func.func @argument_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.fused' the body's arguments must have the operands' types}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xbf16>):
    %c = hl.cast %a : tensor<4x8xbf16> -> tensor<4x8xf32>
    hl.yield %c : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

// Integer tensors are not loaded by a fused kernel.
func.func @integer(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'hl.fused' a fused kernel computes on f16/bf16/f32 tensors, not tensor<4x8xi32>}}
  %r = hl.fused(%x) : (tensor<4x8xi32>) -> tensor<4x8xi32> {
  ^bb0(%a: tensor<4x8xi32>):
    %n = hl.neg %a : tensor<4x8xi32> -> tensor<4x8xi32>
    hl.yield %n : tensor<4x8xi32>
  }
  func.return %r : tensor<4x8xi32>
}

// -----

// hl.yield only ends a fused body.
func.func @stray_yield(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.yield' ends the body of an hl.fused or cublaslt_rt.fused_launch}}
  hl.yield %x : tensor<4x8xf32>
}

// -----

// A result broadcast along the rows does not cover every row.
func.func @broadcast_result(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'hl.fused' a fused result must cover every row of [4, 8], not have shape [8]}}
  %r = hl.fused(%x, %w) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8xf32>):
    %m = hl.mul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %n = hl.neg %b : tensor<8xf32> -> tensor<8xf32>
    hl.yield %n : tensor<8xf32>
  }
  func.return %r : tensor<8xf32>
}
