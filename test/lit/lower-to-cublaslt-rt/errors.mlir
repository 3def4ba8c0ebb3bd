// RUN: lumir-opt %s -p lower-to-cublaslt-rt --split-input-file --verify-diagnostics

// What the pass cannot bufferize is reported, located, before anything is rewritten.

func.func @foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{lower-to-cublaslt-rt cannot lower 'arith.addf' to buffers}}
  %y = arith.addf %x, %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// expected-error @+2 {{argument 0: tensor<?x4xf32> has a dynamic dimension; specialise shapes before lowering}}
// expected-error @+1 {{result 0: tensor<?x4xf32> has a dynamic dimension}}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  func.return %x : tensor<?x4xf32>
}

// -----

// expected-error @+2 {{argument 1: lower-to-cublaslt-rt bufferizes tensors, not i64}}
// expected-error @+1 {{result 0: lower-to-cublaslt-rt bufferizes tensors, not i64}}
func.func @scalar(%x: tensor<4xf32>, %n: i64) -> i64 {
  func.return %n : i64
}

// -----

// Element types lumir's buffers cannot hold (complex, index, f80, i4) are refused here,
// not by the buffer plan's byte arithmetic or at run time.
// expected-error @+3 {{argument 0: tensor<4xcomplex<f32>>: lumir's buffers cannot hold element type complex<f32>; expected one of f32, f16, bf16, i64, i32, i1, f64, f8E4M3FN, f8E5M2, i8, i16, ui8}}
// expected-error @+2 {{argument 1: tensor<4xindex>: lumir's buffers cannot hold element type index}}
// expected-error @+1 {{result 0: tensor<4xindex>: lumir's buffers cannot hold element type index}}
func.func @no_byte_width(%x: tensor<4xcomplex<f32>>, %i: tensor<4xindex>) -> tensor<4xindex> {
  func.return %i : tensor<4xindex>
}

// -----

// The AUX and gradient epilogues need auxiliary buffers cublaslt_rt does not carry:
// cublaslt.matmul may name them, but a plan with one could never run.
func.func @aux_epilogue(%w: tensor<32x16xf32>, %x: tensor<6x16xf32>) -> tensor<6x32xf32> {
  // expected-error @+1 {{epilogue gelu_aux needs auxiliary buffers that lumir's executors do not provide; expected one of default, relu, bias, relu_bias, gelu, gelu_bias}}
  %y = cublaslt.matmul %w, %x {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 6 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue gelu_aux>} : tensor<32x16xf32>, tensor<6x16xf32> -> tensor<6x32xf32>
  func.return %y : tensor<6x32xf32>
}

// -----

// Plans live at the top of the module and the runtime runs its top-level functions.
builtin.module {
  // expected-error @+1 {{lower-to-cublaslt-rt lowers the functions at the top level of the module, not a nested builtin.module; move its functions to the top level}}
  builtin.module {
    func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = hl.relu %x : tensor<4xf32> -> tensor<4xf32>
      func.return %y : tensor<4xf32>
    }
  }
}
