// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.fused_launch verifier: outputs are not also inputs (unless the body is
// elementwise: fused-launch.mlir), the body's arguments and yield match the buffers'
// tensor types, the body is a row program (no GEMM); and cublaslt_rt.launch does not run
// hl.fused or hl.yield as a kernel.

func.func @reads_what_it_writes(%x: memref<4x16xf32>) {
  // expected-error @+1 {{'cublaslt_rt.fused_launch' reads a buffer it writes, which only an elementwise body may do}}
  cublaslt_rt.fused_launch ins(%x : memref<4x16xf32>) outs(%x : memref<4x16xf32>) {
  ^bb0(%a: tensor<4x16xf32>):
    %n = hl.softmax %a {dim = -1 : i64} : tensor<4x16xf32> -> tensor<4x16xf32>
    hl.yield %n : tensor<4x16xf32>
  }
  func.return
}

// -----

func.func @wrong_yield_type(%x: memref<4x16xf32>, %y: memref<4x16xbf16>) {
  // expected-error @+1 {{'cublaslt_rt.fused_launch' hl.yield must yield values of the result types}}
  cublaslt_rt.fused_launch ins(%x : memref<4x16xf32>) outs(%y : memref<4x16xbf16>) {
  ^bb0(%a: tensor<4x16xf32>):
    %n = hl.neg %a : tensor<4x16xf32> -> tensor<4x16xf32>
    hl.yield %n : tensor<4x16xf32>
  }
  func.return
}

// -----

func.func @wrong_arg_type(%x: memref<4x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'cublaslt_rt.fused_launch' the body's arguments must have the operands' types}}
  cublaslt_rt.fused_launch ins(%x : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %n = hl.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %n : tensor<4x8xf32>
  }
  func.return
}

// -----

func.func @launch_of_fused(%a: memref<4xf32>, %r: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' kernel "hl.fused" is not an hl op that runs as a kernel}}
  cublaslt_rt.launch "hl.fused" ins(%a : memref<4xf32>) outs(%r : memref<4xf32>)
  func.return
}

// -----

func.func @gemm_in_body(%x: memref<4x16xf32>, %k: memref<16x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'cublaslt_rt.fused_launch' 'hl.matmul' cannot be part of a fused kernel}}
  cublaslt_rt.fused_launch ins(%x, %k : memref<4x16xf32>, memref<16x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<16x16xf32>):
    %m = hl.matmul %a, %b : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    hl.yield %m : tensor<4x16xf32>
  }
  func.return
}
