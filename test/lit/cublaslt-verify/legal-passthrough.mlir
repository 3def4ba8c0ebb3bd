// RUN: lumir-opt %s -p cublaslt-verify | filecheck %s
// RUN: lumir-opt %s --disable-verify -p cublaslt-verify | filecheck %s

// Legal IR passes through cublaslt-verify unchanged: a Linear layer with a bias and GELU,
// and a residual joined through C.

// CHECK-LABEL: func.func @mlp_up
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {{.*}}epilogue = #cublaslt<epilogue gelu_bias>{{.*}} : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
func.func @mlp_up(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %bias: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%bias : tensor<32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu_bias>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// CHECK-LABEL: func.func @residual
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {{.*}}beta = 1.000000e+00 : f64{{.*}} : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
func.func @residual(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
