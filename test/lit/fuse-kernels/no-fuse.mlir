// RUN: lumir-opt %s -p fuse-kernels --split-input-file | filecheck %s

// fuse-kernels leaves alone what one row kernel cannot compute or where fusing would
// reorder a reader.

// A reduction over the rows (dim 0) is not a row program: nothing fuses.
// CHECK-LABEL: func.func @column_sum(
// CHECK-NOT:     hl.fused
// CHECK:         hl.sum
func.func @column_sum(%x: tensor<4x16xf32>) -> tensor<1x16xf32> {
  %e = hl.exp %x : tensor<4x16xf32> -> tensor<4x16xf32>
  %s = hl.sum %e {dims = array<i64: 0>, keepdim} : tensor<4x16xf32> -> tensor<1x16xf32>
  func.return %s : tensor<1x16xf32>
}

// -----

// The GEMM reads %a, and the add reads the GEMM: one kernel holding both the neg and
// the add would have to run before and after the GEMM. Each stays its own launch.
// CHECK-LABEL: func.func @through_a_gemm(
// CHECK-NOT:     hl.fused
// CHECK:         func.return
func.func @through_a_gemm(%x: tensor<4x16xf32>, %k: tensor<16x16xf32>) -> tensor<4x16xf32> {
  %a = hl.neg %x : tensor<4x16xf32> -> tensor<4x16xf32>
  %y = hl.matmul %a, %k : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %z = hl.add %a, %y : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  func.return %z : tensor<4x16xf32>
}

// -----

// A single op is a kernel of its own either way: it is not wrapped.
// CHECK-LABEL: func.func @single(
// CHECK-NEXT:    %e = hl.exp %x
func.func @single(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = hl.exp %x : tensor<4x16xf32> -> tensor<4x16xf32>
  func.return %e : tensor<4x16xf32>
}

// -----

// A pow with a computed exponent is not fused (the kernel raises to literals only).
// CHECK-LABEL: func.func @tensor_pow(
// CHECK-NOT:     hl.fused
func.func @tensor_pow(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %p = hl.pow %x, %y : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = hl.exp %p : tensor<4x16xf32> -> tensor<4x16xf32>
  func.return %e : tensor<4x16xf32>
}

// -----

// A slice on a leading dimension, or with step 2, is not a column shift of the row: it
// stays its own launch; the last-dim slice (step 1) and the add after them fuse.
// CHECK-LABEL: func.func @leading_slice(
// CHECK-NEXT:    %s = hl.slice %x {dim = 0 : i64
// CHECK-NEXT:    %e = hl.slice %x {dim = 1 : i64, start = 0 : i64, end = 16 : i64, step = 2 : i64}
// CHECK-NEXT:    %b = hl.slice %e {dim = 0 : i64
// CHECK-NEXT:    %y = hl.fused(%s, %b)
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %a = hl.slice %s_1 {dim = 1 : i64
// CHECK-NEXT:      hl.add
func.func @leading_slice(%x: tensor<4x16xf32>) -> tensor<2x8xf32> {
  %s = hl.slice %x {dim = 0 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : tensor<4x16xf32> -> tensor<2x16xf32>
  %e = hl.slice %x {dim = 1 : i64, start = 0 : i64, end = 16 : i64, step = 2 : i64} : tensor<4x16xf32> -> tensor<4x8xf32>
  %a = hl.slice %s {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : tensor<2x16xf32> -> tensor<2x8xf32>
  %b = hl.slice %e {dim = 0 : i64, start = 1 : i64, end = 3 : i64, step = 1 : i64} : tensor<4x8xf32> -> tensor<2x8xf32>
  %y = hl.add %a, %b : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// A transpose that moves the last dimension, or one of a value the kernel computes (its
// rows are in other programs), is not a load: the first stays a launch of its own; the
// second starts a kernel of its own instead of joining the exp's.
// CHECK-LABEL: func.func @moving_transposes(
// CHECK-NEXT:    %t = hl.transpose %x {permutation = array<i64: 1, 2, 0>}
// CHECK-NEXT:    %e = hl.exp %t
// CHECK-NEXT:    %n = hl.fused(%e)
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %u = hl.transpose %e_1 {permutation = array<i64: 1, 0, 2>}
// CHECK-NEXT:      hl.neg
func.func @moving_transposes(%x: tensor<16x2x2xf32>) -> tensor<2x2x16xf32> {
  %t = hl.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<16x2x2xf32> -> tensor<2x2x16xf32>
  %e = hl.exp %t : tensor<2x2x16xf32> -> tensor<2x2x16xf32>
  %u = hl.transpose %e {permutation = array<i64: 1, 0, 2>} : tensor<2x2x16xf32> -> tensor<2x2x16xf32>
  %n = hl.neg %u : tensor<2x2x16xf32> -> tensor<2x2x16xf32>
  func.return %n : tensor<2x2x16xf32>
}
