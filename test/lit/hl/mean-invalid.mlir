// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.mean verifier: dims in range and distinct, the result shape and type.

// Dimension 2 of a 2-D tensor does not exist.
func.func @dim_out_of_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.mean' dimension 2 is out of range for rank 2}}
  %r = hl.mean %x {dims = array<i64: 2>} : tensor<4x8xf32> -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// 1 and -1 name the same dimension of a 2-D tensor; ATen rejects that.
func.func @dim_twice(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.mean' dims [1, -1] name a dimension more than once}}
  %r = hl.mean %x {dims = array<i64: 1, -1>} : tensor<4x8xf32> -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Without keepdim, the result drops the reduced dimension.
func.func @keepdim_missing(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'hl.mean' result type tensor<4x1xf32> does not match the inferred type tensor<4xf32>}}
  %r = hl.mean %x {dims = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  func.return %r : tensor<4x1xf32>
}

// -----

// The result keeps the input's element type.
func.func @result_element_type(%x: tensor<4x8xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'hl.mean' result type tensor<4xf64> does not match the inferred type tensor<4xf32>}}
  %r = hl.mean %x {dims = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

// `dims` is an i64 array (generic form: the property constraint).
func.func @dims_not_i64(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Expected attribute i64 but got i32}}
  %r = "hl.mean"(%x) <{dims = array<i32: 1>}> : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// ATen's mean is only defined on floating-point tensors.
func.func @integer_input(%x: tensor<4x8xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'hl.mean' needs a floating-point input, got tensor<4x8xi64>}}
  %r = hl.mean %x {dims = array<i64: 1>} : tensor<4x8xi64> -> tensor<4xi64>
  func.return %r : tensor<4xi64>
}
