// RUN: lumir-opt %s -p 'chunk-rows{max_bytes=2048}' | filecheck %s

// The launch also reads %h2's own bytes through a view (a value updated in place).
// Chunked, gate's call would write the whole %h2 before the first chunk reads %prev,
// so the group is left whole. Without the view (%prev a buffer of its own) it would
// run in two chunks of 8 rows.
// CHECK-LABEL: func.func @f(
// CHECK-NOT:     _rows
// CHECK:         cublaslt_rt.fused_launch ins(%gate, %up, %prev : memref<16x64xf32>, memref<16x64xf32>, memref<16x64xf32>) outs(%h2 : memref<16x64xf32>)
builtin.module {
  cublaslt_rt.plan @plan0 {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 16 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 33554432 : i64, algorithm = "heuristic"}
  cublaslt_rt.plan @plan1 {transa = #cublaslt<trans n>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 64 : i64, n = 16 : i64, k = 64 : i64, lda = 64 : i64, ldb = 64 : i64, ldc = 64 : i64, ldd = 64 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 33554432 : i64, algorithm = "heuristic"}
  func.func @f(%x: memref<16x64xf32>, %wg: memref<64x64xf32>, %wu: memref<64x64xf32>) -> memref<16x64xf32> {
    %h2 = cublaslt_rt.alloc : memref<16x64xf32>
    %prev = cublaslt_rt.view %h2 {byte_offset = 0 : i64} : memref<16x64xf32> -> memref<16x64xf32>
    cublaslt_rt.matmul @plan0 a(%wg : memref<64x64xf32>) b(%x : memref<16x64xf32>) d(%prev : memref<16x64xf32>)
    %gate = cublaslt_rt.alloc : memref<16x64xf32>
    cublaslt_rt.matmul @plan0 a(%wg : memref<64x64xf32>) b(%x : memref<16x64xf32>) d(%gate : memref<16x64xf32>)
    %up = cublaslt_rt.alloc : memref<16x64xf32>
    cublaslt_rt.matmul @plan1 a(%wu : memref<64x64xf32>) b(%x : memref<16x64xf32>) d(%up : memref<16x64xf32>)
    cublaslt_rt.fused_launch ins(%gate, %up, %prev : memref<16x64xf32>, memref<16x64xf32>, memref<16x64xf32>) outs(%h2 : memref<16x64xf32>) {
    ^bb0(%g: tensor<16x64xf32>, %u: tensor<16x64xf32>, %p: tensor<16x64xf32>):
      %act = hl.silu %g : tensor<16x64xf32> -> tensor<16x64xf32>
      %h = hl.mul %act, %u : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
      %h2_1 = hl.mul %h, %p : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
      hl.yield %h2_1 : tensor<16x64xf32>
    }
    func.return %h2 : memref<16x64xf32>
  }
}
