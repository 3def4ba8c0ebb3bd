// RUN: lumir-opt %s -p lower-to-cublaslt-rt --split-input-file | filecheck %s
// RUN: lumir-opt %s -p lower-to-cublaslt-rt,lower-to-cublaslt-rt --split-input-file | filecheck %s

// The buffer plan: a function's intermediates live in one arena (an i8 buffer), each a
// cublaslt_rt.view at a byte offset, sharing bytes only between values whose lifetimes
// do not overlap. Arguments, constants and results keep their own buffers. (The second
// RUN line shows a second run leaves a planned function alone.)

// Values in a chain die one by one: each new buffer takes the lowest 256-byte-aligned
// offset that clears every buffer still live at its alloc. %d reuses %b's bytes (%b was
// last read by %c's launch), %e reuses %a's (last read by %d's). The result %f is never
// placed: the caller reads it after the call.
// CHECK-LABEL: func.func @chain(%x: memref<4x8xf32>) -> memref<4x8xf32> {
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<768xi8>
// CHECK-NEXT:    %a = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<768xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
// CHECK-NEXT:    %b = cublaslt_rt.view %arena {byte_offset = 256 : i64} : memref<768xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
// CHECK-NEXT:    %c = cublaslt_rt.view %arena {byte_offset = 512 : i64} : memref<768xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
// CHECK-NEXT:    %d = cublaslt_rt.view %arena {byte_offset = 256 : i64} : memref<768xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%c, %a : memref<4x8xf32>, memref<4x8xf32>) outs(%d : memref<4x8xf32>)
// CHECK-NEXT:    %e = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<768xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%d : memref<4x8xf32>) outs(%e : memref<4x8xf32>)
// CHECK-NEXT:    %f = cublaslt_rt.alloc : memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%e : memref<4x8xf32>) outs(%f : memref<4x8xf32>)
// CHECK-NEXT:    func.return %f : memref<4x8xf32>
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = hl.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = hl.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = hl.exp %b : tensor<4x8xf32> -> tensor<4x8xf32>
  %d = hl.add %c, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = hl.neg %d : tensor<4x8xf32> -> tensor<4x8xf32>
  %f = hl.exp %e : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %f : tensor<4x8xf32>
}

// -----

// Buffers of different sizes, first-fit: %wide (256 bytes) fits below %small, which is
// still live; views keep their offsets relative to their source. %s is a result, so it
// has its own buffer even though a later value reads it.
// CHECK-LABEL: func.func @sizes(%x: memref<4x8xf32>) -> (memref<4x1xf32>, memref<4x8xf32>) {
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<512xi8>
// CHECK-NEXT:    %big = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<512xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x : memref<4x8xf32>) outs(%big : memref<4x8xf32>)
// CHECK-NEXT:    %small = cublaslt_rt.view %arena {byte_offset = 256 : i64} : memref<512xi8> -> memref<4x1xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.sum" {dims = array<i64: 1>, keepdim} ins(%big : memref<4x8xf32>) outs(%small : memref<4x1xf32>)
// CHECK-NEXT:    %wide = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<512xi8> -> memref<4x16xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.cat" {dim = 1 : i64} ins(%x, %x : memref<4x8xf32>, memref<4x8xf32>) outs(%wide : memref<4x16xf32>)
// CHECK-NEXT:    %flat = cublaslt_rt.view %wide {byte_offset = 0 : i64} : memref<4x16xf32> -> memref<64xf32>
// CHECK-NEXT:    %s = cublaslt_rt.alloc : memref<4x1xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%small : memref<4x1xf32>) outs(%s : memref<4x1xf32>)
// CHECK-NEXT:    %half = cublaslt_rt.view %flat {byte_offset = 0 : i64} : memref<64xf32> -> memref<32xf32>
// CHECK-NEXT:    %r = cublaslt_rt.view %half {byte_offset = 0 : i64} : memref<32xf32> -> memref<4x8xf32>
// CHECK-NEXT:    %t = cublaslt_rt.alloc : memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.mul" ins(%r, %s : memref<4x8xf32>, memref<4x1xf32>) outs(%t : memref<4x8xf32>)
// CHECK-NEXT:    func.return %s, %t : memref<4x1xf32>, memref<4x8xf32>
func.func @sizes(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) {
  %big = hl.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %small = hl.sum %big {dims = array<i64: 1>, keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>
  %wide = hl.cat %x, %x {dim = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %flat = hl.reshape %wide : tensor<4x16xf32> -> tensor<64xf32>
  %s = hl.exp %small : tensor<4x1xf32> -> tensor<4x1xf32>
  %half = hl.slice %flat {dim = 0 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : tensor<64xf32> -> tensor<32xf32>
  %r = hl.reshape %half : tensor<32xf32> -> tensor<4x8xf32>
  %t = hl.mul %r, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %s, %t : tensor<4x1xf32>, tensor<4x8xf32>
}

// -----

// A view keeps its source alive: %a is read through %flat by the last launch, so %b
// may not take its bytes.
// CHECK-LABEL: func.func @view_keeps_source_alive(%x: memref<4x8xf32>) -> memref<32xf32> {
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<512xi8>
// CHECK-NEXT:    %a = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<512xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
// CHECK-NEXT:    %flat = cublaslt_rt.view %a {byte_offset = 0 : i64} : memref<4x8xf32> -> memref<32xf32>
// CHECK-NEXT:    %b = cublaslt_rt.view %arena {byte_offset = 256 : i64} : memref<512xi8> -> memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%x : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
// CHECK-NEXT:    %bflat = cublaslt_rt.view %b {byte_offset = 0 : i64} : memref<4x8xf32> -> memref<32xf32>
// CHECK-NEXT:    %c = cublaslt_rt.alloc : memref<32xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.add" ins(%flat, %bflat : memref<32xf32>, memref<32xf32>) outs(%c : memref<32xf32>)
// CHECK-NEXT:    func.return %c : memref<32xf32>
func.func @view_keeps_source_alive(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %a = hl.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %flat = hl.reshape %a : tensor<4x8xf32> -> tensor<32xf32>
  %b = hl.neg %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %bflat = hl.reshape %b : tensor<4x8xf32> -> tensor<32xf32>
  %c = hl.add %flat, %bflat : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  func.return %c : tensor<32xf32>
}

// -----

// A result that is a view of an intermediate keeps that intermediate out of the arena.
// CHECK-LABEL: func.func @returned_view(%x: memref<4x8xf32>) -> memref<32xf32> {
// CHECK-NEXT:    %a = cublaslt_rt.alloc : memref<4x8xf32>
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
// CHECK-NEXT:    %flat = cublaslt_rt.view %a {byte_offset = 0 : i64} : memref<4x8xf32> -> memref<32xf32>
// CHECK-NEXT:    func.return %flat : memref<32xf32>
func.func @returned_view(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %a = hl.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %flat = hl.reshape %a : tensor<4x8xf32> -> tensor<32xf32>
  func.return %flat : tensor<32xf32>
}
