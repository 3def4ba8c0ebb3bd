// RUN: not lumir-opt %s -p 'cublaslt-fuse{unsafe-test-rules=misspelled-constant}' 2>&1 | filecheck %s
// RUN: not lumir-opt %s -p 'cublaslt-fuse{unsafe-test-rules=misspelled-constant}' 2>&1 | filecheck %s --check-prefix=NOIR

// Every cuBLASLt constant in a rule is a constructor of its own sort (generated from
// lumir/cublaslt_enums.py), so a misspelled one does not load: the error names the rule
// file, line and column, and the closest constructor. With strings the rule would have
// loaded and silently never matched. The pass stops before rewriting anything.
// CHECK: lumir/egraph_bridge/rules/misspelled-constant.egg:10:43: error: cublaslt-fuse: rule file does not load: Unbound function EpiDefualt; did you mean (EpiDefault), of sort Epilogue?
// NOIR-NOT: func.func

func.func @relu_of_call(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
    } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %y = hl.relu %mm : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
