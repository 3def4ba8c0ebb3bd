// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.addmm: aten.addmm with beta = alpha = 1: bias + lhs[M, K] @ rhs[K, N]; the bias
// broadcasts to [M, N]. Operand order is ATen's: bias first.

// A row bias [N] (how torch traces nn.Linear on 2-D inputs).
// CHECK-LABEL: func.func @row_bias(
// CHECK-NEXT:    %y = hl.addmm %b, %x, %wt : (tensor<32xf32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %y : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "row_bias"
// GENERIC:         %y = "hl.addmm"(%b, %x, %wt) : (tensor<32xf32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
func.func @row_bias(%b: tensor<32xf32>, %x: tensor<8x64xf32>, %wt: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %y = hl.addmm %b, %x, %wt : (tensor<32xf32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  func.return %y : tensor<8x32xf32>
}

// -----

// A full [M, N] addend.
// CHECK-LABEL: func.func @full_addend(
// CHECK-NEXT:    %y = hl.addmm %c, %x, %wt : (tensor<8x32xbf16>, tensor<8x64xbf16>, tensor<64x32xbf16>) -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %y : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "full_addend"
// GENERIC:         %y = "hl.addmm"(%c, %x, %wt) : (tensor<8x32xbf16>, tensor<8x64xbf16>, tensor<64x32xbf16>) -> tensor<8x32xbf16>
func.func @full_addend(%c: tensor<8x32xbf16>, %x: tensor<8x64xbf16>, %wt: tensor<64x32xbf16>) -> tensor<8x32xbf16> {
  %y = hl.addmm %c, %x, %wt : (tensor<8x32xbf16>, tensor<8x64xbf16>, tensor<64x32xbf16>) -> tensor<8x32xbf16>
  func.return %y : tensor<8x32xbf16>
}

// -----

// A column [M, 1] addend and a 0-d one both broadcast.
// CHECK-LABEL: func.func @broadcast_addends(
// CHECK-NEXT:    %y0 = hl.addmm %col, %x, %wt : (tensor<8x1xf32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT:    %y1 = hl.addmm %s, %x, %wt : (tensor<f32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %y1 : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "broadcast_addends"
// GENERIC:         %y0 = "hl.addmm"(%col, %x, %wt) : (tensor<8x1xf32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
// GENERIC:         %y1 = "hl.addmm"(%s, %x, %wt) : (tensor<f32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
func.func @broadcast_addends(%col: tensor<8x1xf32>, %s: tensor<f32>, %x: tensor<8x64xf32>, %wt: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %y0 = hl.addmm %col, %x, %wt : (tensor<8x1xf32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %y1 = hl.addmm %s, %x, %wt : (tensor<f32>, tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  func.return %y1 : tensor<8x32xf32>
}
