// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.gelu: aten.gelu. `approximate` is "none" (the exact erf form) or "tanh" (the form
// cuBLASLt's GELU epilogues compute; only that one may fuse into a cublaslt.matmul).
// The property is required and printed in the attribute dictionary.

// The exact form.
// CHECK-LABEL: func.func @exact(
// CHECK-NEXT:    %r = hl.gelu %x {approximate = "none"} : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "exact"
// GENERIC:         %r = "hl.gelu"(%x) <{approximate = "none"}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @exact(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hl.gelu %x {approximate = "none"} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// The tanh approximation, on a bf16 activation.
// CHECK-LABEL: func.func @tanh(
// CHECK-NEXT:    %r = hl.gelu %x {approximate = "tanh"} : tensor<2x6x16xbf16> -> tensor<2x6x16xbf16>
// CHECK-NEXT:    func.return %r : tensor<2x6x16xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "tanh"
// GENERIC:         %r = "hl.gelu"(%x) <{approximate = "tanh"}> : (tensor<2x6x16xbf16>) -> tensor<2x6x16xbf16>
func.func @tanh(%x: tensor<2x6x16xbf16>) -> tensor<2x6x16xbf16> {
  %r = hl.gelu %x {approximate = "tanh"} : tensor<2x6x16xbf16> -> tensor<2x6x16xbf16>
  func.return %r : tensor<2x6x16xbf16>
}
