// RUN: not lumir-opt %s --disable-verify -p cublaslt-verify 2>&1 | filecheck %s
// RUN: lumir-opt %s --disable-verify -p cublaslt-verify --verify-diagnostics
// RUN: not lumir-opt %s 2>&1 | filecheck %s

// cublaslt-verify reports every violation of every cublaslt.matmul in the module at
// once, each at its op, in IR order: three ops in two functions, five violations.
// Without --disable-verify, lumir-opt's own verifier reports the same list (third RUN),
// since the op verifier runs the same checks.

// CHECK-NOT: Traceback
// CHECK:      report-all.mlir:[[FIRST:[0-9]+]]:3: error: V4: beta = 1.0 reads C as f32, but operand C is tensor<8x32xbf16>
// CHECK-NEXT: report-all.mlir:[[SECOND:[0-9]+]]:3: error: V6: epilogue relu_bias adds a bias, but the op has no bias operand
// CHECK-NEXT: report-all.mlir:[[SECOND]]:3: error: V7: epilogue relu_bias is not supported with order_d = row
// CHECK-NEXT: report-all.mlir:[[THIRD:[0-9]+]]:3: error: V5: beta = 0.0 does not read C, but the op has operand C tensor<8x32xf32>
// CHECK-NEXT: report-all.mlir:[[THIRD]]:3: error: V9: c_dtype = bf16, but operand C is tensor<8x32xf32>
// CHECK-NOT: error

func.func @block(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>, %w2: tensor<64x32xbf16>, %x2: tensor<8x64xbf16>) -> (tensor<8x32xf32>, tensor<8x32xbf16>) {
  // expected-error @+1 {{V4: beta = 1.0 reads C as f32, but operand C is tensor<8x32xbf16>}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xf32>
  // expected-error @+2 {{V6: epilogue relu_bias adds a bias, but the op has no bias operand}}
  // expected-error @+1 {{V7: epilogue relu_bias is not supported with order_d = row}}
  %e = cublaslt.matmul %x2, %w2 {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>,
      order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
      m = 8, n = 32, k = 64, lda = 64, ldb = 32, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu_bias>
  } : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  func.return %d, %e : tensor<8x32xf32>, tensor<8x32xbf16>
}

func.func @legal_between(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

func.func @other(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xf32>) -> tensor<8x32xbf16> {
  // expected-error @+2 {{V5: beta = 0.0 does not read C, but the op has operand C tensor<8x32xf32>}}
  // expected-error @+1 {{V9: c_dtype = bf16, but operand C is tensor<8x32xf32>}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xf32>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
