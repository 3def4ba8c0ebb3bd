// RUN: lumir-opt %s -p hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt --split-input-file | filecheck %s
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt{gemv=false}' --split-input-file | filecheck %s --check-prefix=OFF

// Each plan's algorithm is the cost model's pick. A one-row bf16 projection (a decode
// step's GEMM: memory-bound, 8 MiB of weight) runs as lumir's GEMV; four rows, or a
// one-row product over a 525 MB weight (an lm_head, which cuBLASLt streams at the copy
// rate), stay on cuBLASLt's heuristic. gemv=false keeps every plan on cuBLASLt.
// CHECK: cublaslt_rt.plan @plan0 {{.*}}m = 2048 : i64, n = 1 : i64{{.*}}algorithm = "gemv"
// CHECK: cublaslt_rt.plan @plan1 {{.*}}m = 2048 : i64, n = 4 : i64{{.*}}algorithm = "heuristic"
// CHECK: cublaslt_rt.plan @plan2 {{.*}}m = 128256 : i64, n = 1 : i64{{.*}}algorithm = "heuristic"
// OFF-NOT: algorithm = "gemv"
// OFF: cublaslt_rt.plan @plan0 {{.*}}n = 1 : i64{{.*}}algorithm = "heuristic"
// OFF-NOT: algorithm = "gemv"
func.func @decode(%x: tensor<1x2048xbf16>, %w: tensor<2048x2048xbf16>, %x4: tensor<4x2048xbf16>, %head: tensor<128256x2048xbf16>) -> (tensor<1x2048xbf16>, tensor<4x2048xbf16>, tensor<1x128256xbf16>) {
  %y = hl.linear %x, %w : tensor<1x2048xbf16>, tensor<2048x2048xbf16> -> tensor<1x2048xbf16>
  %z = hl.linear %x4, %w : tensor<4x2048xbf16>, tensor<2048x2048xbf16> -> tensor<4x2048xbf16>
  %l = hl.linear %x, %head : tensor<1x2048xbf16>, tensor<128256x2048xbf16> -> tensor<1x128256xbf16>
  func.return %y, %z, %l : tensor<1x2048xbf16>, tensor<4x2048xbf16>, tensor<1x128256xbf16>
}

// -----

// f32 inputs stay on cuBLASLt (the GEMV reads half-precision A and B only).
// CHECK: cublaslt_rt.plan @plan0 {{.*}}n = 1 : i64{{.*}}a_dtype = #cublaslt<dtype f32>{{.*}}algorithm = "heuristic"
func.func @f32_row(%x: tensor<1x2048xf32>, %w: tensor<2048x2048xf32>) -> tensor<1x2048xf32> {
  %y = hl.linear %x, %w : tensor<1x2048xf32>, tensor<2048x2048xf32> -> tensor<1x2048xf32>
  func.return %y : tensor<1x2048xf32>
}
