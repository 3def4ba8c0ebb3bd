// RUN: lumir-opt %s -p hl-canonicalize --split-input-file | filecheck %s

// HF's repeat_kv (unsqueeze, expand, reshape) of key and value feeding hl.sdpa: the
// attention reads the 2 key/value heads grouped (enable_gqa), no expand copies them, and
// the reshapes that made the unit dim fold away with the ones that drop it.
// CHECK-LABEL: func.func @repeat_kv
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v {is_causal, scale = 2.500000e-01 : f64, enable_gqa} : tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
// CHECK-NEXT:    func.return %o : tensor<1x4x6x16xbf16>
func.func @repeat_kv(%q: tensor<1x4x6x16xbf16>, %k: tensor<1x2x6x16xbf16>, %v: tensor<1x2x6x16xbf16>) -> tensor<1x4x6x16xbf16> {
  %k5 = hl.reshape %k : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %ke = hl.expand %k5 : tensor<1x2x1x6x16xbf16> -> tensor<1x2x2x6x16xbf16>
  %kr = hl.reshape %ke : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %v5 = hl.reshape %v : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %ve = hl.expand %v5 : tensor<1x2x1x6x16xbf16> -> tensor<1x2x2x6x16xbf16>
  %vr = hl.reshape %ve : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %o = hl.sdpa %q, %kr, %vr {is_causal, scale = 2.500000e-01 : f64} : tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xbf16>
  func.return %o : tensor<1x4x6x16xbf16>
}

// -----

// A mask stays; a unit dim made by something other than a reshape (here a function
// argument) is dropped by a new reshape. One kv head shared by 4 query heads.
// CHECK-LABEL: func.func @masked_one_kv_head
// CHECK-NEXT:    %[[K:.*]] = hl.reshape %k5 : tensor<2x1x1x3x8xf32> -> tensor<2x1x3x8xf32>
// CHECK-NEXT:    %[[V:.*]] = hl.reshape %v5 : tensor<2x1x1x3x8xf32> -> tensor<2x1x3x8xf32>
// CHECK-NEXT:    %o = hl.sdpa %q, %[[K]], %[[V]] mask(%m : tensor<1x3xi1>) {enable_gqa} : tensor<2x4x1x8xf32>, tensor<2x1x3x8xf32>, tensor<2x1x3x8xf32> -> tensor<2x4x1x8xf32>
// CHECK-NEXT:    func.return %o : tensor<2x4x1x8xf32>
func.func @masked_one_kv_head(%q: tensor<2x4x1x8xf32>, %k5: tensor<2x1x1x3x8xf32>, %v5: tensor<2x1x1x3x8xf32>, %m: tensor<1x3xi1>) -> tensor<2x4x1x8xf32> {
  %ke = hl.expand %k5 : tensor<2x1x1x3x8xf32> -> tensor<2x1x4x3x8xf32>
  %kr = hl.reshape %ke : tensor<2x1x4x3x8xf32> -> tensor<2x4x3x8xf32>
  %ve = hl.expand %v5 : tensor<2x1x1x3x8xf32> -> tensor<2x1x4x3x8xf32>
  %vr = hl.reshape %ve : tensor<2x1x4x3x8xf32> -> tensor<2x4x3x8xf32>
  %o = hl.sdpa %q, %kr, %vr mask(%m : tensor<1x3xi1>) : tensor<2x4x1x8xf32>, tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32> -> tensor<2x4x1x8xf32>
  func.return %o : tensor<2x4x1x8xf32>
}

// -----

// An sdpa that is grouped already composes: 8 query heads over k repeated 2x from 2 heads
// (4 heads) is 8 query heads over the 2 heads.
// CHECK-LABEL: func.func @composes_with_gqa
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v {enable_gqa} : tensor<1x8x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32> -> tensor<1x8x5x16xf32>
func.func @composes_with_gqa(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32> {
  %k5 = hl.reshape %k : tensor<1x2x5x16xf32> -> tensor<1x2x1x5x16xf32>
  %ke = hl.expand %k5 : tensor<1x2x1x5x16xf32> -> tensor<1x2x2x5x16xf32>
  %kr = hl.reshape %ke : tensor<1x2x2x5x16xf32> -> tensor<1x4x5x16xf32>
  %v5 = hl.reshape %v : tensor<1x2x5x16xf32> -> tensor<1x2x1x5x16xf32>
  %ve = hl.expand %v5 : tensor<1x2x1x5x16xf32> -> tensor<1x2x2x5x16xf32>
  %vr = hl.reshape %ve : tensor<1x2x2x5x16xf32> -> tensor<1x4x5x16xf32>
  %o = hl.sdpa %q, %kr, %vr {enable_gqa} : tensor<1x8x5x16xf32>, tensor<1x4x5x16xf32>, tensor<1x4x5x16xf32> -> tensor<1x8x5x16xf32>
  func.return %o : tensor<1x8x5x16xf32>
}

// -----

// Only the key is repeated: enable_gqa groups key and value alike, so nothing folds.
// CHECK-LABEL: func.func @only_key_repeated
// CHECK:         hl.expand
// CHECK:         hl.sdpa %q, %{{.*}}, %v : tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x6x16xf32>
func.func @only_key_repeated(%q: tensor<1x4x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x4x6x16xf32>) -> tensor<1x4x6x16xf32> {
  %k5 = hl.reshape %k : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %ke = hl.expand %k5 : tensor<1x2x1x6x16xf32> -> tensor<1x2x2x6x16xf32>
  %kr = hl.reshape %ke : tensor<1x2x2x6x16xf32> -> tensor<1x4x6x16xf32>
  %o = hl.sdpa %q, %kr, %v : tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x6x16xf32>
  func.return %o : tensor<1x4x6x16xf32>
}

// -----

// Key and value repeated by different groups (2 and 4, over 2 and 1 heads): no one
// enable_gqa reads both, so nothing folds.
// CHECK-LABEL: func.func @different_groups
// CHECK-COUNT-2: hl.expand
// CHECK:         hl.sdpa
// CHECK-NOT:     enable_gqa
func.func @different_groups(%q: tensor<1x4x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x1x6x16xf32>) -> tensor<1x4x6x16xf32> {
  %k5 = hl.reshape %k : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %ke = hl.expand %k5 : tensor<1x2x1x6x16xf32> -> tensor<1x2x2x6x16xf32>
  %kr = hl.reshape %ke : tensor<1x2x2x6x16xf32> -> tensor<1x4x6x16xf32>
  %v5 = hl.reshape %v : tensor<1x1x6x16xf32> -> tensor<1x1x1x6x16xf32>
  %ve = hl.expand %v5 : tensor<1x1x1x6x16xf32> -> tensor<1x1x4x6x16xf32>
  %vr = hl.reshape %ve : tensor<1x1x4x6x16xf32> -> tensor<1x4x6x16xf32>
  %o = hl.sdpa %q, %kr, %vr : tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x6x16xf32>
  func.return %o : tensor<1x4x6x16xf32>
}

// -----

// An expand that also broadcasts the batch is not repeat_kv: it stays.
// CHECK-LABEL: func.func @expand_grows_batch
// CHECK-COUNT-2: hl.expand
// CHECK-NOT:     enable_gqa
func.func @expand_grows_batch(%q: tensor<2x4x6x16xf32>, %k5: tensor<1x2x1x6x16xf32>, %v5: tensor<1x2x1x6x16xf32>) -> tensor<2x4x6x16xf32> {
  %ke = hl.expand %k5 : tensor<1x2x1x6x16xf32> -> tensor<2x2x2x6x16xf32>
  %kr = hl.reshape %ke : tensor<2x2x2x6x16xf32> -> tensor<2x4x6x16xf32>
  %ve = hl.expand %v5 : tensor<1x2x1x6x16xf32> -> tensor<2x2x2x6x16xf32>
  %vr = hl.reshape %ve : tensor<2x2x2x6x16xf32> -> tensor<2x4x6x16xf32>
  %o = hl.sdpa %q, %kr, %vr : tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32> -> tensor<2x4x6x16xf32>
  func.return %o : tensor<2x4x6x16xf32>
}
