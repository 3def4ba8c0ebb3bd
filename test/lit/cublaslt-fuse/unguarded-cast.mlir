// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{unsafe-test-rules=unguarded-cast}' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{unsafe-test-rules=unguarded-cast report-rejected=true}' 2>&1 | filecheck %s --check-prefix=REPORT
// RUN: lumir-opt %s --split-input-file -p 'cublaslt-fuse{report-rejected=true}' 2>&1 | filecheck %s --check-prefix=GUARDED

// The motivating regression (docs/design.md): a cast-to-F32 rule that kept the old operand
// list put a bf16 residual under c_dtype = f32. `unsafe-test-rules=unguarded-cast` loads
// exactly that rule next to the guarded ones. The extractor verifies every candidate
// call, never selects the illegal one, and names the rule that proposed it; the output
// is the same, line for line, as without the unsafe rule (the first two RUN lines share
// one set of CHECK lines). The guarded rules alone propose nothing illegal.
// GUARDED-NOT: remark
// GUARDED: func.func @residual_then_cast(

// The Llama-3.2-1B layer of the bug: Y = X W^T + R, then cast to f32. The residual
// fuses into C; writing f32 would need C cast too (an extra kernel), so the cast stays.
// CHECK-LABEL: func.func @residual_then_cast(
// CHECK-NEXT:    %[[H:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x2048xbf16>) {{.*}}c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, {{.*}}beta = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[F:.*]] = hl.cast %[[H]] : tensor<6x2048xbf16> -> tensor<6x2048xf32>
// CHECK-NEXT:    func.return %[[F]]
// REPORT: unguarded-cast.mlir:[[# @LINE + 12]]:3: remark: cublaslt-fuse: rejected a cublaslt.matmul proposed by rule 'unguarded-cast': V4: beta = 1.0 reads C as f32, but operand C is tensor<6x2048xbf16>
func.func @residual_then_cast(%w: tensor<2048x2048xbf16>, %x: tensor<6x2048xbf16>, %r: tensor<6x2048xbf16>) -> tensor<6x2048xf32> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 2048, n = 6, k = 2048, lda = 2048, ldb = 2048, ldc = 2048, ldd = 2048,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<2048x2048xbf16>, tensor<6x2048xbf16> -> tensor<6x2048xbf16>
  %h = hl.add %mm, %r : (tensor<6x2048xbf16>, tensor<6x2048xbf16>) -> tensor<6x2048xbf16>
  %f = hl.cast %h : tensor<6x2048xbf16> -> tensor<6x2048xf32>
  func.return %f : tensor<6x2048xf32>
}

// -----

// The program also casts the residual to f32, so the guarded rule's C = cast(R) is free
// and its call is selected; the unguarded call (C = R as f32) is refused.
// CHECK-LABEL: func.func @residual_cast_shared(
// CHECK-NEXT:    %[[RF:.*]] = hl.cast %r : tensor<6x2048xbf16> -> tensor<6x2048xf32>
// CHECK-NEXT:    %[[F:.*]] = cublaslt.matmul %w, %x c(%[[RF]] : tensor<6x2048xf32>) {{.*}}c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, {{.*}}beta = 1.000000e+00 : f64}
// CHECK-NEXT:    func.return %[[F]], %[[RF]]
// REPORT: unguarded-cast.mlir:[[# @LINE + 11]]:3: remark: cublaslt-fuse: rejected a cublaslt.matmul proposed by rule 'unguarded-cast': V4: beta = 1.0 reads C as f32, but operand C is tensor<6x2048xbf16>
func.func @residual_cast_shared(%w: tensor<2048x2048xbf16>, %x: tensor<6x2048xbf16>, %r: tensor<6x2048xbf16>) -> (tensor<6x2048xf32>, tensor<6x2048xf32>) {
  %h = cublaslt.matmul %w, %x c(%r : tensor<6x2048xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 2048, n = 6, k = 2048, lda = 2048, ldb = 2048, ldc = 2048, ldd = 2048,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue default>
  } : tensor<2048x2048xbf16>, tensor<6x2048xbf16> -> tensor<6x2048xbf16>
  %f = hl.cast %h : tensor<6x2048xbf16> -> tensor<6x2048xf32>
  %rf = hl.cast %r : tensor<6x2048xbf16> -> tensor<6x2048xf32>
  func.return %f, %rf : tensor<6x2048xf32>, tensor<6x2048xf32>
}

// -----

// With a bias the unguarded call breaks V6 as well (a bf16 bias under an f32 D).
// CHECK-LABEL: func.func @residual_and_bias_then_cast(
// CHECK-NEXT:    %[[H:.*]] = cublaslt.matmul %w, %x c(%r : tensor<6x2048xbf16>) bias(%b : tensor<2048xbf16>) {{.*}}d_dtype = #cublaslt<dtype bf16>, {{.*}}epilogue = #cublaslt<epilogue bias>, alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[F:.*]] = hl.cast %[[H]] : tensor<6x2048xbf16> -> tensor<6x2048xf32>
// CHECK-NEXT:    func.return %[[F]]
// REPORT: unguarded-cast.mlir:[[# @LINE + 11]]:3: remark: cublaslt-fuse: rejected a cublaslt.matmul proposed by rule 'unguarded-cast': V4: beta = 1.0 reads C as f32, but operand C is tensor<6x2048xbf16>; V6: epilogue bias with C f32 and D f32 takes a bias of f32, but operand bias is tensor<2048xbf16>
func.func @residual_and_bias_then_cast(%w: tensor<2048x2048xbf16>, %x: tensor<6x2048xbf16>, %r: tensor<6x2048xbf16>, %b: tensor<2048xbf16>) -> tensor<6x2048xf32> {
  %h = cublaslt.matmul %w, %x c(%r : tensor<6x2048xbf16>) bias(%b : tensor<2048xbf16>) {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 2048, n = 6, k = 2048, lda = 2048, ldb = 2048, ldc = 2048, ldd = 2048,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 1.0, epilogue = #cublaslt<epilogue bias>
  } : tensor<2048x2048xbf16>, tensor<6x2048xbf16> -> tensor<6x2048xbf16>
  %f = hl.cast %h : tensor<6x2048xbf16> -> tensor<6x2048xf32>
  func.return %f : tensor<6x2048xf32>
}
