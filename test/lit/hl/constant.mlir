// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// hl.constant: a dense tensor literal; `value` is a builtin dense elements attribute of
// exactly the result type (a splat for scalars and fills).

// A 0-d f32 scalar.
// CHECK-LABEL: func.func @scalar(
// CHECK-NEXT:    %c = hl.constant {value = dense<5.000000e-01> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    func.return %c : tensor<f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "scalar"
// GENERIC:         %c = "hl.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
func.func @scalar() -> tensor<f32> {
  %c = hl.constant {value = dense<5.000000e-01> : tensor<f32>} : tensor<f32>
  func.return %c : tensor<f32>
}

// -----

// A splat fill and a literal matrix in bf16.
// CHECK-LABEL: func.func @bf16(
// CHECK-NEXT:    %ones = hl.constant {value = dense<1.000000e+00> : tensor<4x8xbf16>} : tensor<4x8xbf16>
// CHECK-NEXT:    %m = hl.constant {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>} : tensor<2x2xbf16>
// CHECK-NEXT:    func.return %m : tensor<2x2xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "bf16"
// GENERIC:         %ones = "hl.constant"() <{value = dense<1.000000e+00> : tensor<4x8xbf16>}> : () -> tensor<4x8xbf16>
// GENERIC:         %m = "hl.constant"() <{value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>}> : () -> tensor<2x2xbf16>
func.func @bf16() -> tensor<2x2xbf16> {
  %ones = hl.constant {value = dense<1.000000e+00> : tensor<4x8xbf16>} : tensor<4x8xbf16>
  %m = hl.constant {value = dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>} : tensor<2x2xbf16>
  func.return %m : tensor<2x2xbf16>
}

// -----

// Integer and boolean literals.
// CHECK-LABEL: func.func @integers(
// CHECK-NEXT:    %pos = hl.constant {value = dense<[0, 1, 2]> : tensor<3xi64>} : tensor<3xi64>
// CHECK-NEXT:    %mask = hl.constant {value = dense<[true, false, true]> : tensor<3xi1>} : tensor<3xi1>
// CHECK-NEXT:    func.return %mask : tensor<3xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "integers"
// GENERIC:         %pos = "hl.constant"() <{value = dense<[0, 1, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
// GENERIC:         %mask = "hl.constant"() <{value = dense<[true, false, true]> : tensor<3xi1>}> : () -> tensor<3xi1>
func.func @integers() -> tensor<3xi1> {
  %pos = hl.constant {value = dense<[0, 1, 2]> : tensor<3xi64>} : tensor<3xi64>
  %mask = hl.constant {value = dense<[true, false, true]> : tensor<3xi1>} : tensor<3xi1>
  func.return %mask : tensor<3xi1>
}
