// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.sdpa: aten.scaled_dot_product_attention. query [..., L, E], key [..., S, E],
// value [..., S, Ev] -> [..., L, Ev]; batch dimensions broadcast. Optional: a mask
// operand `mask(%m : type)` (i1 or the query's type, broadcastable to [..., L, S]),
// the unit property `is_causal`, and a float `scale`.

// Plain attention; L = 8 queries over S = 10 keys, Ev = 32 differs from E = 16.
// CHECK-LABEL: func.func @plain(
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
// CHECK-NEXT:    func.return %o : tensor<2x4x8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "plain"
// GENERIC:         %o = "hl.sdpa"(%q, %k, %v) : (tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16>) -> tensor<2x4x8x32xbf16>
func.func @plain(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x10x16xbf16>, %v: tensor<2x4x10x32xbf16>) -> tensor<2x4x8x32xbf16> {
  %o = hl.sdpa %q, %k, %v : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
  func.return %o : tensor<2x4x8x32xbf16>
}

// -----

// Causal, with an explicit scale.
// CHECK-LABEL: func.func @causal_scaled(
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v {is_causal, scale = 2.500000e-01 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
// CHECK-NEXT:    func.return %o : tensor<2x4x8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "causal_scaled"
// GENERIC:         %o = "hl.sdpa"(%q, %k, %v) <{is_causal, scale = 2.500000e-01 : f64}> : (tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16>) -> tensor<2x4x8x32xbf16>
func.func @causal_scaled(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x10x16xbf16>, %v: tensor<2x4x10x32xbf16>) -> tensor<2x4x8x32xbf16> {
  %o = hl.sdpa %q, %k, %v {is_causal, scale = 2.500000e-01 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
  func.return %o : tensor<2x4x8x32xbf16>
}

// -----

// A boolean [L, S] mask, broadcast over batch and heads.
// CHECK-LABEL: func.func @bool_mask(
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v mask(%m : tensor<8x10xi1>) : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
// CHECK-NEXT:    func.return %o : tensor<2x4x8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "bool_mask"
// GENERIC:         %o = "hl.sdpa"(%q, %k, %v, %m) : (tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16>, tensor<8x10xi1>) -> tensor<2x4x8x32xbf16>
func.func @bool_mask(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x10x16xbf16>, %v: tensor<2x4x10x32xbf16>, %m: tensor<8x10xi1>) -> tensor<2x4x8x32xbf16> {
  %o = hl.sdpa %q, %k, %v mask(%m : tensor<8x10xi1>) : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
  func.return %o : tensor<2x4x8x32xbf16>
}

// -----

// An additive mask in the query's type, per batch: [2, 1, 8, 10].
// CHECK-LABEL: func.func @additive_mask(
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v mask(%m : tensor<2x1x8x10xbf16>) {scale = 1.250000e-01 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
// CHECK-NEXT:    func.return %o : tensor<2x4x8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "additive_mask"
// GENERIC:         %o = "hl.sdpa"(%q, %k, %v, %m) <{scale = 1.250000e-01 : f64}> : (tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16>, tensor<2x1x8x10xbf16>) -> tensor<2x4x8x32xbf16>
func.func @additive_mask(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x10x16xbf16>, %v: tensor<2x4x10x32xbf16>, %m: tensor<2x1x8x10xbf16>) -> tensor<2x4x8x32xbf16> {
  %o = hl.sdpa %q, %k, %v mask(%m : tensor<2x1x8x10xbf16>) {scale = 1.250000e-01 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x32xbf16> -> tensor<2x4x8x32xbf16>
  func.return %o : tensor<2x4x8x32xbf16>
}

// -----

// Batch dimensions broadcast: one query batch against two key/value batches.
// CHECK-LABEL: func.func @broadcast_batch(
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v : tensor<1x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NEXT:    func.return %o : tensor<2x4x8x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "broadcast_batch"
// GENERIC:         %o = "hl.sdpa"(%q, %k, %v) : (tensor<1x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32>) -> tensor<2x4x8x16xf32>
func.func @broadcast_batch(%q: tensor<1x4x8x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<2x4x10x16xf32>) -> tensor<2x4x8x16xf32> {
  %o = hl.sdpa %q, %k, %v : tensor<1x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32> -> tensor<2x4x8x16xf32>
  func.return %o : tensor<2x4x8x16xf32>
}

// -----

// Grouped-query attention: 4 query heads over 2 key/value heads (enable_gqa).
// CHECK-LABEL: func.func @grouped_query(
// CHECK-NEXT:    %o = hl.sdpa %q, %k, %v {is_causal, enable_gqa} : tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
// CHECK-NEXT:    func.return %o : tensor<1x4x6x16xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "grouped_query"
// GENERIC:         %o = "hl.sdpa"(%q, %k, %v) <{is_causal, enable_gqa}> : (tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16>) -> tensor<1x4x6x16xbf16>
func.func @grouped_query(%q: tensor<1x4x6x16xbf16>, %k: tensor<1x2x6x16xbf16>, %v: tensor<1x2x6x16xbf16>) -> tensor<1x4x6x16xbf16> {
  %o = hl.sdpa %q, %k, %v {is_causal, enable_gqa} : tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  func.return %o : tensor<1x4x6x16xbf16>
}
