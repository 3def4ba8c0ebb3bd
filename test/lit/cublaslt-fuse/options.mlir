// RUN: lumir-opt %s -p cublaslt-fuse | filecheck %s --check-prefix=ALL
// RUN: lumir-opt %s -p 'cublaslt-fuse{families=bias}' | filecheck %s --check-prefix=BIAS
// RUN: lumir-opt %s -p 'cublaslt-fuse{families=relu,bias disable=bias}' | filecheck %s --check-prefix=NONE
// RUN: lumir-opt %s -p 'cublaslt-fuse{dump-egglog=-}' 2>&1 | filecheck %s --check-prefix=DUMP
// RUN: lumir-opt %s -p 'cublaslt-fuse{families=bias dump-egglog="%t.egg"}' -o %t.out
// RUN: filecheck %s --check-prefix=FILE --input-file %t.egg
// RUN: not lumir-opt %s -p 'cublaslt-fuse{families=bias,bogus}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not lumir-opt %s -p 'cublaslt-fuse{unsafe-test-rules=bogus}' 2>&1 | filecheck %s --check-prefix=UNSAFE
// RUN: not lumir-opt %s -p 'cublaslt-fuse{iteration-limit=0}' 2>&1 | filecheck %s --check-prefix=ZERO

// Pass options: choose rule families, leave some out, dump the egglog program.

// All families: relu(AB + b) is one RELU_BIAS call.
// ALL-LABEL: func.func @bias_relu(
// ALL-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {{.*}}epilogue = #cublaslt<epilogue relu_bias>
// ALL-NEXT:    func.return %[[Y]]

// Only the bias family: the bias fuses, relu stays an op.
// BIAS-LABEL: func.func @bias_relu(
// BIAS-NEXT:    %[[Z:.*]] = cublaslt.matmul %w, %x bias(%b : tensor<16xbf16>) {{.*}}epilogue = #cublaslt<epilogue bias>
// BIAS-NEXT:    %[[Y:.*]] = hl.relu %[[Z]]
// BIAS-NEXT:    func.return %[[Y]]

// relu without bias cannot reach the call past the add: nothing fuses.
// NONE-LABEL: func.func @bias_relu(
// NONE-NEXT:    %[[MM:.*]] = cublaslt.matmul %w, %x {{.*}}epilogue = #cublaslt<epilogue default>
// NONE-NEXT:    %[[Z:.*]] = hl.add %[[MM]], %b
// NONE-NEXT:    hl.relu %[[Z]]

// The dump is the block's whole egglog program: rules, the encoded block (ops by
// position: a0 is block argument 0), and the schedule the pass runs.
// DUMP:      ; func @bias_relu
// DUMP:      (datatype Epilogue (EpiDefault) (EpiRelu)
// DUMP:      (ruleset canon)
// DUMP:      (ruleset bias)
// DUMP:      (ruleset relu)
// DUMP:      ; --- the block ---
// DUMP-NEXT: (set (value 0) (Leaf "a0"))
// DUMP-NEXT: (set (ty (value 0)) (Ty (BF16) "16x8" 2 8))
// DUMP:      (set (value 2) (Matmul (Call (Layout (TransT) (TransN) (OrderCol) (OrderCol) (OrderCol)) (Types (BF16) (BF16) (BF16) (BF16) (Compute32F) (F32)) 1.0 0.0 (EpiDefault) (value 0) (value 1) (NoTensor) (NoTensor))))
// DUMP:      (set (value 4) (Add (value 2) (value 3)))
// DUMP:      (set (value 5) (Relu (value 4)))
// DUMP:      (run-schedule (repeat 32 (saturate (run canon)) (run alpha) (run residual) (run bias) (run relu) (run gelu) (run cast) (run batched)))
// DUMP:      func.func @bias_relu(

// FILE:      (ruleset bias)
// FILE-NOT:  (ruleset relu)
// FILE:      (run-schedule (repeat 32 (saturate (run canon)) (run bias)))

// Bad options are refused when the pipeline is built, as whole-file errors
// (test/lit/lumir-opt/pass-options.mlir has the integer options).
// UNKNOWN: lumir-opt: error: invalid pass pipeline 'cublaslt-fuse{families=bias,bogus}': cublaslt-fuse: unknown rule family 'bogus' (known: alpha, residual, bias, relu, gelu, cast, batched)
// UNSAFE:  lumir-opt: error: invalid pass pipeline 'cublaslt-fuse{unsafe-test-rules=bogus}': cublaslt-fuse: unknown unsafe test rule 'bogus' (known: unguarded-cast, mistyped-merge, misspelled-constant)
// ZERO:    lumir-opt: error: invalid pass pipeline 'cublaslt-fuse{iteration-limit=0}': cublaslt-fuse: iteration-limit must be at least 1, got 0
func.func @bias_relu(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>, %b: tensor<16xbf16>) -> tensor<6x16xbf16> {
  %mm = cublaslt.matmul %w, %x {
      transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 8, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<16x8xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  %z = hl.add %mm, %b : (tensor<6x16xbf16>, tensor<16xbf16>) -> tensor<6x16xbf16>
  %y = hl.relu %z : tensor<6x16xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}
