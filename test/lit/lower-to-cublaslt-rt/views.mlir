// RUN: lumir-opt %s -p "lower-to-cublaslt-rt{share_buffers=false}" --split-input-file | filecheck %s
// RUN: lumir-run %s -p lower-to-cublaslt-rt --split-input-file | filecheck %s --check-prefix=EXEC

// Shape ops that leave a dense buffer's bytes where they are become cublaslt_rt.view ops
// (no allocation, no kernel); the others stay launches. The second RUN line runs each
// function against the unfused program: the views read the right bytes.

// Every reshape of a dense buffer is a view of its bytes at offset 0.
// CHECK-LABEL: func.func @reshape(%x: memref<2x3x4xf16>) -> memref<6x4xf16> {
// CHECK-NEXT:    %r = cublaslt_rt.view %x {byte_offset = 0 : i64} : memref<2x3x4xf16> -> memref<6x4xf16>
// CHECK-NEXT:    func.return %r : memref<6x4xf16>
// EXEC-LABEL: @reshape on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @reshape(%x: tensor<2x3x4xf16>) -> tensor<6x4xf16> {
  %r = hl.reshape %x : tensor<2x3x4xf16> -> tensor<6x4xf16>
  func.return %r : tensor<6x4xf16>
}

// -----

// A slice of whole leading rows is a dense run of its input's bytes: rows 1 to 3 of a
// 4x8 bf16 buffer start at byte 1 * 8 * 2. A slice along an inner dimension, or with a
// step, is not: it stays a launch (a copy).
// CHECK-LABEL: func.func @slices(%x: memref<4x8xbf16>) -> (memref<3x8xbf16>, memref<4x4xbf16>, memref<2x8xbf16>) {
// CHECK-NEXT:    %rows = cublaslt_rt.view %x {byte_offset = 16 : i64} : memref<4x8xbf16> -> memref<3x8xbf16>
// CHECK-NEXT:    %cols = cublaslt_rt.alloc : memref<4x4xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.slice" {dim = 1 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} ins(%x : memref<4x8xbf16>) outs(%cols : memref<4x4xbf16>)
// CHECK-NEXT:    %every_other = cublaslt_rt.alloc : memref<2x8xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.slice" {dim = 0 : i64, start = 0 : i64, end = 4 : i64, step = 2 : i64} ins(%x : memref<4x8xbf16>) outs(%every_other : memref<2x8xbf16>)
// CHECK-NEXT:    func.return %rows, %cols, %every_other : memref<3x8xbf16>, memref<4x4xbf16>, memref<2x8xbf16>
// EXEC-LABEL: @slices on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
// EXEC-NEXT:    result 1 {{.*}}: ok
// EXEC-NEXT:    result 2 {{.*}}: ok
func.func @slices(%x: tensor<4x8xbf16>) -> (tensor<3x8xbf16>, tensor<4x4xbf16>, tensor<2x8xbf16>) {
  %rows = hl.slice %x {dim = 0 : i64, start = 1 : i64, end = 4 : i64, step = 1 : i64} : tensor<4x8xbf16> -> tensor<3x8xbf16>
  %cols = hl.slice %x {dim = 1 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : tensor<4x8xbf16> -> tensor<4x4xbf16>
  %every_other = hl.slice %x {dim = 0 : i64, start = 0 : i64, end = 4 : i64, step = 2 : i64} : tensor<4x8xbf16> -> tensor<2x8xbf16>
  func.return %rows, %cols, %every_other : tensor<3x8xbf16>, tensor<4x4xbf16>, tensor<2x8xbf16>
}

// -----

// Below a unit leading dimension any slice is a dense run: the last token of [1, 6, 8],
// counted from the end, starts at element 5 * 8.
// CHECK-LABEL: func.func @last_token(%x: memref<1x6x8xf32>) -> memref<1x1x8xf32> {
// CHECK-NEXT:    %t = cublaslt_rt.view %x {byte_offset = 160 : i64} : memref<1x6x8xf32> -> memref<1x1x8xf32>
// CHECK-NEXT:    func.return %t : memref<1x1x8xf32>
// EXEC-LABEL: @last_token on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @last_token(%x: tensor<1x6x8xf32>) -> tensor<1x1x8xf32> {
  %t = hl.slice %x {dim = 1 : i64, start = -1 : i64, end = 6 : i64, step = 1 : i64} : tensor<1x6x8xf32> -> tensor<1x1x8xf32>
  func.return %t : tensor<1x1x8xf32>
}

// -----

// A transpose that only moves unit dimensions, and an expand that only adds them, keep
// the bytes in place; a transpose of real dimensions and a broadcasting expand do not.
// CHECK-LABEL: func.func @unit_dims(%x: memref<1x6x64xbf16>, %b: memref<8xf32>) -> (memref<6x1x64xbf16>, memref<64x6x1xbf16>, memref<1x8xf32>, memref<4x8xf32>) {
// CHECK-NEXT:    %moved = cublaslt_rt.view %x {byte_offset = 0 : i64} : memref<1x6x64xbf16> -> memref<6x1x64xbf16>
// CHECK-NEXT:    %swapped = cublaslt_rt.alloc : memref<64x6x1xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.transpose" {permutation = array<i64: 2, 1, 0>} ins(%x : memref<1x6x64xbf16>) outs(%swapped : memref<64x6x1xbf16>)
// CHECK-NEXT:    %row = cublaslt_rt.view %b {byte_offset = 0 : i64} : memref<8xf32> -> memref<1x8xf32>
// CHECK-NEXT:    %rows = cublaslt_rt.alloc : memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.expand" ins(%b : memref<8xf32>) outs(%rows : memref<4x8xf32>)
// CHECK-NEXT:    func.return %moved, %swapped, %row, %rows : memref<6x1x64xbf16>, memref<64x6x1xbf16>, memref<1x8xf32>, memref<4x8xf32>
// EXEC-LABEL: @unit_dims on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
// EXEC-NEXT:    result 1 {{.*}}: ok
// EXEC-NEXT:    result 2 {{.*}}: ok
// EXEC-NEXT:    result 3 {{.*}}: ok
func.func @unit_dims(%x: tensor<1x6x64xbf16>, %b: tensor<8xf32>) -> (tensor<6x1x64xbf16>, tensor<64x6x1xbf16>, tensor<1x8xf32>, tensor<4x8xf32>) {
  %moved = hl.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<1x6x64xbf16> -> tensor<6x1x64xbf16>
  %swapped = hl.transpose %x {permutation = array<i64: 2, 1, 0>} : tensor<1x6x64xbf16> -> tensor<64x6x1xbf16>
  %row = hl.expand %b : tensor<8xf32> -> tensor<1x8xf32>
  %rows = hl.expand %b : tensor<8xf32> -> tensor<4x8xf32>
  func.return %moved, %swapped, %row, %rows : tensor<6x1x64xbf16>, tensor<64x6x1xbf16>, tensor<1x8xf32>, tensor<4x8xf32>
}

// -----

// A view of a computed buffer feeds a GEMM as any dense buffer does: the [1, 6, 16]
// activation is the [6, 16] B operand without a copy.
// CHECK-LABEL: func.func @into_gemm(%x: memref<1x6x16xf32>, %w: memref<32x16xf32>) -> memref<6x32xf32> {
// CHECK-NEXT:    %e = cublaslt_rt.alloc : memref<1x6x16xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x : memref<1x6x16xf32>) outs(%e : memref<1x6x16xf32>)
// CHECK-NEXT:    %flat = cublaslt_rt.view %e {byte_offset = 0 : i64} : memref<1x6x16xf32> -> memref<6x16xf32>
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<6x32xf32>
// CHECK-NEXT:    cublaslt_rt.matmul @plan0 a(%w : memref<32x16xf32>) b(%flat : memref<6x16xf32>) d(%y : memref<6x32xf32>)
// CHECK-NEXT:    func.return %y : memref<6x32xf32>
// EXEC-LABEL: @into_gemm on {{cpu|cuda}}, seed 0:
// EXEC-NEXT:    result 0 {{.*}}: ok
func.func @into_gemm(%x: tensor<1x6x16xf32>, %w: tensor<32x16xf32>) -> tensor<6x32xf32> {
  %e = hl.exp %x : tensor<1x6x16xf32> -> tensor<1x6x16xf32>
  %flat = hl.reshape %e : tensor<1x6x16xf32> -> tensor<6x16xf32>
  %y = cublaslt.matmul %w, %flat {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 6 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype f32>, b_dtype = #cublaslt<dtype f32>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<32x16xf32>, tensor<6x16xf32> -> tensor<6x32xf32>
  func.return %y : tensor<6x32xf32>
}
