// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// The cublaslt enum attributes round-trip: every value of every enum, printed
// `#cublaslt<mnemonic value>` with the value as cuBLASLt's enum spells it in lower case
// (lumir/cublaslt_enums.py). Attached to a func as discardable attributes so that no
// op verifier is involved; roundtrip-types.mlir and roundtrip-epilogues.mlir use every
// value inside legal cublaslt.matmul ops.

// #cublaslt<dtype ...>: a matrix or scale data type (cudaDataType_t).
// CHECK-LABEL: func.func @dtype() attributes {values = [
// CHECK-SAME:    #cublaslt<dtype f16>,
// CHECK-SAME:    #cublaslt<dtype bf16>,
// CHECK-SAME:    #cublaslt<dtype f32>,
// CHECK-SAME:    #cublaslt<dtype f64>,
// CHECK-SAME:    #cublaslt<dtype f8E4M3FN>,
// CHECK-SAME:    #cublaslt<dtype f8E5M2>,
// CHECK-SAME:    #cublaslt<dtype i8>,
// CHECK-SAME:    #cublaslt<dtype i32>]}
// GENERIC-LABEL: "func.func"() <{sym_name = "dtype"
// GENERIC:         }) {values = [#cublaslt<dtype f16>,
func.func @dtype() attributes {values = [#cublaslt<dtype f16>, #cublaslt<dtype bf16>, #cublaslt<dtype f32>, #cublaslt<dtype f64>, #cublaslt<dtype f8E4M3FN>, #cublaslt<dtype f8E5M2>, #cublaslt<dtype i8>, #cublaslt<dtype i32>]} {
  func.return
}

// -----

// #cublaslt<compute ...>: the accumulation type (cublasComputeType_t).
// CHECK-LABEL: func.func @compute() attributes {values = [
// CHECK-SAME:    #cublaslt<compute compute_16f>,
// CHECK-SAME:    #cublaslt<compute compute_16f_pedantic>,
// CHECK-SAME:    #cublaslt<compute compute_32f>,
// CHECK-SAME:    #cublaslt<compute compute_32f_pedantic>,
// CHECK-SAME:    #cublaslt<compute compute_32f_fast_16f>,
// CHECK-SAME:    #cublaslt<compute compute_32f_fast_16bf>,
// CHECK-SAME:    #cublaslt<compute compute_32f_fast_tf32>,
// CHECK-SAME:    #cublaslt<compute compute_64f>,
// CHECK-SAME:    #cublaslt<compute compute_64f_pedantic>,
// CHECK-SAME:    #cublaslt<compute compute_32i>,
// CHECK-SAME:    #cublaslt<compute compute_32i_pedantic>]}
// GENERIC-LABEL: "func.func"() <{sym_name = "compute"
// GENERIC:         }) {values = [#cublaslt<compute compute_16f>,
func.func @compute() attributes {values = [#cublaslt<compute compute_16f>, #cublaslt<compute compute_16f_pedantic>, #cublaslt<compute compute_32f>, #cublaslt<compute compute_32f_pedantic>, #cublaslt<compute compute_32f_fast_16f>, #cublaslt<compute compute_32f_fast_16bf>, #cublaslt<compute compute_32f_fast_tf32>, #cublaslt<compute compute_64f>, #cublaslt<compute compute_64f_pedantic>, #cublaslt<compute compute_32i>, #cublaslt<compute compute_32i_pedantic>]} {
  func.return
}

// -----

// #cublaslt<epilogue ...>: the epilogue (cublasLtEpilogue_t), every one cuBLASLt has.
// CHECK-LABEL: func.func @epilogue() attributes {values = [
// CHECK-SAME:    #cublaslt<epilogue default>,
// CHECK-SAME:    #cublaslt<epilogue relu>,
// CHECK-SAME:    #cublaslt<epilogue relu_aux>,
// CHECK-SAME:    #cublaslt<epilogue bias>,
// CHECK-SAME:    #cublaslt<epilogue relu_bias>,
// CHECK-SAME:    #cublaslt<epilogue relu_aux_bias>,
// CHECK-SAME:    #cublaslt<epilogue drelu>,
// CHECK-SAME:    #cublaslt<epilogue drelu_bgrad>,
// CHECK-SAME:    #cublaslt<epilogue gelu>,
// CHECK-SAME:    #cublaslt<epilogue gelu_aux>,
// CHECK-SAME:    #cublaslt<epilogue gelu_bias>,
// CHECK-SAME:    #cublaslt<epilogue gelu_aux_bias>,
// CHECK-SAME:    #cublaslt<epilogue dgelu>,
// CHECK-SAME:    #cublaslt<epilogue dgelu_bgrad>,
// CHECK-SAME:    #cublaslt<epilogue bgrada>,
// CHECK-SAME:    #cublaslt<epilogue bgradb>]}
// GENERIC-LABEL: "func.func"() <{sym_name = "epilogue"
// GENERIC:         }) {values = [#cublaslt<epilogue default>,
func.func @epilogue() attributes {values = [#cublaslt<epilogue default>, #cublaslt<epilogue relu>, #cublaslt<epilogue relu_aux>, #cublaslt<epilogue bias>, #cublaslt<epilogue relu_bias>, #cublaslt<epilogue relu_aux_bias>, #cublaslt<epilogue drelu>, #cublaslt<epilogue drelu_bgrad>, #cublaslt<epilogue gelu>, #cublaslt<epilogue gelu_aux>, #cublaslt<epilogue gelu_bias>, #cublaslt<epilogue gelu_aux_bias>, #cublaslt<epilogue dgelu>, #cublaslt<epilogue dgelu_bgrad>, #cublaslt<epilogue bgrada>, #cublaslt<epilogue bgradb>]} {
  func.return
}

// -----

// #cublaslt<order ...>: a matrix layout order (cublasLtOrder_t; lumir emits COL and ROW).
// CHECK-LABEL: func.func @order() attributes {values = [
// CHECK-SAME:    #cublaslt<order col>,
// CHECK-SAME:    #cublaslt<order row>]}
// GENERIC-LABEL: "func.func"() <{sym_name = "order"
// GENERIC:         }) {values = [#cublaslt<order col>,
func.func @order() attributes {values = [#cublaslt<order col>, #cublaslt<order row>]} {
  func.return
}

// -----

// #cublaslt<trans ...>: whether cuBLASLt reads an operand transposed (cublasOperation_t).
// CHECK-LABEL: func.func @trans() attributes {values = [
// CHECK-SAME:    #cublaslt<trans n>,
// CHECK-SAME:    #cublaslt<trans t>]}
// GENERIC-LABEL: "func.func"() <{sym_name = "trans"
// GENERIC:         }) {values = [#cublaslt<trans n>,
func.func @trans() attributes {values = [#cublaslt<trans n>, #cublaslt<trans t>]} {
  func.return
}

// -----

// The mnemonic and the value may be separated by any whitespace; the printer normalises it.
// CHECK-LABEL: func.func @spacing() attributes {values = [
// CHECK-SAME:    #cublaslt<dtype bf16>, #cublaslt<epilogue gelu_bias>]}
// GENERIC-LABEL: "func.func"() <{sym_name = "spacing"
func.func @spacing() attributes {values = [#cublaslt<dtype   bf16 >, #cublaslt< epilogue gelu_bias>]} {
  func.return
}
