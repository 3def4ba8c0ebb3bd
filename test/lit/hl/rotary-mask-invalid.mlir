// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// Verifiers of hl.arange, hl.cumsum, hl.index, hl.pad and hl.bitwise_and.

func.func @arange_length() -> tensor<4xi64> {
  // expected-error @+1 {{'hl.arange' result type tensor<4xi64> does not match the inferred type tensor<3xi64>}}
  %a = hl.arange {start = 0 : i64, end = 6 : i64, step = 2 : i64} : tensor<4xi64>
  func.return %a : tensor<4xi64>
}

// -----

func.func @arange_step() -> tensor<0xi64> {
  // expected-error @+1 {{'hl.arange' step must be nonzero}}
  %a = hl.arange {start = 0 : i64, end = 6 : i64, step = 0 : i64} : tensor<0xi64>
  func.return %a : tensor<0xi64>
}

// -----

func.func @cumsum_dim(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  // expected-error @+1 {{'hl.cumsum' dimension 2 is out of range for rank 2}}
  %s = hl.cumsum %x {dim = 2 : i64} : tensor<2x3xi64> -> tensor<2x3xi64>
  func.return %s : tensor<2x3xi64>
}

// -----

func.func @index_mask(%x: tensor<4x8xf32>, %m: tensor<4xi1>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.index' index tensors must be i32 or i64, got tensor<4xi1>}}
  %g = hl.index %x[%m] : (tensor<4x8xf32>, tensor<4xi1>) -> tensor<4x8xf32>
  func.return %g : tensor<4x8xf32>
}

// -----

func.func @index_shape(%x: tensor<4x8xf32>, %i: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{'hl.index' result type tensor<3xf32> does not match the inferred type tensor<3x8xf32>}}
  %g = hl.index %x[%i] : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// -----

func.func @pad_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.pad' pad [1, 1, 1, 1] does not fit rank 1}}
  %p = hl.pad %x {pad = array<i64: 1, 1, 1, 1>, value = 0.0 : f64} : tensor<4xf32> -> tensor<4xf32>
  func.return %p : tensor<4xf32>
}

// -----

func.func @bitwise_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hl.bitwise_and' needs integer or i1 operands, got tensor<4xf32>}}
  %b = hl.bitwise_and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
