// RUN: lumir-opt %s -p 'cublaslt-fuse{unsafe-test-rules=unguarded-cast report-rejected=true}' --verify-diagnostics
// RUN: not lumir-opt %s -p 'cublaslt-fuse{report-rejected=true}' --verify-diagnostics 2>&1 | filecheck %s --check-prefix=MISSING

// Remarks travel through lumir.diagnostics like errors do, so --verify-diagnostics
// matches them against expected-remark. With the unguarded cast rule loaded, the
// extractor refuses the call it proposes and says so at the matmul; the guarded rules
// alone propose nothing illegal, so the same expectation then fails.
// MISSING: remarks.mlir:[[# @LINE + 15]]: error: expected remark "rejected a cublaslt.matmul proposed by rule 'unguarded-cast': V4" was not produced
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
  // The remark is located at the cast the refused call would have replaced: it reads
  // the bf16 residual as an f32 C (V4, the motivating bug).
  // expected-remark @+1 {{rejected a cublaslt.matmul proposed by rule 'unguarded-cast': V4}}
  %f = hl.cast %h : tensor<6x2048xbf16> -> tensor<6x2048xf32>
  func.return %f : tensor<6x2048xf32>
}
