// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// hl.sdpa verifier: ranks, E and S agree, batches broadcast, mask type/shape, one element type.

// Query and key disagree on E (16 and 8).
func.func @e_mismatch(%q: tensor<2x8x16xf32>, %k: tensor<2x10x8xf32>, %v: tensor<2x10x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'hl.sdpa' shapes disagree: query [2, 8, 16], key [2, 10, 8], value [2, 10, 16]}}
  %o = hl.sdpa %q, %k, %v : tensor<2x8x16xf32>, tensor<2x10x8xf32>, tensor<2x10x16xf32> -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// -----

// Key and value disagree on S (10 and 12).
func.func @s_mismatch(%q: tensor<2x8x16xf32>, %k: tensor<2x10x16xf32>, %v: tensor<2x12x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'hl.sdpa' shapes disagree: query [2, 8, 16], key [2, 10, 16], value [2, 12, 16]}}
  %o = hl.sdpa %q, %k, %v : tensor<2x8x16xf32>, tensor<2x10x16xf32>, tensor<2x12x16xf32> -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// -----

// Batch dimensions 2 and 3 do not broadcast.
func.func @batch_mismatch(%q: tensor<2x8x16xf32>, %k: tensor<3x10x16xf32>, %v: tensor<3x10x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'hl.sdpa' shapes disagree: query [2, 8, 16], key [3, 10, 16], value [3, 10, 16]}}
  %o = hl.sdpa %q, %k, %v : tensor<2x8x16xf32>, tensor<3x10x16xf32>, tensor<3x10x16xf32> -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// -----

// Query, key and value have one rank.
func.func @rank_mismatch(%q: tensor<2x8x16xf32>, %k: tensor<10x16xf32>, %v: tensor<10x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'hl.sdpa' expects query, key and value of one rank >= 2}}
  %o = hl.sdpa %q, %k, %v : tensor<2x8x16xf32>, tensor<10x16xf32>, tensor<10x16xf32> -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// -----

// One element type for query, key and value.
func.func @element_types_differ(%q: tensor<8x16xbf16>, %k: tensor<10x16xf32>, %v: tensor<10x16xf32>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{operand element types differ: key is f32, not bf16 (insert an hl.cast)}}
  %o = hl.sdpa %q, %k, %v : tensor<8x16xbf16>, tensor<10x16xf32>, tensor<10x16xf32> -> tensor<8x16xbf16>
  func.return %o : tensor<8x16xbf16>
}

// -----

// ATen refuses an explicit mask together with is_causal.
func.func @mask_and_causal(%q: tensor<8x16xf32>, %k: tensor<10x16xf32>, %v: tensor<10x16xf32>, %m: tensor<8x10xi1>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'hl.sdpa' takes a mask or is_causal, not both}}
  %o = hl.sdpa %q, %k, %v mask(%m : tensor<8x10xi1>) {is_causal} : tensor<8x16xf32>, tensor<10x16xf32>, tensor<10x16xf32> -> tensor<8x16xf32>
  func.return %o : tensor<8x16xf32>
}

// -----

// A mask is boolean or in the query's type; an f32 mask on bf16 attention is neither.
func.func @mask_element_type(%q: tensor<8x16xbf16>, %k: tensor<10x16xbf16>, %v: tensor<10x16xbf16>, %m: tensor<8x10xf32>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{'hl.sdpa' mask must be i1 or the query's bf16, got f32}}
  %o = hl.sdpa %q, %k, %v mask(%m : tensor<8x10xf32>) : tensor<8x16xbf16>, tensor<10x16xbf16>, tensor<10x16xbf16> -> tensor<8x16xbf16>
  func.return %o : tensor<8x16xbf16>
}

// -----

// A [S, L] mask (transposed) does not broadcast to the [L, S] scores.
func.func @mask_shape(%q: tensor<8x16xf32>, %k: tensor<10x16xf32>, %v: tensor<10x16xf32>, %m: tensor<10x8xi1>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'hl.sdpa' mask [10, 8] does not broadcast to the attention scores [8, 10]}}
  %o = hl.sdpa %q, %k, %v mask(%m : tensor<10x8xi1>) : tensor<8x16xf32>, tensor<10x16xf32>, tensor<10x16xf32> -> tensor<8x16xf32>
  func.return %o : tensor<8x16xf32>
}

// -----

// The result is [..., L, Ev] = [8, 32], not [..., L, E].
func.func @result_shape(%q: tensor<8x16xf32>, %k: tensor<10x16xf32>, %v: tensor<10x32xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'hl.sdpa' result type tensor<8x16xf32> does not match the inferred type tensor<8x32xf32>}}
  %o = hl.sdpa %q, %k, %v : tensor<8x16xf32>, tensor<10x16xf32>, tensor<10x32xf32> -> tensor<8x16xf32>
  func.return %o : tensor<8x16xf32>
}

// -----

// `scale` is a float (generic form).
func.func @scale_not_float(%q: tensor<8x16xf32>, %k: tensor<10x16xf32>, %v: tensor<10x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{1 : i64 should be of base attribute float}}
  %o = "hl.sdpa"(%q, %k, %v) <{scale = 1 : i64}> : (tensor<8x16xf32>, tensor<10x16xf32>, tensor<10x16xf32>) -> tensor<8x16xf32>
  func.return %o : tensor<8x16xf32>
}

// -----

// 4 query heads over 2 key/value heads is grouped-query attention: only with enable_gqa.
func.func @groups_without_gqa(%q: tensor<1x4x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>) -> tensor<1x4x6x16xf32> {
  // expected-error @+1 {{'hl.sdpa' shapes disagree: query [1, 4, 6, 16], key [1, 2, 6, 16], value [1, 2, 6, 16]}}
  %o = hl.sdpa %q, %k, %v : tensor<1x4x6x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32> -> tensor<1x4x6x16xf32>
  func.return %o : tensor<1x4x6x16xf32>
}

// -----

// enable_gqa needs the query's heads to be a multiple of the key/value heads.
func.func @gqa_not_a_multiple(%q: tensor<1x6x6x16xf32>, %k: tensor<1x4x6x16xf32>, %v: tensor<1x4x6x16xf32>) -> tensor<1x6x6x16xf32> {
  // expected-error @+1 {{'hl.sdpa' enable_gqa groups the query's 6 heads over key and value heads 4 and 4: they must be equal and divide 6}}
  %o = hl.sdpa %q, %k, %v {enable_gqa} : tensor<1x6x6x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x6x6x16xf32>
  func.return %o : tensor<1x6x6x16xf32>
}

// -----

// enable_gqa groups key and value alike: they have one head count.
func.func @gqa_key_value_heads_differ(%q: tensor<1x4x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x4x6x16xf32>) -> tensor<1x4x6x16xf32> {
  // expected-error @+1 {{'hl.sdpa' enable_gqa groups the query's 4 heads over key and value heads 2 and 4: they must be equal and divide 4}}
  %o = hl.sdpa %q, %k, %v {enable_gqa} : tensor<1x4x6x16xf32>, tensor<1x2x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x6x16xf32>
  func.return %o : tensor<1x4x6x16xf32>
}

// -----

// enable_gqa reads dimension -3 as the heads: rank 2 has none.
func.func @gqa_rank_two(%q: tensor<6x16xf32>, %k: tensor<6x16xf32>, %v: tensor<6x16xf32>) -> tensor<6x16xf32> {
  // expected-error @+1 {{'hl.sdpa' enable_gqa needs a heads dimension: rank >= 3}}
  %o = hl.sdpa %q, %k, %v {enable_gqa} : tensor<6x16xf32>, tensor<6x16xf32>, tensor<6x16xf32> -> tensor<6x16xf32>
  func.return %o : tensor<6x16xf32>
}
