// RUN: lumir-opt %s -p "lower-to-cublaslt-rt{share_buffers=false}" --split-input-file | filecheck %s
// RUN: lumir-opt %s -p "lower-to-cublaslt-rt{share_buffers=false}" --split-input-file --print-debuginfo | filecheck %s --check-prefix=LOC

// Each cublaslt.matmul becomes a module-level plan with its whole descriptor, an alloc
// for D and a cublaslt_rt.matmul naming the plan; tensors become buffers of the same
// shape and element type, and func arguments and results become buffers too.

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @plan0 {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>,
// CHECK-SAME:      m = 32 : i64, n = 8 : i64, k = 16 : i64,
// CHECK-SAME:      beta = 0.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 33554432 : i64, algorithm = "heuristic"}
// CHECK-NEXT:    func.func @linear(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>) -> memref<8x32xbf16> {
// CHECK-NEXT:      %y = cublaslt_rt.alloc : memref<8x32xbf16>
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) d(%y : memref<8x32xbf16>)
// CHECK-NEXT:      func.return %y : memref<8x32xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// The plan, the alloc and the call all point at the cublaslt.matmul they replace.
// LOC-LABEL: builtin.module {
// LOC-NEXT:      cublaslt_rt.plan @plan0 {{.*}} loc("{{.*}}matmul.mlir":[[# @LINE + 4]]:3)
// LOC:           cublaslt_rt.alloc : memref<8x32xbf16> loc("{{.*}}matmul.mlir":[[# @LINE + 3]]:3)
// LOC-NEXT:      cublaslt_rt.matmul @plan0 {{.*}} loc("{{.*}}matmul.mlir":[[# @LINE + 2]]:3)
func.func @linear(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>) -> tensor<8x32xbf16> {
  %y = cublaslt.matmul %w, %x {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<32x16xbf16>, tensor<8x16xbf16> -> tensor<8x32xbf16>
  func.return %y : tensor<8x32xbf16>
}

// -----

// C and the bias stay operands of the call; the plan records the bias type.
// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @plan0 {
// CHECK-SAME:      beta = 1.000000e+00 : f64, epilogue = #cublaslt<epilogue default>, workspace_size = 33554432 : i64, algorithm = "heuristic"}
// CHECK-NEXT:    cublaslt_rt.plan @plan1 {
// CHECK-SAME:      epilogue = #cublaslt<epilogue relu_bias>, workspace_size = 33554432 : i64, algorithm = "heuristic", bias_dtype = #cublaslt<dtype bf16>}
// CHECK-NEXT:    func.func @residual_then_bias(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %r: memref<8x32xbf16>, %b: memref<32xbf16>) -> (memref<8x32xbf16>, memref<8x32xbf16>) {
// CHECK-NEXT:      %y = cublaslt_rt.alloc : memref<8x32xbf16>
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%r : memref<8x32xbf16>) d(%y : memref<8x32xbf16>)
// CHECK-NEXT:      %z = cublaslt_rt.alloc : memref<8x32xbf16>
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) bias(%b : memref<32xbf16>) d(%z : memref<8x32xbf16>)
// CHECK-NEXT:      func.return %y, %z : memref<8x32xbf16>, memref<8x32xbf16>
func.func @residual_then_bias(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>, %r: tensor<8x32xbf16>, %b: tensor<32xbf16>) -> (tensor<8x32xbf16>, tensor<8x32xbf16>) {
  %y = cublaslt.matmul %w, %x c(%r : tensor<8x32xbf16>) {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<32x16xbf16>, tensor<8x16xbf16> -> tensor<8x32xbf16>
  %z = cublaslt.matmul %w, %x bias(%b : tensor<32xbf16>) {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype bf16>, d_dtype = #cublaslt<dtype bf16>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 0.0 : f64, epilogue = #cublaslt<epilogue relu_bias>} : tensor<32x16xbf16>, tensor<8x16xbf16> -> tensor<8x32xbf16>
  func.return %y, %z : tensor<8x32xbf16>, tensor<8x32xbf16>
}

// -----

// The legal residual-and-cast fusion: C is cast to f32 first (an hl.cast launch), and
// the call reads and writes f32.
// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    cublaslt_rt.plan @plan0 {
// CHECK-SAME:      c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>,
// CHECK-NEXT:    func.func @residual_cast(%x: memref<8x16xbf16>, %w: memref<32x16xbf16>, %r: memref<8x32xbf16>) -> memref<8x32xf32> {
// CHECK-NEXT:      %rf = cublaslt_rt.alloc : memref<8x32xf32>
// CHECK-NEXT:      cublaslt_rt.launch "hl.cast" ins(%r : memref<8x32xbf16>) outs(%rf : memref<8x32xf32>)
// CHECK-NEXT:      %y = cublaslt_rt.alloc : memref<8x32xf32>
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%w : memref<32x16xbf16>) b(%x : memref<8x16xbf16>) c(%rf : memref<8x32xf32>) d(%y : memref<8x32xf32>)
// CHECK-NEXT:      func.return %y : memref<8x32xf32>
func.func @residual_cast(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xf32> {
  %rf = hl.cast %r : tensor<8x32xbf16> -> tensor<8x32xf32>
  %y = cublaslt.matmul %w, %x c(%rf : tensor<8x32xf32>) {transa = #cublaslt<trans t>, transb = #cublaslt<trans n>, order_a = #cublaslt<order col>, order_b = #cublaslt<order col>, order_c = #cublaslt<order col>, order_d = #cublaslt<order col>, m = 32 : i64, n = 8 : i64, k = 16 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 32 : i64, ldd = 32 : i64, batch_count = 1 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, stride_d = 0 : i64, a_dtype = #cublaslt<dtype bf16>, b_dtype = #cublaslt<dtype bf16>, c_dtype = #cublaslt<dtype f32>, d_dtype = #cublaslt<dtype f32>, compute_type = #cublaslt<compute compute_32f>, scale_type = #cublaslt<dtype f32>, alpha = 1.0 : f64, beta = 1.0 : f64, epilogue = #cublaslt<epilogue default>} : tensor<32x16xbf16>, tensor<8x16xbf16> -> tensor<8x32xf32>
  func.return %y : tensor<8x32xf32>
}
