// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},group-gemv,gemv-epilogue,gemv-prologue' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},group-gemv,gemv-epilogue,gemv-prologue,gemv-prologue' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline{gemv_prologue=true}' | filecheck %s --check-prefix=PIPE
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline{gemv_prologue=false}' | filecheck %s --check-prefix=OFF
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline' | filecheck %s --check-prefix=OFF

// A decode step's MLP: the post-attention RMSNorm, gate and up (one GEMV group whose
// epilogue is SiLU(gate) * up), down and the residual. The norm's launch becomes the
// group's prologue: the group is then the norm, the members and the epilogue, in that
// order (one kernel on CUDA). A second run changes nothing; the whole pipeline does the
// same; with the option off the norm stays before the group, which keeps its epilogue.

// CHECK-LABEL: func.func @mlp(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x256xbf16>
// CHECK-NEXT:    %gt = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    %up = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    %mm = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>) {
// CHECK:             hl.mean
// CHECK:             hl.rsqrt
// CHECK:             hl.yield %{{.*}} : tensor<1x256xbf16>
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%wg : memref<512x256xbf16>) b(%h : memref<1x256xbf16>) d(%gt : memref<1x512xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%wu : memref<512x256xbf16>) b(%h : memref<1x256xbf16>) d(%up : memref<1x512xbf16>)
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%gt, %up : memref<1x512xbf16>, memref<1x512xbf16>) outs(%mm : memref<1x512xbf16>) {
// CHECK-NEXT:      ^bb0(%{{.*}}: tensor<1x512xbf16>, %{{.*}}: tensor<1x512xbf16>):
// CHECK-NEXT:        %{{.*}} = hl.silu
// CHECK-NEXT:        %{{.*}} = hl.mul
// CHECK-NEXT:        hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<1x256xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul @plan2 a(%wd : memref<256x512xbf16>) b(%mm : memref<1x512xbf16>) d(%y : memref<1x256xbf16>)
// PIPE-LABEL:  func.func @mlp(
// PIPE-NOT:      cublaslt_rt.fused_launch
// PIPE:          cublaslt_rt.matmul_group {
// PIPE-NEXT:       cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// PIPE:            hl.rsqrt
// PIPE:          }
// PIPE-NEXT:       cublaslt_rt.matmul @plan0 {{.*}} b(%h : memref<1x256xbf16>)
// PIPE-NEXT:       cublaslt_rt.matmul @plan1 {{.*}} b(%h : memref<1x256xbf16>)
// PIPE-NEXT:       cublaslt_rt.fused_launch ins(%gt, %up
// PIPE:            hl.silu
// OFF-LABEL:   func.func @mlp(
// OFF:           cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// OFF:             hl.yield
// OFF-NEXT:      }
// OFF-NOT:       cublaslt_rt.fused_launch
// OFF:           cublaslt_rt.matmul_group {
// OFF-NEXT:        cublaslt_rt.matmul @plan0
// OFF-NEXT:        cublaslt_rt.matmul @plan1
// OFF-NEXT:        cublaslt_rt.fused_launch ins(%gt, %up
func.func @mlp(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>, %wd: tensor<256x512xbf16>) -> tensor<1x256xbf16> {
  %xf = hl.cast %x : tensor<1x256xbf16> -> tensor<1x256xf32>
  %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
  %p = hl.pow %xf, %two : (tensor<1x256xf32>, tensor<f32>) -> tensor<1x256xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x256xf32> -> tensor<1x1xf32>
  %eps = hl.constant {value = dense<1.0e-05> : tensor<f32>} : tensor<f32>
  %me = hl.add %m, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %q = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
  %s = hl.mul %xf, %q : (tensor<1x256xf32>, tensor<1x1xf32>) -> tensor<1x256xf32>
  %sb = hl.cast %s : tensor<1x256xf32> -> tensor<1x256xbf16>
  %h = hl.mul %g, %sb : (tensor<256xbf16>, tensor<1x256xbf16>) -> tensor<1x256xbf16>
  %gt = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %up = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %sg = hl.silu %gt : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %mm = hl.mul %sg, %up : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  %y = hl.linear %mm, %wd : tensor<1x512xbf16>, tensor<256x512xbf16> -> tensor<1x256xbf16>
  %r = hl.add %y, %x : (tensor<1x256xbf16>, tensor<1x256xbf16>) -> tensor<1x256xbf16>
  func.return %r : tensor<1x256xbf16>
}

// -----

// The residual adds the norm, not the layer's input: the norm is read after the group
// (by the add, or by the down projection as its C once the pipeline folds the add), so
// the group's kernel, which never writes it, may not take it.
// CHECK-LABEL: func.func @norm_in_residual(
// CHECK:         cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0
// CHECK-NEXT:      cublaslt_rt.matmul @plan1
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%gt, %up
// CHECK:         cublaslt_rt.launch "hl.add" ins(%y, %h : memref<1x256xbf16>, memref<1x256xbf16>)
// PIPE-LABEL:  func.func @norm_in_residual(
// PIPE:          cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// PIPE:          cublaslt_rt.matmul_group {
// PIPE-NEXT:       cublaslt_rt.matmul @plan0
// PIPE-NEXT:       cublaslt_rt.matmul @plan1
// PIPE:          cublaslt_rt.matmul @plan2 a(%wd : memref<256x512xbf16>) b(%mm : memref<1x512xbf16>) c(%h : memref<1x256xbf16>)
// OFF-LABEL:   func.func @norm_in_residual(
func.func @norm_in_residual(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>, %wd: tensor<256x512xbf16>) -> tensor<1x256xbf16> {
  %xf = hl.cast %x : tensor<1x256xbf16> -> tensor<1x256xf32>
  %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
  %p = hl.pow %xf, %two : (tensor<1x256xf32>, tensor<f32>) -> tensor<1x256xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x256xf32> -> tensor<1x1xf32>
  %eps = hl.constant {value = dense<1.0e-05> : tensor<f32>} : tensor<f32>
  %me = hl.add %m, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %q = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
  %s = hl.mul %xf, %q : (tensor<1x256xf32>, tensor<1x1xf32>) -> tensor<1x256xf32>
  %sb = hl.cast %s : tensor<1x256xf32> -> tensor<1x256xbf16>
  %h = hl.mul %g, %sb : (tensor<256xbf16>, tensor<1x256xbf16>) -> tensor<1x256xbf16>
  %gt = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %up = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %sg = hl.silu %gt : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %mm = hl.mul %sg, %up : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  %y = hl.linear %mm, %wd : tensor<1x512xbf16>, tensor<256x512xbf16> -> tensor<1x256xbf16>
  %r = hl.add %y, %h : (tensor<1x256xbf16>, tensor<1x256xbf16>) -> tensor<1x256xbf16>
  func.return %r : tensor<1x256xbf16>
}
