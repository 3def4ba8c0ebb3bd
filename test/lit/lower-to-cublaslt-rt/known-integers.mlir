// RUN: lumir-opt %s -p lower-to-cublaslt-rt | filecheck %s

// Integer and boolean values that constants alone determine are filled in when the
// program loads (a `cublaslt_rt.constant`) instead of launched on every call: a decode
// step's `arange(6) + 0` of key positions, its `arange(1)`, and a comparison of two
// such ranges. The ops that only computed them are gone. What reads an argument (the
// cache index `arange(1) + counter`, the mask comparing positions with it) stays a
// launch, and so do a float range (a float op evaluated on the CPU may round otherwise
// than the device) and a range of more than 4096 elements.

// CHECK-LABEL: func.func @decode_indices(
// CHECK-DAG:     %[[KEYS:.*]] = cublaslt_rt.constant {value = dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>} : memref<6xi64>
// CHECK-DAG:     %[[ONE:.*]] = cublaslt_rt.constant {value = dense<0> : tensor<1xi64>} : memref<1xi64>
// CHECK-NOT:     "hl.arange"
// CHECK:         cublaslt_rt.launch "hl.add" ins(%[[ONE]], %counter : memref<1xi64>, memref<i64>)
// CHECK:         cublaslt_rt.launch "hl.compare" {predicate = "le"} ins(%[[KEYS]], %{{.*}} : memref<6xi64>, memref<1xi64>)
// CHECK:         %[[TRI:.*]] = cublaslt_rt.constant {value = dense<[true, true, false]> : tensor<3xi1>} : memref<3xi1>
// CHECK:         func.return %{{.*}}, %[[TRI]] :
func.func @decode_indices(%counter: tensor<i64>) -> (tensor<6xi1>, tensor<3xi1>) {
  %zero = hl.constant {value = dense<0> : tensor<i64>} : tensor<i64>
  %range = hl.arange {start = 0 : i64, end = 6 : i64, step = 1 : i64} : tensor<6xi64>
  %keys = hl.add %range, %zero : (tensor<6xi64>, tensor<i64>) -> tensor<6xi64>
  %first = hl.arange {start = 0 : i64, end = 1 : i64, step = 1 : i64} : tensor<1xi64>
  %index = hl.add %first, %counter : (tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  %mask = hl.compare %keys, %index {predicate = "le"} : (tensor<6xi64>, tensor<1xi64>) -> tensor<6xi1>
  %three = hl.arange {start = 0 : i64, end = 3 : i64, step = 1 : i64} : tensor<3xi64>
  %two = hl.constant {value = dense<2> : tensor<i64>} : tensor<i64>
  %tri = hl.compare %three, %two {predicate = "lt"} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  func.return %mask, %tri : tensor<6xi1>, tensor<3xi1>
}

// CHECK-LABEL: func.func @left_alone(
// CHECK:         cublaslt_rt.launch "hl.arange" {start = 0 : i64, end = 4 : i64, step = 1 : i64} ins() outs(%{{.*}} : memref<4xf32>)
// CHECK:         cublaslt_rt.launch "hl.arange" {start = 0 : i64, end = 5000 : i64, step = 1 : i64}
func.func @left_alone() -> (tensor<4xf32>, tensor<5000xi64>) {
  %f = hl.arange {start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4xf32>
  %long = hl.arange {start = 0 : i64, end = 5000 : i64, step = 1 : i64} : tensor<5000xi64>
  func.return %f, %long : tensor<4xf32>, tensor<5000xi64>
}
