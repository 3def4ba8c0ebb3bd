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
