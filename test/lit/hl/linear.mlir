// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.linear: aten.linear, input[..., K] @ weight[N, K]^T (+ bias[N]). The optional bias
// is written `bias(%b : type)`; in generic form it is simply the third operand.

// A Linear layer with a bias.
// CHECK-LABEL: func.func @with_bias(
// CHECK-NEXT:    %y = hl.linear %x, %w bias(%b : tensor<32xbf16>) : tensor<8x64xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %y : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "with_bias"
// GENERIC:         %y = "hl.linear"(%x, %w, %b) : (tensor<8x64xbf16>, tensor<32x64xbf16>, tensor<32xbf16>) -> tensor<8x32xbf16>
func.func @with_bias(%x: tensor<8x64xbf16>, %w: tensor<32x64xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %y = hl.linear %x, %w bias(%b : tensor<32xbf16>) : tensor<8x64xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
  func.return %y : tensor<8x32xbf16>
}

// -----

// Without a bias (Llama's projections).
// CHECK-LABEL: func.func @without_bias(
// CHECK-NEXT:    %y = hl.linear %x, %w : tensor<8x64xf32>, tensor<32x64xf32> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %y : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "without_bias"
// GENERIC:         %y = "hl.linear"(%x, %w) : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<8x32xf32>
func.func @without_bias(%x: tensor<8x64xf32>, %w: tensor<32x64xf32>) -> tensor<8x32xf32> {
  %y = hl.linear %x, %w : tensor<8x64xf32>, tensor<32x64xf32> -> tensor<8x32xf32>
  func.return %y : tensor<8x32xf32>
}

// -----

// A [batch, seq, K] input keeps its leading dimensions.
// CHECK-LABEL: func.func @batched_input(
// CHECK-NEXT:    %y = hl.linear %x, %w bias(%b : tensor<128xf16>) : tensor<2x6x64xf16>, tensor<128x64xf16> -> tensor<2x6x128xf16>
// CHECK-NEXT:    func.return %y : tensor<2x6x128xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "batched_input"
// GENERIC:         %y = "hl.linear"(%x, %w, %b) : (tensor<2x6x64xf16>, tensor<128x64xf16>, tensor<128xf16>) -> tensor<2x6x128xf16>
func.func @batched_input(%x: tensor<2x6x64xf16>, %w: tensor<128x64xf16>, %b: tensor<128xf16>) -> tensor<2x6x128xf16> {
  %y = hl.linear %x, %w bias(%b : tensor<128xf16>) : tensor<2x6x64xf16>, tensor<128x64xf16> -> tensor<2x6x128xf16>
  func.return %y : tensor<2x6x128xf16>
}

// -----

// A 1-D input gives a 1-D result.
// CHECK-LABEL: func.func @vector_input(
// CHECK-NEXT:    %y = hl.linear %x, %w : tensor<64xf32>, tensor<32x64xf32> -> tensor<32xf32>
// CHECK-NEXT:    func.return %y : tensor<32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "vector_input"
// GENERIC:         %y = "hl.linear"(%x, %w) : (tensor<64xf32>, tensor<32x64xf32>) -> tensor<32xf32>
func.func @vector_input(%x: tensor<64xf32>, %w: tensor<32x64xf32>) -> tensor<32xf32> {
  %y = hl.linear %x, %w : tensor<64xf32>, tensor<32x64xf32> -> tensor<32xf32>
  func.return %y : tensor<32xf32>
}
