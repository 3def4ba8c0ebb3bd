// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.constant verifier: the literal fills the buffer exactly.

func.func @shape_differs() {
  // expected-error @+1 {{'cublaslt_rt.constant' value of type tensor<4xf32> does not fill a buffer of type memref<8xf32>; expected a value of type tensor<8xf32>}}
  %c = cublaslt_rt.constant {value = dense<1.0> : tensor<4xf32>} : memref<8xf32>
  func.return
}

// -----

func.func @element_differs() {
  // expected-error @+1 {{'cublaslt_rt.constant' value of type tensor<4xf32> does not fill a buffer of type memref<4xbf16>}}
  %c = cublaslt_rt.constant {value = dense<1.0> : tensor<4xf32>} : memref<4xbf16>
  func.return
}

// -----

func.func @dynamic() {
  // expected-error @+1 {{'cublaslt_rt.constant' result: buffer memref<?xf32> has a dynamic dimension}}
  %c = cublaslt_rt.constant {value = dense<1.0> : tensor<4xf32>} : memref<?xf32>
  func.return
}
