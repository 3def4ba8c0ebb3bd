// RUN: lumir-opt %s -p lower-to-cublaslt-rt --split-input-file --verify-diagnostics

// What the pass cannot bufferize is reported, located, before anything is rewritten.

func.func @foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{lower-to-cublaslt-rt cannot lower 'arith.addf' to buffers}}
  %y = arith.addf %x, %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// expected-error @+2 {{argument 0: tensor<?x4xf32> has a dynamic dimension; specialise shapes before lowering}}
// expected-error @+1 {{result 0: tensor<?x4xf32> has a dynamic dimension}}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  func.return %x : tensor<?x4xf32>
}

// -----

// expected-error @+2 {{argument 1: lower-to-cublaslt-rt bufferizes tensors, not i64}}
// expected-error @+1 {{result 0: lower-to-cublaslt-rt bufferizes tensors, not i64}}
func.func @scalar(%x: tensor<4xf32>, %n: i64) -> i64 {
  func.return %n : i64
}
