// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,cublaslt-fuse,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},chunk-rows{max_bytes=2048}' --split-input-file | filecheck %s

// A GELU-gated MLP (Gemma's): cublaslt-fuse computes the tanh GELU in gate's GEMM
// epilogue, so after the GEMMs only `gate * up` is left, one `hl.mul` launch that
// fuse-kernels (which fuses chains) leaves alone. chunk-rows runs it as a fused launch
// of that one op so that it can chunk the group like SiLU·mul: gate's call (with its
// epilogue) writes the whole output, up's runs per chunk of 8 rows.
// CHECK-LABEL: func.func @gelu_gated(
// CHECK:         %h = cublaslt_rt.alloc : memref<16x128xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul @plan0 a(%wg : memref<128x64xbf16>) b(%x : memref<16x64xbf16>) d(%h : memref<16x128xbf16>)
// CHECK:         %up_rows0 = cublaslt_rt.alloc : memref<8x128xbf16>
// CHECK:         cublaslt_rt.fused_launch ins(%h_rows0, %up_rows0 : memref<8x128xbf16>, memref<8x128xbf16>) outs(%h_rows0 : memref<8x128xbf16>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<8x128xbf16>, %{{.*}}: tensor<8x128xbf16>):
// CHECK-NEXT:      %{{.*}} = hl.mul %{{.*}}, %{{.*}} : (tensor<8x128xbf16>, tensor<8x128xbf16>) -> tensor<8x128xbf16>
// CHECK-NEXT:      hl.yield
// CHECK:         cublaslt_rt.fused_launch ins(%h_rows8, %up_rows8 : memref<8x128xbf16>, memref<8x128xbf16>) outs(%h_rows8 : memref<8x128xbf16>) {
// CHECK-NOT:     cublaslt_rt.launch "hl.mul"
// CHECK:         func.return
func.func @gelu_gated(%x: tensor<16x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>) -> tensor<16x64xbf16> {
  %gate = hl.linear %x, %wg : tensor<16x64xbf16>, tensor<128x64xbf16> -> tensor<16x128xbf16>
  %act = hl.gelu %gate {approximate = "tanh"} : tensor<16x128xbf16> -> tensor<16x128xbf16>
  %up = hl.linear %x, %wu : tensor<16x64xbf16>, tensor<128x64xbf16> -> tensor<16x128xbf16>
  %h = hl.mul %act, %up : (tensor<16x128xbf16>, tensor<16x128xbf16>) -> tensor<16x128xbf16>
  %down = hl.linear %h, %wd : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<16x64xbf16>
  func.return %down : tensor<16x64xbf16>
}

// -----

// A one-op product of two arguments has no GEMM to chunk: it stays the launch it was.
// CHECK-LABEL: func.func @lone_product(
// CHECK-NEXT:    %p = cublaslt_rt.alloc : memref<64x128xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.mul" ins(%a, %b : memref<64x128xbf16>, memref<64x128xbf16>) outs(%p : memref<64x128xbf16>)
// CHECK-NEXT:    func.return %p
func.func @lone_product(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %p = hl.mul %a, %b : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x128xbf16>
  func.return %p : tensor<64x128xbf16>
}
