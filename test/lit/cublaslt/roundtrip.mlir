// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt.matmul round trips in custom and generic form. Every case is a legal call
// (it passes V1-V10 at parse time), written as docs/conventions.md lays out row-major
// tensors in cuBLASLt's column-major view. The custom form prints the operands (with
// `c(...)` and `bias(...)` when present) and every descriptor field in the attribute
// dictionary; the generic form keeps them as properties with operandSegmentSizes.

// Y[8, 32] = X[8, 64] @ W[64, 32], the conventions.md example: A = W, B = X, m = N,
// n = M, k = K, every operand in COL order, no C (beta = 0), DEFAULT epilogue.
// CHECK-LABEL: func.func @plain(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "plain"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @plain(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
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

// -----

// A Linear layer without bias: the weight W[32, 64] is A, read transposed (transa = t,
// lda = K = 64).
// CHECK-LABEL: func.func @linear(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "linear"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @linear(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// A residual joins C: beta = 1, C has D's type, shape and order; alpha scales the product.
// CHECK-LABEL: func.func @residual_c(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 5.000000e-01 : f64, beta = 1.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "residual_c"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %r) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
func.func @residual_c(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 0.5, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// A Linear bias through the BIAS epilogue: a 1-D bias of length m = 32 (rows of D in the
// column-major view).
// CHECK-LABEL: func.func @bias(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bias>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "bias"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %b) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue bias>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
func.func @bias(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// C and bias together: relu(X W^T + b + R) as one call; the operand order is A, B, C, bias.
// CHECK-LABEL: func.func @residual_and_bias(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) bias(%b : tensor<32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64, epilogue = #cublaslt<epilogue relu_bias>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "residual_and_bias"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %r, %b) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue relu_bias>, operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
func.func @residual_and_bias(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) bias(%b : tensor<32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue relu_bias>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Strided batch: X[4, 8, 64] @ W[4, 64, 32]; every operand 3-D with stride R * C, and
// stride_c is D's because there is no C.
// CHECK-LABEL: func.func @batched(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 4 : i64, stride_a = 2048 : i64, stride_b = 512 : i64, stride_c = 256 : i64, stride_d = 256 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<4x64x32xf32>, tensor<4x8x64xf32> -> tensor<4x8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<4x8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "batched"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @batched(%w: tensor<4x64x32xf32>, %x: tensor<4x8x64xf32>) -> tensor<4x8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 4, stride_a = 2048, stride_b = 512, stride_c = 256, stride_d = 256,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<4x64x32xf32>, tensor<4x8x64xf32> -> tensor<4x8x32xf32>
  func.return %d : tensor<4x8x32xf32>
}

// -----

// A batch against one shared weight: the 2-D W has stride 0; batched C joins with its own
// stride.
// CHECK-LABEL: func.func @batched_shared_weight(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x c(%r : tensor<4x8x32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 4 : i64, stride_a = 0 : i64, stride_b = 512 : i64, stride_c = 256 : i64, stride_d = 256 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<4x8x64xbf16> -> tensor<4x8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<4x8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "batched_shared_weight"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %r) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
func.func @batched_shared_weight(%w: tensor<32x64xbf16>, %x: tensor<4x8x64xbf16>, %r: tensor<4x8x32xbf16>) -> tensor<4x8x32xbf16> {
  %d = cublaslt.matmul %w, %x c(%r : tensor<4x8x32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 4, stride_a = 0, stride_b = 512, stride_c = 256, stride_d = 256,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<4x8x64xbf16> -> tensor<4x8x32xbf16>
  func.return %d : tensor<4x8x32xbf16>
}

// -----

// The row-major view: every operand in ROW order, A = X [M, K], B = W [K, N], m = M.
// CHECK-LABEL: func.func @row_order(
// CHECK-NEXT:    %d = cublaslt.matmul %x, %w {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>
// CHECK-SAME:      order_c = #cublaslt<order row>, order_d = #cublaslt<order row>
// CHECK-SAME:      m = 8 : i64, n = 32 : i64, k = 64 : i64, lda = 64 : i64, ldb = 32 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "row_order"
// GENERIC:         %d = "cublaslt.matmul"(%x, %w) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @row_order(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>) -> tensor<8x32xf16> {
  %d = cublaslt.matmul %x, %w {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order row>, order_b = #cublaslt<order row>,
      order_c = #cublaslt<order row>, order_d = #cublaslt<order row>,
      m = 8, n = 32, k = 64, lda = 64, ldb = 32, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>,
      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf16>
  func.return %d : tensor<8x32xf16>
}

// -----

// The cast-to-F32 fusion done right: bf16 A and B, an f32 C (already cast) and an f32 D.
// CHECK-LABEL: func.func @bf16_into_f32(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xf32>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "bf16_into_f32"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %r) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
func.func @bf16_into_f32(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xf32>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// Two calls in one function: the second consumes the first (an MLP's up and down
// projections), and a negative, fractional alpha prints in full.
// CHECK-LABEL: func.func @chained(
// CHECK-NEXT:    %h = cublaslt.matmul %w1, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 128 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 128 : i64, ldd = 128 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue gelu>
// CHECK-SAME:    } : tensor<128x64xbf16>, tensor<8x64xbf16> -> tensor<8x128xbf16>
// CHECK-NEXT:    %d = cublaslt.matmul %w2, %h {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 64 : i64, n = 8 : i64, k = 128 : i64, lda = 128 : i64, ldb = 128 : i64, ldc = 64 : i64, ldd = 64 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = -1.250000e-01 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x128xbf16>, tensor<8x128xbf16> -> tensor<8x64xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x64xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "chained"
// GENERIC:         %h = "cublaslt.matmul"(%w1, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue gelu>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
// GENERIC:         %d = "cublaslt.matmul"(%w2, %h) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @chained(%w1: tensor<128x64xbf16>, %w2: tensor<64x128xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x64xbf16> {
  %h = cublaslt.matmul %w1, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 128, n = 8, k = 64, lda = 64, ldb = 64, ldc = 128, ldd = 128,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu>
  } : tensor<128x64xbf16>, tensor<8x64xbf16> -> tensor<8x128xbf16>
  %d = cublaslt.matmul %w2, %h {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 64, n = 8, k = 128, lda = 128, ldb = 128, ldc = 64, ldd = 64,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = -0.125, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x128xbf16>, tensor<8x128xbf16> -> tensor<8x64xbf16>
  func.return %d : tensor<8x64xbf16>
}
