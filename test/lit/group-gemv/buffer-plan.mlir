// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt,group-gemv' | filecheck %s --check-prefix=PLACED
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt{share_buffers=false},group-gemv,share-buffers' | filecheck %s
// RUN: lumir-opt %s -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt{share_buffers=false},group-gemv,share-buffers,share-buffers' | filecheck %s

// Why group-gemv runs before the buffer plan. Once the lowering has placed the buffers
// (its default), v's D shares q's bytes (q is dead once %nq has read it), so v cannot
// move up to q: it would overwrite q before the neg reads it. The dependence check
// compares bytes through views and keeps v where it is. Grouped first, q and v are both
// live at the group, and share-buffers places them apart; a second share-buffers
// changes nothing.

// PLACED-LABEL: func.func @placed(
// PLACED:         %q = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// PLACED:         %v = cublaslt_rt.view %arena {byte_offset = 0 : i64}
// PLACED-NOT:     cublaslt_rt.matmul_group
// PLACED:         func.return

// CHECK-LABEL: func.func @placed(
// CHECK-NEXT:    %arena = cublaslt_rt.alloc : memref<512xi8>
// CHECK-NEXT:    %q = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<512xi8> -> memref<1x128xbf16>
// CHECK-NEXT:    %v = cublaslt_rt.view %arena {byte_offset = 256 : i64} : memref<512xi8> -> memref<1x64xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%wq : memref<128x256xbf16>) b(%x : memref<1x256xbf16>) d(%q : memref<1x128xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%wv : memref<64x256xbf16>) b(%x : memref<1x256xbf16>) d(%v : memref<1x64xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    %nq = cublaslt_rt.alloc : memref<1x128xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%q : memref<1x128xbf16>) outs(%nq : memref<1x128xbf16>)
func.func @placed(%x: tensor<1x256xbf16>, %wq: tensor<128x256xbf16>, %wv: tensor<64x256xbf16>) -> (tensor<1x128xbf16>, tensor<1x64xbf16>) {
  %q = hl.linear %x, %wq : tensor<1x256xbf16>, tensor<128x256xbf16> -> tensor<1x128xbf16>
  %nq = hl.neg %q : tensor<1x128xbf16> -> tensor<1x128xbf16>
  %v = hl.linear %x, %wv : tensor<1x256xbf16>, tensor<64x256xbf16> -> tensor<1x64xbf16>
  %nv = hl.neg %v : tensor<1x64xbf16> -> tensor<1x64xbf16>
  func.return %nq, %nv : tensor<1x128xbf16>, tensor<1x64xbf16>
}
