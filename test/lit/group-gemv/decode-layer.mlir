// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt{share_buffers=false},group-gemv' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,lower-to-cublaslt-rt{share_buffers=false},group-gemv,group-gemv' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline{group_gemv=false}' | filecheck %s --check-prefix=OFF
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline{gemv=false}' | filecheck %s --check-prefix=OFF

// A decode layer's projections at one activation row run as lumir's GEMV. Those that
// read one activation run as one launch: q, k and v of %x, gate and up of %h. The
// launch sits where its first member was; a later member moves up to it past ops that
// neither write what it reads nor touch what it writes (here the op standing for the
// rotary reads k, and silu reads gate). A second run changes nothing; with group_gemv
// or gemv off there is no group.

// CHECK-LABEL: func.func @decode_layer(
// CHECK-NEXT:    %q = cublaslt_rt.alloc : memref<1x128xbf16>
// CHECK-NEXT:    %k = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    %v = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%wq : memref<128x256xbf16>) b(%x : memref<1x256xbf16>) d(%q : memref<1x128xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%wk : memref<64x256xbf16>) b(%x : memref<1x256xbf16>) d(%k : memref<1x64xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan2 a(%wv : memref<64x256xbf16>) b(%x : memref<1x256xbf16>) d(%v : memref<1x64xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    %rk = cublaslt_rt.alloc : memref<1x64xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.neg" ins(%k : memref<1x64xbf16>) outs(%rk : memref<1x64xbf16>)
// CHECK-NEXT:    %g = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    %u = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan3 a(%wg : memref<512x256xbf16>) b(%h : memref<1x256xbf16>) d(%g : memref<1x512xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan4 a(%wu : memref<512x256xbf16>) b(%h : memref<1x256xbf16>) d(%u : memref<1x512xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    cublaslt_rt.launch "hl.silu" ins(%g : memref<1x512xbf16>) outs(%s : memref<1x512xbf16>)
// CHECK:         func.return
// OFF-LABEL:   func.func @decode_layer(
// OFF-NOT:       cublaslt_rt.matmul_group
// OFF:           func.return
func.func @decode_layer(%x: tensor<1x256xbf16>, %wq: tensor<128x256xbf16>, %wk: tensor<64x256xbf16>, %wv: tensor<64x256xbf16>, %h: tensor<1x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>) -> (tensor<1x128xbf16>, tensor<1x64xbf16>, tensor<1x64xbf16>, tensor<1x512xbf16>) {
  %q = hl.linear %x, %wq : tensor<1x256xbf16>, tensor<128x256xbf16> -> tensor<1x128xbf16>
  %k = hl.linear %x, %wk : tensor<1x256xbf16>, tensor<64x256xbf16> -> tensor<1x64xbf16>
  %rk = hl.neg %k : tensor<1x64xbf16> -> tensor<1x64xbf16>
  %v = hl.linear %x, %wv : tensor<1x256xbf16>, tensor<64x256xbf16> -> tensor<1x64xbf16>
  %g = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %s = hl.silu %g : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %u = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %m = hl.mul %s, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  func.return %q, %rk, %v, %m : tensor<1x128xbf16>, tensor<1x64xbf16>, tensor<1x64xbf16>, tensor<1x512xbf16>
}

// -----

// Llama-1B's shapes: q (2048 rows), k and v (512 rows each) run with one block shape
// (two rows per program, 2048 columns a step, 2 warps), so the three share a launch and
// each is summed as in its own launch.
// CHECK-LABEL: func.func @llama_1b_qkv(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%wq : memref<2048x2048xbf16>) b(%x : memref<1x2048xbf16>) d(%q : memref<1x2048xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%wk : memref<512x2048xbf16>) b(%x : memref<1x2048xbf16>) d(%k : memref<1x512xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan2 a(%wv : memref<512x2048xbf16>) b(%x : memref<1x2048xbf16>) d(%v : memref<1x512xbf16>)
// CHECK-NEXT:    }
// OFF-LABEL:   func.func @llama_1b_qkv(
// OFF-NOT:       cublaslt_rt.matmul_group
// OFF:           func.return
func.func @llama_1b_qkv(%x: tensor<1x2048xbf16>, %wq: tensor<2048x2048xbf16>, %wk: tensor<512x2048xbf16>, %wv: tensor<512x2048xbf16>) -> (tensor<1x2048xbf16>, tensor<1x512xbf16>, tensor<1x512xbf16>) {
  %q = hl.linear %x, %wq : tensor<1x2048xbf16>, tensor<2048x2048xbf16> -> tensor<1x2048xbf16>
  %k = hl.linear %x, %wk : tensor<1x2048xbf16>, tensor<512x2048xbf16> -> tensor<1x512xbf16>
  %v = hl.linear %x, %wv : tensor<1x2048xbf16>, tensor<512x2048xbf16> -> tensor<1x512xbf16>
  func.return %q, %k, %v : tensor<1x2048xbf16>, tensor<1x512xbf16>, tensor<1x512xbf16>
}
