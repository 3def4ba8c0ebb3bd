// RUN: not lumir-run %s -p lower-to-cublaslt-rt 2>&1 | filecheck %s --check-prefix=WHICH
// RUN: not lumir-run %s -p lower-to-cublaslt-rt --function nope 2>&1 | filecheck %s --check-prefix=FUNCTION
// RUN: lumir-opt %s -p lower-to-cublaslt-rt | not lumir-run 2>&1 | filecheck %s --check-prefix=LOWERED
// RUN: lumir-opt %s -p lower-to-cublaslt-rt | not lumir-run --reference %s --split-input-file 2>&1 | filecheck %s --check-prefix=CHUNKS
// RUN: echo 'func.func @f(' | not lumir-run --reference %s 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not lumir-run %S/does-not-exist.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: lumir-run %s -p lower-to-cublaslt-rt --function g --seed 3 | filecheck %s --check-prefix=SEED

// lumir-run reports every problem as a diagnostic and exits non-zero, never with a
// traceback. Without --split-input-file this file is one module of two functions.

// WHICH:      error: expected exactly one function to run, found @f, @g; name one
// WHICH-NOT:  Traceback
// FUNCTION:   error: the module has no function @nope (functions: @f, @g)
// LOWERED:    <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: the reference is already lowered to cublaslt_rt; give the hl- or cublaslt-level original with --reference
// CHUNKS:     lumir-run: error: the input has 1 chunks but the reference {{.*}}errors.mlir has 2
// SYNTAX:     <stdin>:2:1: error: Expected argument or type
// SYNTAX-NOT: Traceback
// MISSING:    lumir-run: error: cannot read input file '{{.*}}does-not-exist.mlir'
// SEED:       @g on {{cpu|cuda}}, seed 3:
// SEED-NEXT:    result 0 tensor<4xf32>: max abs error {{.*}}: ok
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = hl.relu %x : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = hl.exp %x : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
