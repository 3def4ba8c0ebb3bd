// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.view verifier: the view lies inside its source, at an offset its element
// type can start at, and both are dense buffers.

func.func @past_the_end(%arena: memref<512xi8>) {
  // expected-error @+1 {{'cublaslt_rt.view' a memref<4x8xf32> at byte 448 ends at byte 576, past the 512 bytes of its source memref<512xi8>}}
  %a = cublaslt_rt.view %arena {byte_offset = 448 : i64} : memref<512xi8> -> memref<4x8xf32>
  func.return
}

// -----

func.func @misaligned(%arena: memref<512xi8>) {
  // expected-error @+1 {{'cublaslt_rt.view' byte_offset = 2, but it must be a non-negative multiple of 4 (the byte width of f32)}}
  %a = cublaslt_rt.view %arena {byte_offset = 2 : i64} : memref<512xi8> -> memref<4x8xf32>
  func.return
}

// -----

func.func @negative(%arena: memref<512xi8>) {
  // expected-error @+1 {{'cublaslt_rt.view' byte_offset = -2, but it must be a non-negative multiple of 2 (the byte width of bf16)}}
  %a = cublaslt_rt.view %arena {byte_offset = -2 : i64} : memref<512xi8> -> memref<4xbf16>
  func.return
}

// -----

func.func @strided(%x: memref<4x8xf32>) {
  // expected-error @+1 {{'cublaslt_rt.view' result: buffer memref<8x4xf32, strided<[1, 8]>> has a layout; buffers are dense and row-major}}
  %t = cublaslt_rt.view %x {byte_offset = 0 : i64} : memref<4x8xf32> -> memref<8x4xf32, strided<[1, 8]>>
  func.return
}

// -----

// A view as index elements: index has no byte width, so the offset check has no unit
// (the verifier asserted).
func.func @index_view(%a: memref<16xi8>) {
  // expected-error @+1 {{'cublaslt_rt.view' result: buffer memref<2xindex> holds index, which has no byte width}}
  %v = cublaslt_rt.view %a {byte_offset = 0 : i64} : memref<16xi8> -> memref<2xindex>
  func.return
}
