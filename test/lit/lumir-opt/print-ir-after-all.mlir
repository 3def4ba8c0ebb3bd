// RUN: lumir-opt %S/../../../examples/mlp_block.mlir -p lumir-pipeline --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: lumir-opt %S/../../../examples/mlp_block.mlir -p 'lumir-pipeline{stop_after=hl-to-cublaslt}' --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=STOP

// lumir-pipeline is a pipeline of passes, not one opaque pass: the driver runs (and
// verifies) each stage on its own, so --print-ir-after-all prints the IR after every
// stage, the last one included. The lowering leaves one buffer per value; the buffer
// plan (share-buffers) places them in one arena last, after group-gemv.
// CHECK:      // -----// IR Dump After hl-canonicalize //----- //
// CHECK:        func.func @mlp_block(
// CHECK:          hl.transpose %w1
// CHECK:          hl.gelu
// CHECK:      // -----// IR Dump After hl-to-cublaslt //----- //
// CHECK:          %h = cublaslt.matmul %w1, %x
// CHECK:          hl.gelu
// CHECK:      // -----// IR Dump After cublaslt-fuse //----- //
// CHECK:          %g = cublaslt.matmul %w1, %x bias(%b1 : tensor<512xbf16>)
// CHECK:          %r = cublaslt.matmul %w2, %g c(%x : tensor<6x256xbf16>)
// CHECK:      // -----// IR Dump After cublaslt-verify //----- //
// CHECK:          %r = cublaslt.matmul %w2, %g c(%x : tensor<6x256xbf16>)
// CHECK:      // -----// IR Dump After lower-to-cublaslt-rt //----- //
// CHECK:        func.func @mlp_block(%x: memref<6x256xbf16>
// CHECK-NOT:      %arena
// CHECK:          cublaslt_rt.alloc
// CHECK:      // -----// IR Dump After group-gemv //----- //
// CHECK:      // -----// IR Dump After share-buffers //----- //
// CHECK:          %arena = cublaslt_rt.alloc
// CHECK-NOT:  IR Dump After

// stop_after ends the pipeline, and its dumps, after the named stage.
// STOP:       IR Dump After hl-canonicalize
// STOP:       IR Dump After hl-to-cublaslt
// STOP-NOT:   IR Dump After
