// RUN: not lumir-opt %s -p 'cublaslt-fuse{node-limit=6}' 2>&1 | filecheck %s --check-prefix=NODES
// RUN: not lumir-opt %s -p 'cublaslt-fuse{iteration-limit=1}' 2>&1 | filecheck %s --check-prefix=ITERATIONS
// RUN: lumir-opt %s -p 'cublaslt-fuse{node-limit=8 iteration-limit=2}' | filecheck %s

// Saturation limits, per block: the e-graph's Tensor e-nodes after each iteration, and
// the number of iterations. Hitting one is an error at the function that names the limit
// and its value; the module is not rewritten.
// This block starts with 6 e-nodes (3 leaves, the call, the add, the relu). Iteration 1
// runs the families in schedule order: bias adds the BIAS call, then relu the RELU_BIAS
// call (8 e-nodes); iteration 2 changes nothing, which is saturation.

// NODES: limits.mlir:[[# @LINE + 4]]:1: error: cublaslt-fuse: node-limit reached: the e-graph holds 8 e-nodes after iteration 1, more than node-limit=6
// NODES-NOT: cublaslt.matmul
// ITERATIONS: limits.mlir:[[# @LINE + 2]]:1: error: cublaslt-fuse: iteration-limit reached: the rules still changed the e-graph after iteration-limit=1 iterations (8 e-nodes)
// ITERATIONS-NOT: cublaslt.matmul
func.func @limited(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %z = hl.add %mm, %b : (tensor<6x16xbf16>, tensor<16xbf16>) -> tensor<6x16xbf16>
  %y = hl.relu %z : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}

// With node-limit=8 and iteration-limit=2 it saturates and fuses.
// CHECK-LABEL: func.func @limited(
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {{.*}}epilogue = #cublaslt<epilogue relu_bias>
// CHECK-NEXT:    func.return %[[Y]]
