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

// -----

// Only the kernels of STRIDED_KERNELS (hl.sdpa) read through permuted views.
func.func @permuted_add(%a: memref<4x8xf32>, %r: memref<8x4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.neg reads and writes dense buffers; only hl.sdpa takes input_windows, input_permutations or output_permutation}}
  cublaslt_rt.launch "hl.neg" ins(%a : memref<4x8xf32>) outs(%r : memref<8x4xf32>) {output_permutation = array<i64: 1, 0>}
  func.return
}

// -----

// One permutation per input.
func.func @permutation_count(%q: memref<2x5x8xf32>, %k: memref<2x5x8xf32>, %v: memref<2x5x8xf32>, %o: memref<2x5x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' input_permutations has 2 entries for 3 inputs; give one permutation per input}}
  cublaslt_rt.launch "hl.sdpa" ins(%q, %k, %v : memref<2x5x8xf32>, memref<2x5x8xf32>, memref<2x5x8xf32>) outs(%o : memref<2x5x8xf32>) {input_permutations = [array<i64: 0, 1, 2>, array<i64: 0, 1, 2>]}
  func.return
}

// -----

// Each entry is a permutation of its buffer's dimensions.
func.func @not_a_permutation(%q: memref<2x5x8xf32>, %k: memref<2x5x8xf32>, %v: memref<2x5x8xf32>, %o: memref<2x5x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' input 1 permutation [0, 0, 2] is not a permutation of the 3 dimensions of memref<2x5x8xf32>}}
  cublaslt_rt.launch "hl.sdpa" ins(%q, %k, %v : memref<2x5x8xf32>, memref<2x5x8xf32>, memref<2x5x8xf32>) outs(%o : memref<2x5x8xf32>) {input_permutations = [array<i64: 0, 1, 2>, array<i64: 0, 0, 2>, array<i64: 0, 1, 2>]}
  func.return
}

// -----

// torch's SDPA kernels need the last dimension contiguous: a view may not move it.
func.func @moves_last_dim(%q: memref<2x5x8xf32>, %k: memref<2x5x8xf32>, %v: memref<2x5x8xf32>, %o: memref<2x8x5xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' output permutation [0, 2, 1] moves the last dimension; the kernel needs it last and contiguous (stride 1)}}
  cublaslt_rt.launch "hl.sdpa" ins(%q, %k, %v : memref<2x5x8xf32>, memref<2x5x8xf32>, memref<2x5x8xf32>) outs(%o : memref<2x8x5xf32>) {output_permutation = array<i64: 0, 2, 1>}
  func.return
}

// -----

// The hl op is verified on the viewed types: v [1, 6, 2, 16] read unpermuted has S = 2
// rows while k has 6.
func.func @viewed_types_disagree(%q: memref<1x4x6x16xf32>, %k: memref<1x4x6x16xf32>, %v: memref<1x6x4x16xf32>, %o: memref<1x4x6x16xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' hl.sdpa on these buffers: 'hl.sdpa' shapes disagree: query [1, 4, 6, 16], key [1, 4, 6, 16], value [1, 6, 4, 16]}}
  cublaslt_rt.launch "hl.sdpa" ins(%q, %k, %v : memref<1x4x6x16xf32>, memref<1x4x6x16xf32>, memref<1x6x4x16xf32>) outs(%o : memref<1x4x6x16xf32>) {input_permutations = [array<i64: 0, 1, 2, 3>, array<i64: 0, 1, 2, 3>, array<i64: 0, 1, 2, 3>]}
  func.return
}

// -----

// One window (or an empty array) per input.
func.func @window_count(%qkv: memref<2x5x96xf32>, %o: memref<2x5x4x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' input_windows has 1 entries for 3 inputs; give one window (or an empty array) per input}}
  cublaslt_rt.launch "hl.sdpa" ins(%qkv, %qkv, %qkv : memref<2x5x96xf32>, memref<2x5x96xf32>, memref<2x5x96xf32>) outs(%o : memref<2x5x4x8xf32>) {input_windows = [array<i64: 0, 32, 2, 5, 4, 8>]}
  func.return
}

// -----

// A window is a non-empty range of the last dimension.
func.func @window_out_of_range(%qkv: memref<2x5x96xf32>, %o: memref<2x5x4x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' input 2 window on memref<2x5x96xf32>: [80, 112) is not a non-empty range of the last 96}}
  cublaslt_rt.launch "hl.sdpa" ins(%qkv, %qkv, %qkv : memref<2x5x96xf32>, memref<2x5x96xf32>, memref<2x5x96xf32>) outs(%o : memref<2x5x4x8xf32>) {input_windows = [array<i64: 0, 32, 2, 5, 4, 8>, array<i64: 32, 64, 2, 5, 4, 8>, array<i64: 80, 112, 2, 5, 4, 8>]}
  func.return
}

// -----

// Its shape keeps the leading dimensions and splits only the last one.
func.func @window_moves_rows(%qkv: memref<2x5x96xf32>, %o: memref<2x5x4x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' input 0 window on memref<2x5x96xf32>: shape [5, 2, 4, 8] does not keep the leading dimensions [2, 5] and split only the last}}
  cublaslt_rt.launch "hl.sdpa" ins(%qkv, %qkv, %qkv : memref<2x5x96xf32>, memref<2x5x96xf32>, memref<2x5x96xf32>) outs(%o : memref<2x5x4x8xf32>) {input_windows = [array<i64: 0, 32, 5, 2, 4, 8>, array<i64>, array<i64>]}
  func.return
}

// -----

// Its shape holds exactly the window's elements of a row.
func.func @window_size(%qkv: memref<2x5x96xf32>, %o: memref<2x5x4x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.launch' input 1 window on memref<2x5x96xf32>: shape [2, 5, 4, 16] does not split 32 elements}}
  cublaslt_rt.launch "hl.sdpa" ins(%qkv, %qkv, %qkv : memref<2x5x96xf32>, memref<2x5x96xf32>, memref<2x5x96xf32>) outs(%o : memref<2x5x4x8xf32>) {input_windows = [array<i64>, array<i64: 32, 64, 2, 5, 4, 16>, array<i64>]}
  func.return
}
