// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// Misspelled cublaslt enum attributes: parse errors that list the valid values, located
// at the attribute. A property of the wrong enum kind is a verifier error on the op.

// An unknown data type: the parser lists the valid spellings.
func.func @unknown_dtype() attributes {
    // expected-error @+1 {{Expected `f16`, `bf16`, `f32`, `f64`, `f8E4M3FN`, `f8E5M2`, `i8`, or `i32`.}}
    x = #cublaslt<dtype f8E4M3>} {
  func.return
}

// -----

// Compute types are lower case.
func.func @unknown_compute() attributes {
    // expected-error @+1 {{Expected `compute_16f`, `compute_16f_pedantic`, `compute_32f`}}
    x = #cublaslt<compute COMPUTE_32F>} {
  func.return
}

// -----

// There is no RELU_GELU epilogue.
func.func @unknown_epilogue() attributes {
    // expected-error @+1 {{Expected `default`, `relu`, `relu_aux`, `bias`, `relu_bias`}}
    x = #cublaslt<epilogue relu_gelu>} {
  func.return
}

// -----

// lumir has COL and ROW orders only (no COL32 and friends).
func.func @unknown_order() attributes {
    // expected-error @+1 {{Expected `col`, or `row`.}}
    x = #cublaslt<order col32>} {
  func.return
}

// -----

// A transpose is n or t (no conjugate transpose: lumir has no complex types).
func.func @unknown_trans() attributes {
    // expected-error @+1 {{Expected `n`, or `t`.}}
    x = #cublaslt<trans c>} {
  func.return
}

// -----

// An unknown mnemonic is an unregistered attribute.
func.func @unknown_mnemonic() attributes {
    // expected-error @+1 {{'cublaslt.layout' is not registered}}
    x = #cublaslt<layout col>} {
  func.return
}

// -----

// A property holds its own enum: an order is not a transpose (generic form, so the
// property constraint is checked, with its location, by the verifier).
func.func @order_as_trans(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{#cublaslt<order col> should be of base attribute cublaslt.trans}}
  %d = "cublaslt.matmul"(%w, %x) <{
      transa = #cublaslt<order col>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>,
      operandSegmentSizes = array<i32: 1, 1, 0, 0>
  }> : (tensor<64x32xbf16>, tensor<8x64xbf16>) -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// A data type is not a compute type.
func.func @dtype_as_compute(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{#cublaslt<dtype f32> should be of base attribute cublaslt.compute}}
  %d = "cublaslt.matmul"(%w, %x) <{
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<dtype f32>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>,
      operandSegmentSizes = array<i32: 1, 1, 0, 0>
  }> : (tensor<64x32xbf16>, tensor<8x64xbf16>) -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// The epilogue is the enum attribute, not a string.
func.func @string_epilogue(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{"relu" should be of base attribute cublaslt.epilogue}}
  %d = "cublaslt.matmul"(%w, %x) <{
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = "relu",
      operandSegmentSizes = array<i32: 1, 1, 0, 0>
  }> : (tensor<64x32xbf16>, tensor<8x64xbf16>) -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// The generic form of a legal call, for contrast: no error.
func.func @legal(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  %d = "cublaslt.matmul"(%w, %x) <{
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>,
      operandSegmentSizes = array<i32: 1, 1, 0, 0>
  }> : (tensor<64x32xbf16>, tensor<8x64xbf16>) -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
