// RUN: not lumir-run %s 2>&1 | filecheck %s
// RUN: lumir-run %s --equal-nan | filecheck %s --check-prefix=EQUAL

// The square root of seeded random inputs (half of them negative) is NaN in the program
// and in the reference alike. Without --equal-nan a NaN never matches, as in
// torch.testing.assert_close, so the error is infinite: the report and the diagnostic
// say how many elements are NaN on both sides and which flag counts them as equal.
// With the flag the same program matches.

// CHECK-LABEL: @root on {{cpu|cuda}}, seed 0:
// CHECK-NEXT:    result 0 tensor<4x8xf32>: max abs error inf, max rel error inf (rtol {{.*}}); [[N:[0-9]+]] element(s) are NaN in both the program and the reference (--equal-nan counts them as equal): MISMATCH
// CHECK:         nan.mlir:[[# @LINE + 6]]:3: error: result 0 of @root differs from the unfused reference (max abs error inf, max rel error inf); [[N]] element(s) are NaN in both the program and the reference (--equal-nan counts them as equal)

// EQUAL-LABEL: @root on {{cpu|cuda}}, seed 0:
// EQUAL-NEXT:    result 0 tensor<4x8xf32>: max abs error 0.000e+00, max rel error 0.000e+00 (rtol {{.*}}): ok
func.func @root(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hl.sqrt %x : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
