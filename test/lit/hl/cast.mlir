// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.cast: aten._to_copy / .to(dtype). Converts the element type, keeps the shape.

// bf16 to f32: the cast the cast-to-F32 fusion rule folds into a matmul.
// CHECK-LABEL: func.func @bf16_to_f32(
// CHECK-NEXT:    %r = hl.cast %x : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "bf16_to_f32"
// GENERIC:         %r = "hl.cast"(%x) : (tensor<4x8xbf16>) -> tensor<4x8xf32>
func.func @bf16_to_f32(%x: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  %r = hl.cast %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// f32 to f16, 3-D.
// CHECK-LABEL: func.func @f32_to_f16(
// CHECK-NEXT:    %r = hl.cast %x : tensor<2x4x8xf32> -> tensor<2x4x8xf16>
// CHECK-NEXT:    func.return %r : tensor<2x4x8xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "f32_to_f16"
// GENERIC:         %r = "hl.cast"(%x) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf16>
func.func @f32_to_f16(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf16> {
  %r = hl.cast %x : tensor<2x4x8xf32> -> tensor<2x4x8xf16>
  func.return %r : tensor<2x4x8xf16>
}

// -----

// Integer and boolean tensors: i64 positions to f32, a mask to f32.
// CHECK-LABEL: func.func @integers(
// CHECK-NEXT:    %pf = hl.cast %p : tensor<8xi64> -> tensor<8xf32>
// CHECK-NEXT:    %mf = hl.cast %m : tensor<8x8xi1> -> tensor<8x8xf32>
// CHECK-NEXT:    func.return %mf : tensor<8x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "integers"
// GENERIC:         %pf = "hl.cast"(%p) : (tensor<8xi64>) -> tensor<8xf32>
// GENERIC:         %mf = "hl.cast"(%m) : (tensor<8x8xi1>) -> tensor<8x8xf32>
func.func @integers(%p: tensor<8xi64>, %m: tensor<8x8xi1>) -> tensor<8x8xf32> {
  %pf = hl.cast %p : tensor<8xi64> -> tensor<8xf32>
  %mf = hl.cast %m : tensor<8x8xi1> -> tensor<8x8xf32>
  func.return %mf : tensor<8x8xf32>
}

// -----

// A cast to the same type is legal (hl-canonicalize folds it away).
// CHECK-LABEL: func.func @identity(
// CHECK-NEXT:    %r = hl.cast %x : tensor<f32> -> tensor<f32>
// CHECK-NEXT:    func.return %r : tensor<f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "identity"
// GENERIC:         %r = "hl.cast"(%x) : (tensor<f32>) -> tensor<f32>
func.func @identity(%x: tensor<f32>) -> tensor<f32> {
  %r = hl.cast %x : tensor<f32> -> tensor<f32>
  func.return %r : tensor<f32>
}
