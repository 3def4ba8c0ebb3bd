// RUN: lumir-opt %s --split-input-file -p cublaslt-fuse | filecheck %s
// RUN: lumir-opt %s --split-input-file -p hl-to-cublaslt,cublaslt-fuse | filecheck %s --check-prefix=PIPE
// RUN: not lumir-opt %s --split-input-file -p 'cublaslt-fuse{disable=transpose}' 2>&1 | filecheck %s --check-prefix=RETIRED
// RUN: not lumir-opt %s --split-input-file -p 'cublaslt-fuse{families=transpose}' 2>&1 | filecheck %s --check-prefix=RETIRED

// Operand transposes have one owner: hl-to-cublaslt reads a last-two-dims hl.transpose
// through transa/transb (test/lit/hl-to-cublaslt/transposed.mlir). cublaslt-fuse has no
// transpose rule, because no call it builds reads a transpose; the family name that
// used to exist is an error that says who folds transposes now (once, however many
// chunks the input has).
// RETIRED: error: invalid pass pipeline 'cublaslt-fuse{{.*}}transpose}': cublaslt-fuse: rule family 'transpose' no longer exists: hl-to-cublaslt folds operand transposes into transa/transb (known: alpha, residual, bias, relu, gelu, cast, batched)
// RETIRED-NOT: error

// A call written by hand over a transpose is left as it is: folding it is not this
// pass's job.
// CHECK-LABEL: func.func @hand_written_call_over_transpose
// CHECK-NEXT:    %[[WT:.*]] = hl.transpose %w
// CHECK-NEXT:    %[[Y:.*]] = cublaslt.matmul %[[WT]], %x {{.*}}transa = #cublaslt<trans n>
// CHECK-NEXT:    func.return %[[Y]]
// PIPE-LABEL: func.func @hand_written_call_over_transpose
// PIPE-NEXT:    hl.transpose %w
func.func @hand_written_call_over_transpose(%w: tensor<16x8xbf16>, %x: tensor<6x8xbf16>) -> tensor<6x16xbf16> {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xbf16> -> tensor<8x16xbf16>
  %y = cublaslt.matmul %wt, %x {
      transa = #cublaslt<trans n>, transb = #cublaslt<trans n>,
      order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>,
      m = 16, n = 6, k = 8, lda = 16, ldb = 8, ldc = 16, ldd = 16,
      batch_count = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0,
      a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>,
      compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>,
      alpha = 1.0, beta = 0.0, epilogue = #cublaslt<epilogue default>
  } : tensor<8x16xbf16>, tensor<6x8xbf16> -> tensor<6x16xbf16>
  func.return %y : tensor<6x16xbf16>
}

// -----

// The same product from hl: hl-to-cublaslt folds both transposes (transa = t reads %w,
// transb = t reads %xt) and the fusion that follows still fuses the bias into the call
// built over the folded operands.
// PIPE-LABEL: func.func @folded_before_fusion
// PIPE-NEXT:    %[[Y:.*]] = cublaslt.matmul %w, %xt bias(%b : tensor<16xf32>) {m = 16 : i64, n = 6 : i64, k = 8 : i64, lda = 8 : i64, ldb = 6 : i64,
// PIPE-SAME:      transa = #cublaslt<trans t>, transb = #cublaslt<trans t>,
// PIPE-SAME:      epilogue = #cublaslt<epilogue bias>
// PIPE-SAME:      : tensor<16x8xf32>, tensor<8x6xf32> -> tensor<6x16xf32>
// PIPE-NEXT:    func.return %[[Y]]
func.func @folded_before_fusion(%w: tensor<16x8xf32>, %xt: tensor<8x6xf32>, %b: tensor<16xf32>) -> tensor<6x16xf32> {
  %x = hl.transpose %xt {permutation = array<i64: 1, 0>} : tensor<8x6xf32> -> tensor<6x8xf32>
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %mm = hl.matmul %x, %wt : (tensor<6x8xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
  %y = hl.add %mm, %b : (tensor<6x16xf32>, tensor<16xf32>) -> tensor<6x16xf32>
  func.return %y : tensor<6x16xf32>
}
