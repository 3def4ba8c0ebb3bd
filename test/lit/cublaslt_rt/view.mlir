// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.view: a dense buffer that is bytes [byte_offset, byte_offset + its size) of
// another buffer, aliasing it. The buffer plan places intermediates in an i8 arena with
// it; reshapes and leading-row slices are views of their input. Views of views compose.

// CHECK-LABEL: func.func @views(%x: memref<4x8xbf16>) -> memref<2x8xbf16> {
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<1024xi8>
// CHECK-NEXT:    %a = cublaslt_rt.view %arena {byte_offset = 256 : i64} : memref<1024xi8> -> memref<4x8xf32>
// CHECK-NEXT:    %flat = cublaslt_rt.view %x {byte_offset = 0 : i64} : memref<4x8xbf16> -> memref<32xbf16>
// CHECK-NEXT:    %rows = cublaslt_rt.view %x {byte_offset = 32 : i64} : memref<4x8xbf16> -> memref<2x8xbf16>
// CHECK-NEXT:    %mask = cublaslt_rt.view %arena {byte_offset = 1023 : i64} : memref<1024xi8> -> memref<i1>
// CHECK-NEXT:    func.return %rows : memref<2x8xbf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "views"
// GENERIC:         %a = "cublaslt_rt.view"(%arena) <{byte_offset = 256 : i64}> : (memref<1024xi8>) -> memref<4x8xf32>
func.func @views(%x: memref<4x8xbf16>) -> memref<2x8xbf16> {
  %arena = cublaslt_rt.alloc : memref<1024xi8>
  %a = cublaslt_rt.view %arena {byte_offset = 256 : i64} : memref<1024xi8> -> memref<4x8xf32>
  %flat = cublaslt_rt.view %x {byte_offset = 0 : i64} : memref<4x8xbf16> -> memref<32xbf16>
  %rows = cublaslt_rt.view %x {byte_offset = 32 : i64} : memref<4x8xbf16> -> memref<2x8xbf16>
  %mask = cublaslt_rt.view %arena {byte_offset = 1023 : i64} : memref<1024xi8> -> memref<i1>
  func.return %rows : memref<2x8xbf16>
}
