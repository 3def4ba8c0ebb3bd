// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.constant: a buffer filled with a literal at load time (what an
// hl.constant becomes). The literal's tensor type is the buffer's.

// CHECK-LABEL: func.func @literals()
// CHECK-NEXT:    %s = cublaslt_rt.constant {value = dense<5.000000e-01> : tensor<bf16>} : memref<bf16>
// CHECK-NEXT:    %v = cublaslt_rt.constant {value = dense<[1.000000e+00, -2.000000e+00, 3.500000e+00]> : tensor<3xf32>} : memref<3xf32>
// CHECK-NEXT:    %i = cublaslt_rt.constant {value = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : memref<2x2xi64>
// CHECK-NEXT:    %f = cublaslt_rt.constant {value = dense<-1.000000e+00> : tensor<4x8xf16>} : memref<4x8xf16>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "literals"
// GENERIC:         %s = "cublaslt_rt.constant"() <{value = dense<5.000000e-01> : tensor<bf16>}> : () -> memref<bf16>
func.func @literals() {
  %s = cublaslt_rt.constant {value = dense<0.5> : tensor<bf16>} : memref<bf16>
  %v = cublaslt_rt.constant {value = dense<[1.0, -2.0, 3.5]> : tensor<3xf32>} : memref<3xf32>
  %i = cublaslt_rt.constant {value = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : memref<2x2xi64>
  %f = cublaslt_rt.constant {value = dense<-1.0> : tensor<4x8xf16>} : memref<4x8xf16>
  func.return
}
