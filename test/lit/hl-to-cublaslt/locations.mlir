// RUN: lumir-opt %s -p hl-to-cublaslt --print-debuginfo | filecheck %s

// Every op the lowering creates (reshapes in, the call, the reshape out) carries the
// location of the hl.matmul it replaces, so a later diagnostic points at that line.
// CHECK-LABEL: func.func @scores
// CHECK-NEXT:    hl.reshape %q {{.*}} loc("{{.*}}locations.mlir":[[# @LINE + 7]]:3)
// CHECK-NEXT:    hl.reshape %k {{.*}} loc("{{.*}}locations.mlir":[[# @LINE + 6]]:3)
// CHECK-NEXT:    cublaslt.matmul {{.*}} loc("{{.*}}locations.mlir":[[# @LINE + 5]]:3)
// CHECK-NEXT:    hl.reshape {{.*}} loc("{{.*}}locations.mlir":[[# @LINE + 4]]:3)
// CHECK-NEXT:    func.return
func.func @scores(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x5x8xf32>) -> tensor<2x3x4x5xf32> {
  %kt = hl.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x3x5x8xf32> -> tensor<2x3x8x5xf32>
  %s = hl.matmul %q, %kt : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %s : tensor<2x3x4x5xf32>
}
