// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt.matmul syntax and IRDL errors (the V1-V10 invariants are in verify-v*.mlir):
// the custom form's operand syntax, required properties, and in generic form the
// property kinds and operand segments.

// C is written `c(%value : type)`: the type is part of the syntax.
func.func @c_without_type(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{Expected ':'}}
  %d = cublaslt.matmul %w, %x c(%r) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// The optional operands come in a fixed order: c(...) before bias(...).
func.func @bias_before_c(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{Expected ':'}}
  %d = cublaslt.matmul %w, %x bias(%r : tensor<8x32xbf16>) c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// The type written in c(...) is the operand's type.
func.func @c_type_disagrees(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{operand is used with type tensor<8x32xf32>, but has been previously used or defined with type tensor<8x32xbf16>}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xf32>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Every descriptor field is required: there are no defaults.
func.func @missing_m(%w: tensor<32x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{property 'm' expected in operation 'cublaslt.matmul'}}
  %d = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      n = 8, k = 64, lda = 64, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<32x64xbf16>, tensor<8x64xbf16> -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Generic form: the operand segments must add up to the operands.
func.func @segments_disagree(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'}}
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
      operandSegmentSizes = array<i32: 1, 1, 1, 0>
  }> : (tensor<64x32xbf16>, tensor<8x64xbf16>) -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Generic form: m, n, k, leading dimensions and strides are integers.
func.func @float_m(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{3.200000e+01 : f64 should be of base attribute integer}}
  %d = "cublaslt.matmul"(%w, %x) <{
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32.0, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
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

// Generic form: alpha and beta are floats.
func.func @integer_alpha(%w: tensor<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{1 : i64 should be of base attribute float}}
  %d = "cublaslt.matmul"(%w, %x) <{
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>,
      order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 32, n = 8, k = 64, lda = 32, ldb = 64, ldc = 32, ldd = 32,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>,
      c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1, beta = 0.0, epilogue = #cublaslt<epilogue default>,
      operandSegmentSizes = array<i32: 1, 1, 0, 0>
  }> : (tensor<64x32xbf16>, tensor<8x64xbf16>) -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}

// -----

// Generic form: operands are tensors.
func.func @memref_operand(%w: memref<64x32xbf16>, %x: tensor<8x64xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+2 {{operand 'a' at position 0 does not verify}}
  // expected-error @+1 {{memref<64x32xbf16> should be of base attribute tensor}}
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
  }> : (memref<64x32xbf16>, tensor<8x64xbf16>) -> tensor<8x32xbf16>
  func.return %d : tensor<8x32xbf16>
}
