// RUN: lumir-opt %s --split-input-file -p hl-canonicalize,hl-to-cublaslt,cublaslt-fuse | filecheck %s
// RUN: lumir-run %s --split-input-file | filecheck %s --check-prefix=EXEC
// RUN: not lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,cublaslt-fuse{unsafe-test-rules=mistyped-merge}' 2>&1 | filecheck %s --check-prefix=MISTYPED

// A residual add where the matmul is the smaller, broadcast operand (issue 8). The
// residual-into-view rule once fired here: it checked R against the sum but not the
// view of the call against the sum, and built an ill-sized reshape of R (first case) or
// put a [17] view into the [1, 17] sum's e-class (second case). A broadcast sum is not
// a residual of the call: nothing fuses, the program compiles and runs, and matches
// torch. With the test-only rule `mistyped-merge`, which declares a broadcast sum equal
// to its call operand, the pass stops with an error at the call naming that rule
// (the rule matches a call directly under the add, so only the third case).

// CHECK-LABEL: func.func @broadcast_batch(
// CHECK-NEXT:    %[[V:.*]] = hl.reshape %x : tensor<2x1x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %[[V]] {{.*}}beta = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[Y:.*]] = hl.reshape %[[D]] : tensor<2x2xf32> -> tensor<2x1x2xf32>
// CHECK-NEXT:    %[[O:.*]] = hl.add %[[Y]], %r : (tensor<2x1x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    func.return %[[O]]
// EXEC:      @broadcast_batch on {{.*}}, seed 0:
// EXEC-NEXT:   result 0 tensor<2x3x2xf32>: {{.*}}: ok
func.func @broadcast_batch(%x: tensor<2x1x2xf32>, %w: tensor<2x2xf32>, %r: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %y = hl.matmul %x, %w : (tensor<2x1x2xf32>, tensor<2x2xf32>) -> tensor<2x1x2xf32>
  %o = hl.add %y, %r : (tensor<2x1x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  func.return %o : tensor<2x3x2xf32>
}

// -----

// Only a unit dimension differs: the [17] view broadcasts to the [1, 17] sum.
// CHECK-LABEL: func.func @broadcast_unit_dim(
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %x {{.*}}beta = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[V:.*]] = hl.reshape %[[D]] : tensor<1x17xf32> -> tensor<17xf32>
// CHECK-NEXT:    %[[O:.*]] = hl.add %[[V]], %r : (tensor<17xf32>, tensor<1x17xf32>) -> tensor<1x17xf32>
// CHECK-NEXT:    func.return %[[O]]
// EXEC:      @broadcast_unit_dim on {{.*}}, seed 0:
// EXEC-NEXT:   result 0 tensor<1x17xf32>: {{.*}}: ok
func.func @broadcast_unit_dim(%x: tensor<1x3xf32>, %w: tensor<3x17xf32>, %r: tensor<1x17xf32>) -> tensor<1x17xf32> {
  %y = hl.matmul %x, %w : (tensor<1x3xf32>, tensor<3x17xf32>) -> tensor<1x17xf32>
  %v = hl.reshape %y : tensor<1x17xf32> -> tensor<17xf32>
  %o = hl.add %v, %r : (tensor<17xf32>, tensor<1x17xf32>) -> tensor<1x17xf32>
  func.return %o : tensor<1x17xf32>
}

// -----

// A call added to a larger residual without any view: the sum broadcasts the call.
// CHECK-LABEL: func.func @broadcast_call(
// CHECK-NEXT:    %[[D:.*]] = cublaslt.matmul %w, %x {{.*}}beta = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[O:.*]] = hl.add %[[D]], %r : (tensor<2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
// CHECK-NEXT:    func.return %[[O]]
// EXEC:      @broadcast_call on {{.*}}, seed 0:
// EXEC-NEXT:   result 0 tensor<3x2x2xf32>: {{.*}}: ok
// MISTYPED: broadcast-residual.mlir:[[# @LINE + 2]]:3: error: cublaslt-fuse: internal error: rule 'mistyped-merge' merged two tensor types into e-class %{{[0-9]+}}: tensor<2x2xf32> and program value %{{[0-9]+}} of type tensor<3x2x2xf32>
func.func @broadcast_call(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>, %r: tensor<3x2x2xf32>) -> tensor<3x2x2xf32> {
  %y = hl.matmul %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = hl.add %y, %r : (tensor<2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
  func.return %o : tensor<3x2x2xf32>
}
