// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.launch verifier: the kernel is an hl op, and that op's own verifier
// accepts the buffers' types and the params; the output is not also an input.

func.func @unknown_kernel(%a: memref<4xf32>, %r: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' kernel "hl.frobnicate" is not an hl op that runs as a kernel (constants are cublaslt_rt.constant)}}
  cublaslt_rt.launch "hl.frobnicate" ins(%a : memref<4xf32>) outs(%r : memref<4xf32>)
  func.return
}

// -----

func.func @constant_kernel(%r: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' kernel "hl.constant" is not an hl op that runs as a kernel}}
  cublaslt_rt.launch "hl.constant" {value = dense<1.0> : tensor<4xf32>} ins() outs(%r : memref<4xf32>)
  func.return
}

// -----

// hl.add's verifier sees tensor<4xf32> + tensor<3xf32>.
func.func @shapes(%a: memref<4xf32>, %b: memref<3xf32>, %r: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.add on these buffers: 'hl.add' operand shapes [4] and [3] do not broadcast}}
  cublaslt_rt.launch "hl.add" ins(%a, %b : memref<4xf32>, memref<3xf32>) outs(%r : memref<4xf32>)
  func.return
}

// -----

func.func @output_type(%a: memref<4xbf16>, %r: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.relu on these buffers: 'hl.relu' result type tensor<4xf32> does not match the inferred type tensor<4xbf16>}}
  cublaslt_rt.launch "hl.relu" ins(%a : memref<4xbf16>) outs(%r : memref<4xf32>)
  func.return
}

// -----

// softmax needs its dim property.
func.func @missing_param(%a: memref<4x8xf32>, %r: memref<4x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.softmax on these buffers: property 'dim' expected}}
  cublaslt_rt.launch "hl.softmax" ins(%a : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  func.return
}

// -----

func.func @bad_param(%a: memref<4x8xf32>, %r: memref<4x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.softmax on these buffers: 'hl.softmax' dimension 2 is out of range for rank 2}}
  cublaslt_rt.launch "hl.softmax" {dim = 2 : i64} ins(%a : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  func.return
}

// -----

func.func @in_place(%a: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.relu reads the buffer it writes (only hl.index_copy, hl.add, hl.sub, hl.mul, hl.div, hl.maximum, hl.neg, hl.cast may write their first input in place)}}
  cublaslt_rt.launch "hl.relu" ins(%a : memref<4xf32>) outs(%a : memref<4xf32>)
  func.return
}

// -----

// An in-place kernel may write its first input, never another one.
func.func @in_place_second(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.add reads the buffer it writes}}
  cublaslt_rt.launch "hl.add" ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%b : memref<4xf32>)
  func.return
}

// -----

func.func @dynamic(%a: memref<?xf32>, %r: memref<?xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' input: buffer memref<?xf32> has a dynamic dimension}}
  cublaslt_rt.launch "hl.relu" ins(%a : memref<?xf32>) outs(%r : memref<?xf32>)
  func.return
}
