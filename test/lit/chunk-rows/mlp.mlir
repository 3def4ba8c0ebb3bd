// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},chunk-rows{max_bytes=2048}' --split-input-file | filecheck %s
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},chunk-rows{max_bytes=2048},chunk-rows{max_bytes=2048}' --split-input-file | filecheck %s
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},chunk-rows{max_bytes=4096}' --split-input-file | filecheck %s --check-prefix=FITS
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},chunk-rows{max_bytes=2048},share-buffers' --split-input-file | filecheck %s --check-prefix=PLACED
// group-fused, which only moves a launch up, leaves the chunks apart (the same plan):
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},chunk-rows{max_bytes=2048},group-fused,share-buffers' --split-input-file | filecheck %s --check-prefix=PLACED
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt' --split-input-file | filecheck %s --check-prefix=WHOLE

// A gated MLP over 16 token rows (batch 2 x 8): gate and up each write 4 KiB, and the
// SiLU(gate) * up launch reads both. gate's call writes straight into the output %h,
// whole (the launch rewrites it in place, so it needs no bytes of its own). Up's 4 KiB
// are over max_bytes = 2048, so the rest runs in two chunks of 8 rows: up's call on
// those rows into a buffer of its own, then the launch over those rows of %h. Up's
// call takes a plan narrowed to 8 rows and its 16-row plan is gone. The down
// projection reads the whole %h as before. A second chunk-rows finds nothing to do.
// CHECK-LABEL:  cublaslt_rt.plan @plan0 {{{.*}} m = 128 : i64, n = 16 : i64, k = 64 : i64
// CHECK-NEXT:   cublaslt_rt.plan @plan1_rows8 {{{.*}} m = 128 : i64, n = 8 : i64, k = 64 : i64
// CHECK-NEXT:   cublaslt_rt.plan @plan2 {{{.*}} m = 64 : i64, n = 16 : i64, k = 128 : i64
// CHECK:        %h = cublaslt_rt.alloc : memref<2x8x128xbf16>
// CHECK-NEXT:   %h_all = cublaslt_rt.view %h {byte_offset = 0 : i64} : memref<2x8x128xbf16> -> memref<16x128xbf16>
// CHECK-NEXT:   cublaslt_rt.matmul @plan0 a(%wg : memref<128x64xbf16>) b(%gate : memref<16x64xbf16>) d(%h_all : memref<16x128xbf16>)
// CHECK-NEXT:   %h_rows0 = cublaslt_rt.view %h {byte_offset = 0 : i64} : memref<2x8x128xbf16> -> memref<8x128xbf16>
// CHECK-NEXT:   %up_rows0 = cublaslt_rt.alloc : memref<8x128xbf16>
// CHECK-NEXT:   %[[U0:.*]] = cublaslt_rt.view %up {byte_offset = 0 : i64} : memref<16x64xbf16> -> memref<8x64xbf16>
// CHECK-NEXT:   cublaslt_rt.matmul @plan1_rows8 a(%wu : memref<128x64xbf16>) b(%[[U0]] : memref<8x64xbf16>) d(%up_rows0 : memref<8x128xbf16>)
// CHECK-NEXT:   cublaslt_rt.fused_launch ins(%h_rows0, %up_rows0 : memref<8x128xbf16>, memref<8x128xbf16>) outs(%h_rows0 : memref<8x128xbf16>) {
// CHECK-NEXT:   ^bb0(%{{.*}}: tensor<8x128xbf16>, %{{.*}}: tensor<8x128xbf16>):
// CHECK-NEXT:     hl.silu %{{.*}} : tensor<8x128xbf16> -> tensor<8x128xbf16>
// CHECK-NEXT:     hl.mul
// CHECK-NEXT:     hl.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   %h_rows8 = cublaslt_rt.view %h {byte_offset = 2048 : i64} : memref<2x8x128xbf16> -> memref<8x128xbf16>
// CHECK-NEXT:   %up_rows8 = cublaslt_rt.alloc : memref<8x128xbf16>
// CHECK-NEXT:   %[[U1:.*]] = cublaslt_rt.view %up {byte_offset = 1024 : i64} : memref<16x64xbf16> -> memref<8x64xbf16>
// CHECK-NEXT:   cublaslt_rt.matmul @plan1_rows8 a(%wu : memref<128x64xbf16>) b(%[[U1]] : memref<8x64xbf16>) d(%up_rows8 : memref<8x128xbf16>)
// CHECK-NEXT:   cublaslt_rt.fused_launch ins(%h_rows8, %up_rows8 : memref<8x128xbf16>, memref<8x128xbf16>) outs(%h_rows8 : memref<8x128xbf16>) {
// CHECK:        %down = cublaslt_rt.view %h {byte_offset = 0 : i64} : memref<2x8x128xbf16> -> memref<16x128xbf16>
// CHECK-NOT:    _rows
// CHECK:        func.return

// Temporaries of exactly max_bytes fit: nothing changes.
// FITS-NOT:     _rows
// FITS:         cublaslt_rt.fused_launch ins(%{{.*}}, %{{.*}} : memref<2x8x128xbf16>, memref<2x8x128xbf16>)

// The buffer plan then needs one 8-row buffer of up beside %h, not whole gate and up:
// 4 KiB of %h and 2 KiB of up's rows, against 8 KiB when the group runs whole (down's
// 2 KiB result takes the bytes up's rows had).
// %h is written and read only through views now, and is still placed in the arena (a
// typed buffer, not an arena of bytes).
// PLACED-LABEL: func.func @mlp(
// PLACED-NEXT:    %arena = cublaslt_rt.alloc : memref<6144xi8>
// PLACED:         %h = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<6144xi8> -> memref<2x8x128xbf16>
// WHOLE-LABEL:  func.func @mlp(
// WHOLE-NEXT:     %arena = cublaslt_rt.alloc : memref<8192xi8>
func.func @mlp(%x: tensor<2x8x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>) -> tensor<2x8x64xbf16> {
  %gate = hl.linear %x, %wg : tensor<2x8x64xbf16>, tensor<128x64xbf16> -> tensor<2x8x128xbf16>
  %up = hl.linear %x, %wu : tensor<2x8x64xbf16>, tensor<128x64xbf16> -> tensor<2x8x128xbf16>
  %act = hl.silu %gate : tensor<2x8x128xbf16> -> tensor<2x8x128xbf16>
  %h = hl.mul %act, %up : (tensor<2x8x128xbf16>, tensor<2x8x128xbf16>) -> tensor<2x8x128xbf16>
  %down = hl.linear %h, %wd : tensor<2x8x128xbf16>, tensor<64x128xbf16> -> tensor<2x8x64xbf16>
  func.return %down : tensor<2x8x64xbf16>
}

// -----

// A weight vector broadcast over the rows stays whole in every chunk; the f32 product
// cast to bf16 cannot be written over the f32 D, so each chunk's D is a buffer of its
// own and the launch writes the output's rows.
// CHECK-LABEL: func.func @scaled(
// CHECK:         %c_rows0 = cublaslt_rt.view %c {byte_offset = 0 : i64} : memref<16x64xbf16> -> memref<8x64xbf16>
// CHECK-NEXT:    %gate_rows0 = cublaslt_rt.alloc : memref<8x64xf32>
// CHECK:         cublaslt_rt.fused_launch ins(%gate_rows0, %s : memref<8x64xf32>, memref<64xf32>) outs(%c_rows0 : memref<8x64xbf16>) {
// CHECK:         cublaslt_rt.fused_launch ins(%gate_rows8, %s : memref<8x64xf32>, memref<64xf32>) outs(%c_rows8 : memref<8x64xbf16>) {
// CHECK:         func.return %c
func.func @scaled(%x: tensor<16x64xf32>, %wg: tensor<64x64xf32>, %s: tensor<64xf32>) -> tensor<16x64xbf16> {
  %gate = hl.matmul %x, %wg : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %h = hl.mul %gate, %s : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %c = hl.cast %h : tensor<16x64xf32> -> tensor<16x64xbf16>
  func.return %c : tensor<16x64xbf16>
}

// -----

// %gate is also a result, so its call keeps writing it whole and each chunk reads a
// window of its rows. Of the calls only this launch reads, up's writes the whole output
// %h first (the launch rewrites it in place) and v's runs per chunk into a chunk-sized
// buffer.
// CHECK-LABEL: func.func @gate_returned(
// CHECK:         cublaslt_rt.matmul @plan{{[0-9]+}} a(%wg : memref<64x64xf32>) b(%x : memref<16x64xf32>) d(%gate : memref<16x64xf32>)
// CHECK:         cublaslt_rt.matmul @plan{{[0-9]+}} a(%wu : memref<64x64xf32>) b(%x : memref<16x64xf32>) d(%h : memref<16x64xf32>)
// CHECK:         %h_rows0 = cublaslt_rt.view %h {byte_offset = 0 : i64} : memref<16x64xf32> -> memref<8x64xf32>
// CHECK:         %gate_rows0 = cublaslt_rt.view %gate {byte_offset = 0 : i64} : memref<16x64xf32> -> memref<8x64xf32>
// CHECK:         %v_rows0 = cublaslt_rt.alloc : memref<8x64xf32>
// CHECK:         cublaslt_rt.matmul @plan{{[0-9]+}}_rows8 a(%wv : memref<64x64xf32>) b(%x_rows0 : memref<8x64xf32>) d(%v_rows0 : memref<8x64xf32>)
// CHECK:         cublaslt_rt.fused_launch ins(%gate_rows0, %h_rows0, %v_rows0 : memref<8x64xf32>, memref<8x64xf32>, memref<8x64xf32>) outs(%h_rows0 : memref<8x64xf32>) {
// CHECK:         func.return %h, %gate
func.func @gate_returned(%x: tensor<16x64xf32>, %wg: tensor<64x64xf32>, %wu: tensor<64x64xf32>, %wv: tensor<64x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %gate = hl.matmul %x, %wg : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %up = hl.matmul %x, %wu : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %v = hl.matmul %x, %wv : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %act = hl.silu %gate : tensor<16x64xf32> -> tensor<16x64xf32>
  %p = hl.mul %act, %up : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = hl.mul %p, %v : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  func.return %h, %gate : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// One call whose D has the output's type is all the launch reads: the buffer plan
// already writes the output over it, so there is nothing to chunk.
// CHECK-LABEL: func.func @only_carrier(
// CHECK-NOT:     _rows
// CHECK:         func.return
func.func @only_carrier(%x: tensor<16x64xf32>, %wg: tensor<64x64xf32>) -> tensor<16x64xf32> {
  %gate = hl.matmul %x, %wg : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %h = hl.silu %gate : tensor<16x64xf32> -> tensor<16x64xf32>
  %out = hl.matmul %h, %wg : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  func.return %out : tensor<16x64xf32>
}

// -----

// A per-row scale ([16, 1]) spans the rows but not as a row of the output: no chunk
// can take it as a window of the same rows, so the group runs whole.
// CHECK-LABEL: func.func @per_row(
// CHECK-NOT:     _rows
// CHECK:         cublaslt_rt.fused_launch ins(%gate, %s : memref<16x64xf32>, memref<16x1xf32>) outs(%c : memref<16x64xbf16>) {
func.func @per_row(%x: tensor<16x64xf32>, %wg: tensor<64x64xf32>, %s: tensor<16x1xf32>) -> tensor<16x64xbf16> {
  %gate = hl.matmul %x, %wg : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %h = hl.mul %gate, %s : (tensor<16x64xf32>, tensor<16x1xf32>) -> tensor<16x64xf32>
  %c = hl.cast %h : tensor<16x64xf32> -> tensor<16x64xbf16>
  func.return %c : tensor<16x64xbf16>
}
