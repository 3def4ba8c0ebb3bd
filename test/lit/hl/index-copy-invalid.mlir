// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.index_copy verifier: a 1-D i64 index; the source is the input's slice shape with
// len(index) along dim, in the input's element type; the result is the input's type.

// Three positions but a source of two slices.
func.func @source_rows(%c: tensor<1x2x8x4xf32>, %p: tensor<3xi64>, %kv: tensor<1x2x2x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'hl.index_copy' the source must be tensor<1x2x3x4xf32> to fill 3 slices of tensor<1x2x8x4xf32> along dim 2, got tensor<1x2x2x4xf32>}}
  %r = hl.index_copy %c[%p], %kv {dim = 2 : i64} : (tensor<1x2x8x4xf32>, tensor<3xi64>, tensor<1x2x2x4xf32>) -> tensor<1x2x8x4xf32>
  func.return %r : tensor<1x2x8x4xf32>
}

// -----

// An i32 index (torch's index_copy takes int64 only).
func.func @index_dtype(%c: tensor<1x2x8x4xf32>, %p: tensor<3xi32>, %kv: tensor<1x2x3x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'hl.index_copy' the index must be a 1-D i64 tensor, got tensor<3xi32>}}
  %r = hl.index_copy %c[%p], %kv {dim = 2 : i64} : (tensor<1x2x8x4xf32>, tensor<3xi32>, tensor<1x2x3x4xf32>) -> tensor<1x2x8x4xf32>
  func.return %r : tensor<1x2x8x4xf32>
}

// -----

// The dimension is out of range for a rank-4 cache.
func.func @dim_range(%c: tensor<1x2x8x4xf32>, %p: tensor<3xi64>, %kv: tensor<1x2x3x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'hl.index_copy' dimension 4 is out of range for rank 4}}
  %r = hl.index_copy %c[%p], %kv {dim = 4 : i64} : (tensor<1x2x8x4xf32>, tensor<3xi64>, tensor<1x2x3x4xf32>) -> tensor<1x2x8x4xf32>
  func.return %r : tensor<1x2x8x4xf32>
}
