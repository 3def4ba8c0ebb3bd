// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// Every data type and every compute type in a legal cublaslt.matmul: one call per row
// family of cuBLASLt's supported-type table (lumir/verifier/type_table.py). The shapes
// are the conventions.md Y[8, 32] = X[8, 64] @ W[64, 32] in the column-major view.

// compute_16f with an f16 scale: the all-f16 row.
// CHECK-LABEL: func.func @f16_compute_16f(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_16f>, scale_type = #cublaslt<dtype f16>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "f16_compute_16f"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f16_compute_16f(%w: tensor<64x32xf16>, %x: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>,
      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_16f>, scale_type = #cublaslt<dtype f16>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
  func.return %d : tensor<8x32xf16>
}

// -----

// compute_16f_pedantic (no reduced-precision shortcuts).
// CHECK-LABEL: func.func @f16_compute_16f_pedantic(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_16f_pedantic>, scale_type = #cublaslt<dtype f16>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "f16_compute_16f_pedantic"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f16_compute_16f_pedantic(%w: tensor<64x32xf16>, %x: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>,
      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_16f_pedantic>, scale_type = #cublaslt<dtype f16>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
  func.return %d : tensor<8x32xf16>
}

// -----

// f16 inputs accumulated in f32.
// CHECK-LABEL: func.func @f16_compute_32f(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "f16_compute_32f"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f16_compute_32f(%w: tensor<64x32xf16>, %x: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>,
      c_dtype = #cublaslt<dtype f16>, d_dtype = #cublaslt<dtype f16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf16>
  func.return %d : tensor<8x32xf16>
}

// -----

// f16 A/B with an f32 C/D.
// CHECK-LABEL: func.func @f16_into_f32(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "f16_into_f32"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f16_into_f32(%w: tensor<64x32xf16>, %x: tensor<8x64xf16>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f16>, b_dtype = #cublaslt<dtype f16>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf16>, tensor<8x64xf16> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// bf16 with compute_32f_pedantic.
// CHECK-LABEL: func.func @bf16_compute_32f_pedantic(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f_pedantic>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "bf16_compute_32f_pedantic"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @bf16_compute_32f_pedantic(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f_pedantic>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// All f32.
// CHECK-LABEL: func.func @f32_compute_32f(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "f32_compute_32f"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f32_compute_32f(%w: tensor<64x32xf32>, %x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// f32 through f16 tensor cores.
// CHECK-LABEL: func.func @f32_fast_16f(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f_fast_16f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "f32_fast_16f"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f32_fast_16f(%w: tensor<64x32xf32>, %x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f_fast_16f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// f32 through bf16 tensor cores.
// CHECK-LABEL: func.func @f32_fast_16bf(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f_fast_16bf>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "f32_fast_16bf"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f32_fast_16bf(%w: tensor<64x32xf32>, %x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f_fast_16bf>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// f32 through TF32 tensor cores.
// CHECK-LABEL: func.func @f32_fast_tf32(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f_fast_tf32>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "f32_fast_tf32"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f32_fast_tf32(%w: tensor<64x32xf32>, %x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f_fast_tf32>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf32>, tensor<8x64xf32> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}

// -----

// f64 with an f64 scale.
// CHECK-LABEL: func.func @f64_compute_64f(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f64>, b_dtype = #cublaslt<dtype f64>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f64>, d_dtype = #cublaslt<dtype f64>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_64f>, scale_type = #cublaslt<dtype f64>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf64>, tensor<8x64xf64> -> tensor<8x32xf64>
// CHECK-NEXT:    func.return %d : tensor<8x32xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "f64_compute_64f"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f64_compute_64f(%w: tensor<64x32xf64>, %x: tensor<8x64xf64>) -> tensor<8x32xf64> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f64>, b_dtype = #cublaslt<dtype f64>,
      c_dtype = #cublaslt<dtype f64>, d_dtype = #cublaslt<dtype f64>,
      compute_type = #cublaslt<compute compute_64f>, scale_type = #cublaslt<dtype f64>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf64>, tensor<8x64xf64> -> tensor<8x32xf64>
  func.return %d : tensor<8x32xf64>
}

// -----

// f64, pedantic.
// CHECK-LABEL: func.func @f64_compute_64f_pedantic(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f64>, b_dtype = #cublaslt<dtype f64>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f64>, d_dtype = #cublaslt<dtype f64>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_64f_pedantic>, scale_type = #cublaslt<dtype f64>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf64>, tensor<8x64xf64> -> tensor<8x32xf64>
// CHECK-NEXT:    func.return %d : tensor<8x32xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "f64_compute_64f_pedantic"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @f64_compute_64f_pedantic(%w: tensor<64x32xf64>, %x: tensor<8x64xf64>) -> tensor<8x32xf64> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f64>, b_dtype = #cublaslt<dtype f64>,
      c_dtype = #cublaslt<dtype f64>, d_dtype = #cublaslt<dtype f64>,
      compute_type = #cublaslt<compute compute_64f_pedantic>, scale_type = #cublaslt<dtype f64>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf64>, tensor<8x64xf64> -> tensor<8x32xf64>
  func.return %d : tensor<8x32xf64>
}

// -----

// i8 A/B into i32 C/D with an i32 scale (DEFAULT epilogue only).
// CHECK-LABEL: func.func @i8_compute_32i(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype i8>, b_dtype = #cublaslt<dtype i8>
// CHECK-SAME:      c_dtype = #cublaslt<dtype i32>, d_dtype = #cublaslt<dtype i32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32i>, scale_type = #cublaslt<dtype i32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xi8>, tensor<8x64xi8> -> tensor<8x32xi32>
// CHECK-NEXT:    func.return %d : tensor<8x32xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "i8_compute_32i"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @i8_compute_32i(%w: tensor<64x32xi8>, %x: tensor<8x64xi8>) -> tensor<8x32xi32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype i8>, b_dtype = #cublaslt<dtype i8>,
      c_dtype = #cublaslt<dtype i32>, d_dtype = #cublaslt<dtype i32>,
      compute_type = #cublaslt<compute compute_32i>, scale_type = #cublaslt<dtype i32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xi8>, tensor<8x64xi8> -> tensor<8x32xi32>
  func.return %d : tensor<8x32xi32>
}

// -----

// The same, pedantic.
// CHECK-LABEL: func.func @i8_compute_32i_pedantic(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype i8>, b_dtype = #cublaslt<dtype i8>
// CHECK-SAME:      c_dtype = #cublaslt<dtype i32>, d_dtype = #cublaslt<dtype i32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32i_pedantic>, scale_type = #cublaslt<dtype i32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xi8>, tensor<8x64xi8> -> tensor<8x32xi32>
// CHECK-NEXT:    func.return %d : tensor<8x32xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "i8_compute_32i_pedantic"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @i8_compute_32i_pedantic(%w: tensor<64x32xi8>, %x: tensor<8x64xi8>) -> tensor<8x32xi32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype i8>, b_dtype = #cublaslt<dtype i8>,
      c_dtype = #cublaslt<dtype i32>, d_dtype = #cublaslt<dtype i32>,
      compute_type = #cublaslt<compute compute_32i_pedantic>, scale_type = #cublaslt<dtype i32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xi8>, tensor<8x64xi8> -> tensor<8x32xi32>
  func.return %d : tensor<8x32xi32>
}

// -----

// FP8: e4m3 x e4m3 into bf16 (16-byte lds and k % 16 == 0, V10).
// CHECK-LABEL: func.func @fp8_e4m3_into_bf16(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf8E4M3FN>, tensor<8x64xf8E4M3FN> -> tensor<8x32xbf16>
// CHECK-NEXT:    func.return %d : tensor<8x32xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "fp8_e4m3_into_bf16"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @fp8_e4m3_into_bf16(%w: tensor<64x32xf8E4M3FN>, %x: tensor<8x64xf8E4M3FN>) -> tensor<8x32xbf16> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf8E4M3FN>, tensor<8x64xf8E4M3FN> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// FP8: e4m3 x e5m2 into an e5m2 D; C's dtype (bf16) differs from D's.
// CHECK-LABEL: func.func @fp8_mixed_into_e5m2(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E5M2>
// CHECK-SAME:      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype f8E5M2>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf8E4M3FN>, tensor<8x64xf8E5M2> -> tensor<8x32xf8E5M2>
// CHECK-NEXT:    func.return %d : tensor<8x32xf8E5M2>
// GENERIC-LABEL: "func.func"() <{sym_name = "fp8_mixed_into_e5m2"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @fp8_mixed_into_e5m2(%w: tensor<64x32xf8E4M3FN>, %x: tensor<8x64xf8E5M2>) -> tensor<8x32xf8E5M2> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E4M3FN>, b_dtype = #cublaslt<dtype f8E5M2>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype f8E5M2>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf8E4M3FN>, tensor<8x64xf8E5M2> -> tensor<8x32xf8E5M2>
  func.return %d : tensor<8x32xf8E5M2>
}

// -----

// FP8: e5m2 x e4m3 into f32.
// CHECK-LABEL: func.func @fp8_e5m2_e4m3_into_f32(
// CHECK-NEXT:    %d = cublaslt.matmul %w, %x {
// CHECK-SAME:      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>
// CHECK-SAME:      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>
// CHECK-SAME:      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 64 : i64, lda = 32 : i64, ldb = 64 : i64, ldc = 32 : i64, ldd = 32 : i64
// CHECK-SAME:      batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64
// CHECK-SAME:      a_dtype = #cublaslt<dtype f8E5M2>, b_dtype = #cublaslt<dtype f8E4M3FN>
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>
// CHECK-SAME:      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>
// CHECK-SAME:      alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>
// CHECK-SAME:    } : tensor<64x32xf8E5M2>, tensor<8x64xf8E4M3FN> -> tensor<8x32xf32>
// CHECK-NEXT:    func.return %d : tensor<8x32xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "fp8_e5m2_e4m3_into_f32"
// GENERIC:         %d = "cublaslt.matmul"(%w, %x) <{
// GENERIC-SAME:    epilogue = #cublaslt<epilogue default>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
func.func @fp8_e5m2_e4m3_into_f32(%w: tensor<64x32xf8E5M2>, %x: tensor<8x64xf8E4M3FN>) -> tensor<8x32xf32> {
  %d = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype f8E5M2>, b_dtype = #cublaslt<dtype f8E4M3FN>,
      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<64x32xf8E5M2>, tensor<8x64xf8E4M3FN> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}
