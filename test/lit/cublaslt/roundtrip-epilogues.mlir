// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// Every cuBLASLt epilogue on a legal bf16 Linear call (the same call each time). The five
// forward BIAS epilogues take a 1-D bias operand of length m (V6); every other epilogue,
// including the gradient ones that write their bias gradient as an output, takes none.
// The AUX epilogues' auxiliary buffer is not an operand: lumir has no pass that emits
// them yet, but hand-written IR can name them and they round-trip.

// epilogue default: No post-processing.
// CHECK-LABEL: func.func @epilogue_default(
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
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_default"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_default(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
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

// epilogue relu: relu(alpha * A B).
// CHECK-LABEL: func.func @epilogue_relu(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue relu>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_relu"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue relu>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_relu(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue relu_aux: RELU that also keeps the ReLU mask for the backward pass (AUX).
// CHECK-LABEL: func.func @epilogue_relu_aux(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue relu_aux>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_relu_aux"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue relu_aux>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_relu_aux(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu_aux>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue bias: Adds a bias of length m.
// CHECK-LABEL: func.func @epilogue_bias(
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
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_bias"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %b) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue bias>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
func.func @epilogue_bias(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
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

// epilogue relu_bias: Bias, then relu; COL-order D (V7).
// CHECK-LABEL: func.func @epilogue_relu_bias(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue relu_bias>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_relu_bias"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %b) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue relu_bias>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
func.func @epilogue_relu_bias(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu_bias>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue relu_aux_bias: Bias, relu and the AUX mask; COL-order D (V7).
// CHECK-LABEL: func.func @epilogue_relu_aux_bias(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue relu_aux_bias>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_relu_aux_bias"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %b) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue relu_aux_bias>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
func.func @epilogue_relu_aux_bias(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue relu_aux_bias>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue drelu: Backward: multiplies by the ReLU gradient from an AUX buffer; no bias operand.
// CHECK-LABEL: func.func @epilogue_drelu(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue drelu>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_drelu"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue drelu>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_drelu(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue drelu>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue drelu_bgrad: Backward DRELU that also writes the bias gradient: no bias operand.
// CHECK-LABEL: func.func @epilogue_drelu_bgrad(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue drelu_bgrad>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_drelu_bgrad"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue drelu_bgrad>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_drelu_bgrad(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue drelu_bgrad>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue gelu: gelu (tanh form) of the product.
// CHECK-LABEL: func.func @epilogue_gelu(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue gelu>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_gelu"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue gelu>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_gelu(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue gelu_aux: GELU that keeps its input for the backward pass (AUX).
// CHECK-LABEL: func.func @epilogue_gelu_aux(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue gelu_aux>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_gelu_aux"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue gelu_aux>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_gelu_aux(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu_aux>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue gelu_bias: Bias, then gelu; COL-order D (V7).
// CHECK-LABEL: func.func @epilogue_gelu_bias(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue gelu_bias>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_gelu_bias"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %b) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue gelu_bias>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
func.func @epilogue_gelu_bias(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
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

// -----

// epilogue gelu_aux_bias: Bias, gelu and the AUX input; COL-order D (V7).
// CHECK-LABEL: func.func @epilogue_gelu_aux_bias(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue gelu_aux_bias>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_gelu_aux_bias"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x, %b) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue gelu_aux_bias>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
func.func @epilogue_gelu_aux_bias(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue gelu_aux_bias>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue dgelu: Backward: multiplies by the GELU gradient from an AUX buffer; no bias operand.
// CHECK-LABEL: func.func @epilogue_dgelu(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue dgelu>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_dgelu"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue dgelu>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_dgelu(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue dgelu>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue dgelu_bgrad: Backward DGELU that also writes the bias gradient: no bias operand.
// CHECK-LABEL: func.func @epilogue_dgelu_bgrad(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue dgelu_bgrad>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_dgelu_bgrad"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue dgelu_bgrad>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_dgelu_bgrad(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue dgelu_bgrad>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue bgrada: Bias gradient reduced over A: written as an output, no bias operand.
// CHECK-LABEL: func.func @epilogue_bgrada(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bgrada>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_bgrada"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue bgrada>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_bgrada(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bgrada>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// epilogue bgradb: Bias gradient reduced over B: written as an output, no bias operand.
// CHECK-LABEL: func.func @epilogue_bgradb(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue bgradb>
// CHECK-SAME:    } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue_bgradb"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue bgradb>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @epilogue_bgradb(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue bgradb>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
