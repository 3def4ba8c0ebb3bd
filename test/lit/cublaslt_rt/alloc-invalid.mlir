// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.alloc verifier: a buffer is a dense row-major memref with a static shape.

func.func @dynamic() {
  // expected-error @+1 {{'cublaslt_rt.alloc' buffer memref<?x4xf32> has a dynamic dimension; buffers have static shapes}}
  %a = cublaslt_rt.alloc : memref<?x4xf32>
  func.return
}

// -----

func.func @strided() {
  // expected-error @+1 {{'cublaslt_rt.alloc' buffer memref<4x4xf32, strided<[8, 1]>> has a layout; buffers are dense and row-major}}
  %a = cublaslt_rt.alloc : memref<4x4xf32, strided<[8, 1]>>
  func.return
}

// -----

func.func @memory_space() {
  // expected-error @+1 {{'cublaslt_rt.alloc' buffer memref<4xf32, 1 : i64> has a memory space; executors place every buffer}}
  %a = cublaslt_rt.alloc : memref<4xf32, 1 : i64>
  func.return
}

// -----

func.func @tensor() {
  // expected-error @+2 {{result 'memref' at position 0 does not verify}}
  // expected-error @+1 {{tensor<4xf32> should be of base attribute memref}}
  %a = "cublaslt_rt.alloc"() : () -> tensor<4xf32>
  func.return
}

// -----

// An element type without a byte width (index, complex) has no buffer layout.
func.func @index_elements() {
  // expected-error @+1 {{'cublaslt_rt.alloc' buffer memref<2xindex> holds index, which has no byte width; buffers hold elements of a fixed width (f32, bf16, i64, ...)}}
  %a = cublaslt_rt.alloc : memref<2xindex>
  func.return
}
