// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt{share_buffers=false},share-buffers' | filecheck %s
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt{share_buffers=false},share-buffers,share-buffers' | filecheck %s
// RUN: lumir-opt %s -p share-buffers | filecheck %s --check-prefix=HL
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,share-buffers' | filecheck %s --check-prefix=CUBLASLT

// share-buffers places a lowered function's intermediates in one arena: %a dies at
// the neg that writes %b, so %c reuses %a's bytes and %d reuses %b's; the returned %e
// keeps an allocation of its own. A second run finds the function placed and changes
// nothing. A function not yet on buffers (hl or cublaslt IR, whose arguments and
// results are tensors) has no intermediates to place and is left as it is.

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<2048xi8>
// CHECK-NEXT:    %a = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// CHECK-NEXT:    cublaslt_rt.matmul @plan0
// CHECK-NEXT:    %b = cublaslt_rt.view %arena {byte_offset = 1024 : i64}
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%a : memref<4x64xf32>) outs(%b : memref<4x64xf32>)
// CHECK-NEXT:    %c = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// CHECK-NEXT:    cublaslt_rt.matmul @plan1
// CHECK-NEXT:    %d = cublaslt_rt.view %arena {byte_offset = 1024 : i64}
// CHECK-NEXT:    cublaslt_rt.launch "hl.exp" ins(%c : memref<4x64xf32>) outs(%d : memref<4x64xf32>)
// CHECK-NEXT:    %e = cublaslt_rt.alloc : memref<4x64xf32>
// CHECK-NEXT:    cublaslt_rt.matmul @plan2
// CHECK-NEXT:    func.return %e : memref<4x64xf32>

// HL-LABEL: func.func @chain(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x64xf32> {
// HL-NEXT:    %a = hl.linear %x, %w
// HL-NOT:     cublaslt_rt

// CUBLASLT-LABEL: func.func @chain(
// CUBLASLT:       cublaslt.matmul
// CUBLASLT-NOT:   cublaslt_rt
func.func @chain(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %a = hl.linear %x, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
  %b = hl.neg %a : tensor<4x64xf32> -> tensor<4x64xf32>
  %c = hl.linear %b, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
  %d = hl.exp %c : tensor<4x64xf32> -> tensor<4x64xf32>
  %e = hl.linear %d, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
  func.return %e : tensor<4x64xf32>
}
