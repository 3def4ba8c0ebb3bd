// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},group-gemv,gemv-epilogue' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'hl-canonicalize,hl-to-cublaslt,fuse-kernels,lower-to-cublaslt-rt{share_buffers=false},group-gemv,gemv-epilogue,gemv-epilogue' | filecheck %s
// RUN: lumir-opt %s --split-input-file -p 'lumir-pipeline{gemv_epilogue=false}' | filecheck %s --check-prefix=OFF

// A decode step's MLP: the fused SiLU(gate) * up reads only the gate/up group's two
// results, so it moves into the group as its epilogue (one kernel on CUDA), with the
// alloc of its result moved above the group. A second run changes nothing; with the
// option off the launch stays after the group.

// CHECK-LABEL: func.func @mlp(
// CHECK:         %m = cublaslt_rt.alloc : memref<1x512xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0 a(%wg : memref<512x256xbf16>) b(%h : memref<1x256xbf16>) d(%g : memref<1x512xbf16>)
// CHECK-NEXT:      cublaslt_rt.matmul @plan1 a(%wu : memref<512x256xbf16>) b(%h : memref<1x256xbf16>) d(%u : memref<1x512xbf16>)
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%g, %u : memref<1x512xbf16>, memref<1x512xbf16>) outs(%m : memref<1x512xbf16>) {
// CHECK:             hl.silu
// CHECK:             hl.mul
// CHECK:             hl.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = cublaslt_rt.alloc : memref<1x256xbf16>
// CHECK-NEXT:    cublaslt_rt.matmul @plan2
// OFF-LABEL:   func.func @mlp(
// OFF:           cublaslt_rt.matmul_group {
// OFF-NEXT:        cublaslt_rt.matmul @plan0
// OFF-NEXT:        cublaslt_rt.matmul @plan1
// OFF-NEXT:      }
// OFF:           cublaslt_rt.fused_launch
func.func @mlp(%h: tensor<1x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>, %wd: tensor<256x512xbf16>) -> tensor<1x256xbf16> {
  %g = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %u = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %s = hl.silu %g : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %m = hl.mul %s, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  %y = hl.linear %m, %wd : tensor<1x512xbf16>, tensor<256x512xbf16> -> tensor<1x256xbf16>
  func.return %y : tensor<1x256xbf16>
}

// -----

// The gate is also returned: the group's kernel would not write it, so the launch stays.
// CHECK-LABEL: func.func @gate_returned(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0
// CHECK-NEXT:      cublaslt_rt.matmul @plan1
// CHECK-NEXT:    }
// CHECK:         cublaslt_rt.fused_launch
func.func @gate_returned(%h: tensor<1x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>) -> (tensor<1x512xbf16>, tensor<1x512xbf16>) {
  %g = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %u = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %s = hl.silu %g : tensor<1x512xbf16> -> tensor<1x512xbf16>
  %m = hl.mul %s, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  func.return %m, %g : tensor<1x512xbf16>, tensor<1x512xbf16>
}

// -----

// A row reduction needs every lane of the row: not elementwise, the launch stays.
// CHECK-LABEL: func.func @row_sum(
// CHECK:         cublaslt_rt.matmul_group {
// CHECK-NEXT:      cublaslt_rt.matmul @plan0
// CHECK-NEXT:      cublaslt_rt.matmul @plan1
// CHECK-NEXT:    }
// CHECK:         cublaslt_rt.fused_launch
func.func @row_sum(%h: tensor<1x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>) -> tensor<1x512xbf16> {
  %g = hl.linear %h, %wg : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %u = hl.linear %h, %wu : tensor<1x256xbf16>, tensor<512x256xbf16> -> tensor<1x512xbf16>
  %t = hl.mul %g, %u : (tensor<1x512xbf16>, tensor<1x512xbf16>) -> tensor<1x512xbf16>
  %n = hl.sum %t {dims = array<i64: 1>, keepdim} : tensor<1x512xbf16> -> tensor<1x1xbf16>
  %m = hl.mul %t, %n : (tensor<1x512xbf16>, tensor<1x1xbf16>) -> tensor<1x512xbf16>
  func.return %m : tensor<1x512xbf16>
}
