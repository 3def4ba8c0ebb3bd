// RUN: lumir-opt %s --split-input-file | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | lumir-opt --split-input-file | filecheck %s
// RUN: lumir-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// cublaslt_rt.alloc: a buffer the program owns, allocated once at load time. Any
// element type the runtime knows, any static shape, rank 0 included.

// CHECK-LABEL: func.func @buffers()
// CHECK-NEXT:    %a = cublaslt_rt.alloc : memref<64x32xbf16>
// CHECK-NEXT:    %b = cublaslt_rt.alloc : memref<2x3x4xf32>
// CHECK-NEXT:    %c = cublaslt_rt.alloc : memref<f16>
// CHECK-NEXT:    %d = cublaslt_rt.alloc : memref<6xi64>
// CHECK-NEXT:    %e = cublaslt_rt.alloc : memref<4x4xi1>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "buffers"
// GENERIC:         %a = "cublaslt_rt.alloc"() : () -> memref<64x32xbf16>
// GENERIC-NEXT:    %b = "cublaslt_rt.alloc"() : () -> memref<2x3x4xf32>
func.func @buffers() {
  %a = cublaslt_rt.alloc : memref<64x32xbf16>
  %b = cublaslt_rt.alloc : memref<2x3x4xf32>
  %c = cublaslt_rt.alloc : memref<f16>
  %d = cublaslt_rt.alloc : memref<6xi64>
  %e = cublaslt_rt.alloc : memref<4x4xi1>
  func.return
}
