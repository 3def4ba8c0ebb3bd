// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},group-gemv,gemv-epilogue,gemv-prologue' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},group-gemv,gemv-epilogue,gemv-prologue,gemv-prologue' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline{gemv_prologue=true}' | filecheck %s --check-prefix=PIPE
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline{gemv_prologue=false}' | filecheck %s --check-prefix=OFF
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline' | filecheck %s --check-prefix=OFF

// A decode step's input RMSNorm (one row of 256, f32 inside, times the bf16 weight) and
// the q, k and v projections that read it, one GEMV group: the norm's fused launch
// moves into the group as its prologue, before the members (one kernel on CUDA). A
// second run changes nothing; the whole pipeline does the same before it shares
// buffers; with the option off the launch stays before the group.

// CHECK-LABEL: func.func @attn_in(
// CHECK-NEXT:    %h = cublaslt_rt.alloc : memref<1x256xbf16>
// CHECK-NEXT:    %yq = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    %yk = cublaslt_rt.alloc : memref<1x256xbf16>
// CHECK-NEXT:    %yv = cublaslt_rt.alloc : memref<1x256xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>) {
// CHECK-NEXT:      ^bb0(%{{.*}}: tensor<1x256xbf16>, %{{.*}}: tensor<256xbf16>):
// CHECK-NEXT:        %xf = hl.cast
// CHECK-NEXT:        %two = hl.constant
// CHECK-NEXT:        %p = hl.pow
// CHECK-NEXT:        %m = hl.mean
// CHECK-NEXT:        %eps = hl.constant
// CHECK-NEXT:        %me = hl.add
// CHECK-NEXT:        %q = hl.rsqrt
// CHECK-NEXT:        %s = hl.mul
// CHECK-NEXT:        %sb = hl.cast
// CHECK-NEXT:        %{{.*}} = hl.mul
// CHECK-NEXT:        hl.yield %{{.*}} : tensor<1x256xbf16>
// CHECK-NEXT:      }
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%wq : memref<512x256xbf16>) b(%h : memref<1x256xbf16>) d(%yq : memref<1x512xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%wk : memref<256x256xbf16>) b(%h : memref<1x256xbf16>) d(%yk : memref<1x256xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan2 a(%wv : memref<256x256xbf16>) b(%h : memref<1x256xbf16>) d(%yv : memref<1x256xbf16>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %yq, %yk, %yv
// PIPE-LABEL:  func.func @attn_in(
// PIPE-NOT:      cublaslt_rt.fused_launch
// PIPE:          cublaslt_rt.matmul_group {
// PIPE-NEXT:       cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// PIPE:            hl.rsqrt
// PIPE:          }
// PIPE-NEXT:       cublaslt_rt.matmul @plan0 {{.*}} b(%h : memref<1x256xbf16>)
// PIPE-NEXT:       cublaslt_rt.matmul @plan1 {{.*}} b(%h : memref<1x256xbf16>)
// PIPE-NEXT:       cublaslt_rt.matmul @plan2 {{.*}} b(%h : memref<1x256xbf16>)
// PIPE-NEXT:     }
// OFF-LABEL:   func.func @attn_in(
// OFF:           cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// OFF:             hl.yield
// OFF-NEXT:      }
// OFF-NEXT:      %yq = cublaslt_rt.alloc
// OFF-NEXT:      %yk = cublaslt_rt.alloc
// OFF-NEXT:      %yv = cublaslt_rt.alloc
// OFF-NEXT:      cublaslt_rt.matmul_group {
// OFF-NEXT:        cublaslt_rt.matmul @plan0
// OFF-NEXT:        cublaslt_rt.matmul @plan1
// OFF-NEXT:        cublaslt_rt.matmul @plan2
// OFF-NEXT:      }
func.func @attn_in(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wq: tensor<512x256xbf16>, %wk: tensor<256x256xbf16>, %wv: tensor<256x256xbf16>) -> (tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>) {
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
  %yq = hl.linear %h, %wq : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %yk = hl.linear %h, %wk : tensor<1x256xbf16>, tensor<256x256xbf16> -> tensor<1x256xbf16>
  %yv = hl.linear %h, %wv : tensor<1x256xbf16>, tensor<256x256xbf16> -> tensor<1x256xbf16>
  func.return %yq, %yk, %yv : tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>
}

// -----

// The norm is also a result: the group's kernel would not write it, so it stays.
// CHECK-LABEL: func.func @norm_returned(
// CHECK:         cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0
// CHECK-NEXT:      cublaslt_rt.matmul @plan1
// CHECK-NEXT:      cublaslt_rt.matmul @plan2
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %yq, %yk, %yv, %h
// PIPE-LABEL:  func.func @norm_returned(
// OFF-LABEL:   func.func @norm_returned(
func.func @norm_returned(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wq: tensor<512x256xbf16>, %wk: tensor<256x256xbf16>, %wv: tensor<256x256xbf16>) -> (tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>) {
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
  %yq = hl.linear %h, %wq : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %yk = hl.linear %h, %wk : tensor<1x256xbf16>, tensor<256x256xbf16> -> tensor<1x256xbf16>
  %yv = hl.linear %h, %wv : tensor<1x256xbf16>, tensor<256x256xbf16> -> tensor<1x256xbf16>
  func.return %yq, %yk, %yv, %h : tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>
}

// -----

// A row of 4096: the GEMV sums it in blocks of 2048, so no program of the group's kernel
// holds the whole row the norm computes; the launch stays.
// CHECK-LABEL: func.func @wide_row(
// CHECK:         cublaslt_rt.fused_launch ins(%x, %g : memref<1x4096xbf16>, memref<4096xbf16>) outs(%h : memref<1x4096xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 {{.*}} b(%h : memref<1x4096xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 {{.*}} b(%h : memref<1x4096xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan2 {{.*}} b(%h : memref<1x4096xbf16>)
// CHECK-NEXT:    }
func.func @wide_row(%x: tensor<1x4096xbf16>, %g: tensor<4096xbf16>, %wq: tensor<512x4096xbf16>, %wk: tensor<256x4096xbf16>, %wv: tensor<256x4096xbf16>) -> (tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>) {
  %xf = hl.cast %x : tensor<1x4096xbf16> -> tensor<1x4096xf32>
  %two = hl.constant {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
  %p = hl.pow %xf, %two : (tensor<1x4096xf32>, tensor<f32>) -> tensor<1x4096xf32>
  %m = hl.mean %p {dims = array<i64: -1>, keepdim} : tensor<1x4096xf32> -> tensor<1x1xf32>
  %eps = hl.constant {value = dense<1.0e-05> : tensor<f32>} : tensor<f32>
  %me = hl.add %m, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %q = hl.rsqrt %me : tensor<1x1xf32> -> tensor<1x1xf32>
  %s = hl.mul %xf, %q : (tensor<1x4096xf32>, tensor<1x1xf32>) -> tensor<1x4096xf32>
  %sb = hl.cast %s : tensor<1x4096xf32> -> tensor<1x4096xbf16>
  %h = hl.mul %g, %sb : (tensor<4096xbf16>, tensor<1x4096xbf16>) -> tensor<1x4096xbf16>
  %yq = hl.linear %h, %wq : tensor<1x4096xbf16>, tensor<512x4096xbf16> -> tensor<1x512xbf16>
  %yk = hl.linear %h, %wk : tensor<1x4096xbf16>, tensor<256x4096xbf16> -> tensor<1x256xbf16>
  %yv = hl.linear %h, %wv : tensor<1x4096xbf16>, tensor<256x4096xbf16> -> tensor<1x256xbf16>
  func.return %yq, %yk, %yv : tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xbf16>
}

// -----

// The normalised f32 row is also a result: the norm's launch has two outputs, and the
// kernel would write neither; it stays.
// CHECK-LABEL: func.func @two_outputs(
// CHECK:         cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%s, %h : memref<1x256xf32>, memref<1x256xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0
// CHECK-NEXT:      cublaslt_rt.matmul @plan1
// CHECK-NEXT:    }
func.func @two_outputs(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wq: tensor<512x256xbf16>, %wk: tensor<256x256xbf16>) -> (tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xf32>) {
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
  %yq = hl.linear %h, %wq : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %yk = hl.linear %h, %wk : tensor<1x256xbf16>, tensor<256x256xbf16> -> tensor<1x256xbf16>
  func.return %yq, %yk, %s : tensor<1x512xbf16>, tensor<1x256xbf16>, tensor<1x256xf32>
}

// -----

// q (512 rows, two per program) runs with another block shape than k and v (128 rows,
// one per program), so it stays out of their group and reads the norm outside it: the
// launch stays before both.
// CHECK-LABEL: func.func @q_apart(
// CHECK:         cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// CHECK:         cublaslt_rt.matmul @plan0 a(%wq : memref<512x256xbf16>) b(%h : memref<1x256xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%wk : memref<128x256xbf16>) b(%h : memref<1x256xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan2 a(%wv : memref<128x256xbf16>) b(%h : memref<1x256xbf16>)
// CHECK-NEXT:    }
func.func @q_apart(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wq: tensor<512x256xbf16>, %wk: tensor<128x256xbf16>, %wv: tensor<128x256xbf16>) -> (tensor<1x512xbf16>, tensor<1x128xbf16>, tensor<1x128xbf16>) {
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
  %yq = hl.linear %h, %wq : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %yk = hl.linear %h, %wk : tensor<1x256xbf16>, tensor<128x256xbf16> -> tensor<1x128xbf16>
  %yv = hl.linear %h, %wv : tensor<1x256xbf16>, tensor<128x256xbf16> -> tensor<1x128xbf16>
  func.return %yq, %yk, %yv : tensor<1x512xbf16>, tensor<1x128xbf16>, tensor<1x128xbf16>
}

// -----

// Two groups read the norm (q and o with 512 rows, k and v with 128): each reads it
// outside the other, so neither takes the launch.
// CHECK-LABEL: func.func @two_groups(
// CHECK:         cublaslt_rt.fused_launch ins(%x, %g : memref<1x256xbf16>, memref<256xbf16>) outs(%h : memref<1x256xbf16>)
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0
// CHECK-NEXT:      cublaslt_rt.matmul @plan1
// CHECK-NEXT:    }
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan2
// CHECK-NEXT:      cublaslt_rt.matmul @plan3
// CHECK-NEXT:    }
func.func @two_groups(%x: tensor<1x256xbf16>, %g: tensor<256xbf16>, %wq: tensor<512x256xbf16>, %wo: tensor<512x256xbf16>, %wk: tensor<128x256xbf16>, %wv: tensor<128x256xbf16>) -> (tensor<1x512xbf16>, tensor<1x512xbf16>, tensor<1x128xbf16>, tensor<1x128xbf16>) {
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
  %yq = hl.linear %h, %wq : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %yo = hl.linear %h, %wo : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %yk = hl.linear %h, %wk : tensor<1x256xbf16>, tensor<128x256xbf16> -> tensor<1x128xbf16>
  %yv = hl.linear %h, %wv : tensor<1x256xbf16>, tensor<128x256xbf16> -> tensor<1x128xbf16>
  func.return %yq, %yo, %yk, %yv : tensor<1x512xbf16>, tensor<1x512xbf16>, tensor<1x128xbf16>, tensor<1x128xbf16>
}
