// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.amax verifier: dims in range and distinct, the result shape and type.

// Dimension 2 of a 2-D tensor does not exist.
func.func @dim_out_of_range(%x: tensor<4x8xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{'hl.amax' dimension 2 is out of range for rank 2}}
  %r = hl.amax %x {dims = array<i64: 2>} : tensor<4x8xbf16> -> tensor<4xbf16>
  func.return %r : tensor<4xbf16>
}

// -----

// 1 and -1 name the same dimension of a 2-D tensor; ATen rejects that.
func.func @dim_twice(%x: tensor<4x8xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{'hl.amax' dims [1, -1] name a dimension more than once}}
  %r = hl.amax %x {dims = array<i64: 1, -1>} : tensor<4x8xbf16> -> tensor<4xbf16>
  func.return %r : tensor<4xbf16>
}

// -----

// Without keepdim, the result drops the reduced dimension.
func.func @keepdim_missing(%x: tensor<4x8xbf16>) -> tensor<4x1xbf16> {
  // expected-error @+1 {{'hl.amax' result type tensor<4x1xbf16> does not match the inferred type tensor<4xbf16>}}
  %r = hl.amax %x {dims = array<i64: 1>} : tensor<4x8xbf16> -> tensor<4x1xbf16>
  func.return %r : tensor<4x1xbf16>
}

// -----

// The result keeps the input's element type.
func.func @result_element_type(%x: tensor<4x8xbf16>) -> tensor<4xf64> {
  // expected-error @+1 {{'hl.amax' result type tensor<4xf64> does not match the inferred type tensor<4xbf16>}}
  %r = hl.amax %x {dims = array<i64: 1>} : tensor<4x8xbf16> -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

// `dims` is an i64 array (generic form: the property constraint).
func.func @dims_not_i64(%x: tensor<4x8xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{Expected attribute i64 but got i32}}
  %r = "hl.amax"(%x) <{dims = array<i32: 1>}> : (tensor<4x8xbf16>) -> tensor<4xbf16>
  func.return %r : tensor<4xbf16>
}
