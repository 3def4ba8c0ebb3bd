// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s

// Non-finite dense constants (the -inf of attention masks) survive a print/parse round
// trip: xDSL prints them as MLIR does, as hex bit patterns (`0xff800000` is f32 -inf), and
// lumir's parser reads hex elements of a float tensor back as bit patterns.

// CHECK-LABEL: func.func @neg_inf(
// CHECK-NEXT:    %f = hl.constant {value = dense<0xff800000> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    %b = hl.constant {value = dense<0xff80> : tensor<bf16>} : tensor<bf16>
// CHECK-NEXT:    func.return %b : tensor<bf16>
func.func @neg_inf() -> tensor<bf16> {
  %f = hl.constant {value = dense<0xff800000> : tensor<f32>} : tensor<f32>
  %b = hl.constant {value = dense<0xff80> : tensor<bf16>} : tensor<bf16>
  func.return %b : tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @inf_and_nan(
// CHECK-NEXT:    %c = hl.constant {value = dense<[0x7f800000, 0x7fc00000, 1.000000e+00]> : tensor<3xf32>} : tensor<3xf32>
// CHECK-NEXT:    func.return %c : tensor<3xf32>
func.func @inf_and_nan() -> tensor<3xf32> {
  %c = hl.constant {value = dense<[0x7f800000, 0x7fc00000, 1.000000e+00]> : tensor<3xf32>} : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

// The 8-bit float types read a hex element as a bit pattern too: 0x7f is f8E4M3FN's NaN
// and 0x7c f8E5M2's +inf (they were read as the integers 127 and 124, rounded to 128).
// CHECK-LABEL: func.func @f8_bit_patterns(
// CHECK-NEXT:    %a = hl.constant {value = dense<[1.000000e+00, 0x7f]> : tensor<2xf8E4M3FN>} : tensor<2xf8E4M3FN>
// CHECK-NEXT:    %b = hl.constant {value = dense<0x7c> : tensor<f8E5M2>} : tensor<f8E5M2>
// CHECK-NEXT:    func.return %a, %b : tensor<2xf8E4M3FN>, tensor<f8E5M2>
func.func @f8_bit_patterns() -> (tensor<2xf8E4M3FN>, tensor<f8E5M2>) {
  %a = hl.constant {value = dense<[1.0, 0x7F]> : tensor<2xf8E4M3FN>} : tensor<2xf8E4M3FN>
  %b = hl.constant {value = dense<0x7C> : tensor<f8E5M2>} : tensor<f8E5M2>
  func.return %a, %b : tensor<2xf8E4M3FN>, tensor<f8E5M2>
}
