// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.expand verifier: the input broadcasts to the result shape; the element type is kept.

// Only size-1 dimensions expand: 3 cannot become 5.
func.func @not_size_one(%x: tensor<3xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'hl.expand' cannot expand [3] to [4, 5]}}
  %r = hl.expand %x : tensor<3xf32> -> tensor<4x5xf32>
  func.return %r : tensor<4x5xf32>
}

// -----

// expand cannot shrink a dimension.
func.func @shrink(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'hl.expand' cannot expand [4, 8] to [1, 8]}}
  %r = hl.expand %x : tensor<4x8xf32> -> tensor<1x8xf32>
  func.return %r : tensor<1x8xf32>
}

// -----

// expand cannot drop dimensions.
func.func @lower_rank(%x: tensor<1x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'hl.expand' cannot expand [1, 8] to [8]}}
  %r = hl.expand %x : tensor<1x8xf32> -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----

// expand is not a cast.
func.func @element_type_changes(%x: tensor<1x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'hl.expand' result type tensor<4x8xf32> does not match the inferred type tensor<4x8xbf16>}}
  %r = hl.expand %x : tensor<1x8xbf16> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
