// RUN: lumir-opt %s -p share-buffers | filecheck %s

// A fused elementwise launch writes its output over an input that dies there (the two
// share a slot), unless another input of the launch reads the same bytes through a
// view: `(y + y[1]) * 2` reads row 1 of %y for every row, so writing row 0 over %y
// first would change what the later rows read. There %z gets bytes of its own.

// CHECK-LABEL: func.func @over_its_input(
// CHECK:         %y = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// CHECK:         %z = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%y : memref<2x4xf32>) outs(%z : memref<2x4xf32>)

// CHECK-LABEL: func.func @beside_a_view_of_its_input(
// CHECK:         %y = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// CHECK:         %z = cublaslt_rt.view %arena {byte_offset = 256 : i64}
// CHECK-NEXT:    cublaslt_rt.fused_launch ins(%y, %row : memref<2x4xf32>, memref<4xf32>) outs(%z : memref<2x4xf32>)

builtin.module {
  cublaslt_rt.plan @plan0 {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 4 : i64, n = 2 : i64, k = 3 : i64, lda = 4 : i64, ldb = 3 : i64, ldc = 4 : i64, ldd = 4 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 33554432 : i64, algorithm = "heuristic"}
  func.func @over_its_input(%x: memref<2x3xf32>, %w: memref<3x4xf32>, %out: memref<2x4xf32>) -> memref<2x4xf32> {
    %y = cublaslt_rt.alloc : memref<2x4xf32>
    cublaslt_rt.matmul @plan0 a(%w : memref<3x4xf32>) b(%x : memref<2x3xf32>) d(%y : memref<2x4xf32>)
    %z = cublaslt_rt.alloc : memref<2x4xf32>
    cublaslt_rt.fused_launch ins(%y : memref<2x4xf32>) outs(%z : memref<2x4xf32>) {
    ^bb0(%a: tensor<2x4xf32>):
      %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
      %b = hl.mul %a, %two : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
      hl.yield %b : tensor<2x4xf32>
    }
    cublaslt_rt.fused_launch ins(%z : memref<2x4xf32>) outs(%out : memref<2x4xf32>) {
    ^bb0(%a: tensor<2x4xf32>):
      %b = hl.neg %a : tensor<2x4xf32> -> tensor<2x4xf32>
      hl.yield %b : tensor<2x4xf32>
    }
    func.return %out : memref<2x4xf32>
  }
  func.func @beside_a_view_of_its_input(%x: memref<2x3xf32>, %w: memref<3x4xf32>, %out: memref<2x4xf32>) -> memref<2x4xf32> {
    %y = cublaslt_rt.alloc : memref<2x4xf32>
    cublaslt_rt.matmul @plan0 a(%w : memref<3x4xf32>) b(%x : memref<2x3xf32>) d(%y : memref<2x4xf32>)
    %r = cublaslt_rt.view %y {byte_offset = 16 : i64} : memref<2x4xf32> -> memref<1x4xf32>
    %row = cublaslt_rt.view %r {byte_offset = 0 : i64} : memref<1x4xf32> -> memref<4xf32>
    %z = cublaslt_rt.alloc : memref<2x4xf32>
    cublaslt_rt.fused_launch ins(%y, %row : memref<2x4xf32>, memref<4xf32>) outs(%z : memref<2x4xf32>) {
    ^bb0(%a: tensor<2x4xf32>, %b: tensor<4xf32>):
      %s = hl.add %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
      hl.yield %s : tensor<2x4xf32>
    }
    cublaslt_rt.fused_launch ins(%z : memref<2x4xf32>) outs(%out : memref<2x4xf32>) {
    ^bb0(%a: tensor<2x4xf32>):
      %b = hl.neg %a : tensor<2x4xf32> -> tensor<2x4xf32>
      hl.yield %b : tensor<2x4xf32>
    }
    func.return %out : memref<2x4xf32>
  }
}
