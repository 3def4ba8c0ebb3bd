// RUN: not lumir-opt %s 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not lumir-opt %S/does-not-exist.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not lumir-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not lumir-opt %s -p 'hl-canonicalize{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPTION

// A malformed file gives a located error, a non-zero exit and no traceback.
// SYNTAX: errors.mlir:[[# @LINE + 4]]:3: error: type expected
// SYNTAX-NOT: Traceback
func.func @broken(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = hl.relu %x : tensor<4xf32> ->
  func.return %r : tensor<4xf32>
}

// MISSING: lumir-opt: error: cannot read input file '{{.*}}does-not-exist.mlir'
// MISSING-NOT: Traceback
// PASS: error: invalid pass pipeline 'no-such-pass': Unrecognized passes: ['no-such-pass']
// PASS-NOT: Traceback
// OPTION: error: invalid pass pipeline 'hl-canonicalize{bogus=1}'
// OPTION-NOT: Traceback
