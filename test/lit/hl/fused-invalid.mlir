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

// -----

// A transpose in a fused kernel is a load of a kernel input with permuted rows: not of
// a value the kernel computes (its rows are in other programs' registers).
func.func @transpose_computed(%x: tensor<2x3x8xf32>) -> tensor<3x2x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.transpose' in a fused kernel permutes a kernel input only}}
  %r = hl.fused(%x) : (tensor<2x3x8xf32>) -> tensor<3x2x8xf32> {
  ^bb0(%a: tensor<2x3x8xf32>):
    %e = hl.exp %a : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
    %t = hl.transpose %e {permutation = array<i64: 1, 0, 2>} : tensor<2x3x8xf32> -> tensor<3x2x8xf32>
    hl.yield %t : tensor<3x2x8xf32>
  }
  func.return %r : tensor<3x2x8xf32>
}

// -----

// ... nor one that moves the last dimension (the columns of a row would be strided).
func.func @transpose_last(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.transpose' in a fused kernel keeps the last dimension in place}}
  %r = hl.fused(%x) : (tensor<8x4xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    %t = hl.transpose %a {permutation = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
    %n = hl.neg %t : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %n : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

// A slice of a fused kernel shifts the columns of the row: last dimension, step 1.
func.func @slice_step(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.slice' in a fused kernel has step 1}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = hl.slice %a {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 2 : i64} : tensor<4x8xf32> -> tensor<4x4xf32>
    hl.yield %s : tensor<4x4xf32>
  }
  func.return %r : tensor<4x4xf32>
}

// -----

func.func @slice_rows(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.slice' in a fused kernel works on the last dimension only}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = hl.slice %a {dim = 0 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<2x8xf32>
    hl.yield %s : tensor<2x8xf32>
  }
  func.return %r : tensor<2x8xf32>
}

// -----

// One column of a wider row would be a scalar read at a fixed column: not emitted.
func.func @slice_one_column(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.slice' in a fused kernel keeps at least two columns of a wider row}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = hl.slice %a {dim = 1 : i64, start = 3 : i64, end = 4 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<4x1xf32>
    %m = hl.mul %a, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    hl.yield %m : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @cat_rows(%x: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.cat' in a fused kernel works on the last dimension only}}
  %r = hl.fused(%x) : (tensor<2x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %c = hl.cat %a, %a {dim = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
    hl.yield %c : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

// A softmax keeps its row in registers: it cannot be read at shifted columns.
func.func @softmax_shifted(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'hl.fused' a softmax in a fused kernel is read at its own columns only (not sliced, nor concatenated after another piece)}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = hl.softmax %a {dim = -1 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
    %h = hl.slice %s {dim = 1 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<4x4xf32>
    hl.yield %h : tensor<4x4xf32>
  }
  func.return %r : tensor<4x4xf32>
}

// -----

// A reduction covers a whole row: not a slice narrower than the widest value.
func.func @partial_row_sum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.fused' 'hl.sum' in a fused kernel reduces a whole row of 8 elements}}
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %h = hl.slice %a {dim = 1 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<4x4xf32>
    %s = hl.sum %h {dims = array<i64: -1>, keepdim} : tensor<4x4xf32> -> tensor<4x1xf32>
    %m = hl.mul %a, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    hl.yield %m : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

// A malformed body op (a reduction without its dims) is reported at that op, once;
// the fused op's row analysis does not read the missing property.
func.func @body_op_without_dims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %r = hl.fused(%x) : (tensor<4x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    // expected-error @+1 {{property 'dims' expected in operation 'hl.amax'}}
    %m = hl.amax %a {keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>
    hl.yield %m : tensor<4x1xf32>
  }
  func.return %r : tensor<4x1xf32>
}
