// RUN: lumir-opt %s --split-input-file -p group-fused | filecheck %s
// RUN: lumir-opt %s --split-input-file -p group-fused,group-fused | filecheck %s

// A decode layer's q and k rotaries: two fused launches that read the same cos and sin
// and write buffers of their own. Neither reads what the other writes, so they become
// one cublaslt_rt.fused_group (one kernel on CUDA), each body unchanged.
// CHECK-LABEL: func.func @rotaries(
// CHECK:         cublaslt_rt.fused_group {
// CHECK-NEXT:      cublaslt_rt.fused_launch ins(%q, %cos, %sin : {{.*}}) outs(%rq : memref<1x4x1x32xbf16>) {
// CHECK:           cublaslt_rt.fused_launch ins(%k, %cos, %sin : {{.*}}) outs(%rk : memref<1x2x1x32xbf16>) {
// CHECK:             hl.yield %y_1 : tensor<1x2x1x32xbf16>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @rotaries(%q: memref<1x1x4x32xbf16>, %k: memref<1x1x2x32xbf16>, %cos: memref<1x1x1x32xbf16>,
                    %sin: memref<1x1x1x32xbf16>) -> (memref<1x4x1x32xbf16>, memref<1x2x1x32xbf16>) {
  %rq = cublaslt_rt.alloc : memref<1x4x1x32xbf16>
  cublaslt_rt.fused_launch ins(%q, %cos, %sin : memref<1x1x4x32xbf16>, memref<1x1x1x32xbf16>, memref<1x1x1x32xbf16>) outs(%rq : memref<1x4x1x32xbf16>) {
  ^bb0(%x: tensor<1x1x4x32xbf16>, %c: tensor<1x1x1x32xbf16>, %s: tensor<1x1x1x32xbf16>):
    %t = hl.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x4x32xbf16> -> tensor<1x4x1x32xbf16>
    %lo = hl.slice %t {dim = 3 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64} : tensor<1x4x1x32xbf16> -> tensor<1x4x1x16xbf16>
    %hi = hl.slice %t {dim = 3 : i64, start = 16 : i64, end = 32 : i64, step = 1 : i64} : tensor<1x4x1x32xbf16> -> tensor<1x4x1x16xbf16>
    %n = hl.neg %hi : tensor<1x4x1x16xbf16> -> tensor<1x4x1x16xbf16>
    %r = hl.cat %n, %lo {dim = -1 : i64} : (tensor<1x4x1x16xbf16>, tensor<1x4x1x16xbf16>) -> tensor<1x4x1x32xbf16>
    %a = hl.mul %t, %c : (tensor<1x4x1x32xbf16>, tensor<1x1x1x32xbf16>) -> tensor<1x4x1x32xbf16>
    %b = hl.mul %r, %s : (tensor<1x4x1x32xbf16>, tensor<1x1x1x32xbf16>) -> tensor<1x4x1x32xbf16>
    %y = hl.add %a, %b : (tensor<1x4x1x32xbf16>, tensor<1x4x1x32xbf16>) -> tensor<1x4x1x32xbf16>
    hl.yield %y : tensor<1x4x1x32xbf16>
  }
  %rk = cublaslt_rt.alloc : memref<1x2x1x32xbf16>
  cublaslt_rt.fused_launch ins(%k, %cos, %sin : memref<1x1x2x32xbf16>, memref<1x1x1x32xbf16>, memref<1x1x1x32xbf16>) outs(%rk : memref<1x2x1x32xbf16>) {
  ^bb0(%x: tensor<1x1x2x32xbf16>, %c: tensor<1x1x1x32xbf16>, %s: tensor<1x1x1x32xbf16>):
    %t = hl.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x32xbf16> -> tensor<1x2x1x32xbf16>
    %lo = hl.slice %t {dim = 3 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64} : tensor<1x2x1x32xbf16> -> tensor<1x2x1x16xbf16>
    %hi = hl.slice %t {dim = 3 : i64, start = 16 : i64, end = 32 : i64, step = 1 : i64} : tensor<1x2x1x32xbf16> -> tensor<1x2x1x16xbf16>
    %n = hl.neg %hi : tensor<1x2x1x16xbf16> -> tensor<1x2x1x16xbf16>
    %r = hl.cat %n, %lo {dim = -1 : i64} : (tensor<1x2x1x16xbf16>, tensor<1x2x1x16xbf16>) -> tensor<1x2x1x32xbf16>
    %a = hl.mul %t, %c : (tensor<1x2x1x32xbf16>, tensor<1x1x1x32xbf16>) -> tensor<1x2x1x32xbf16>
    %b = hl.mul %r, %s : (tensor<1x2x1x32xbf16>, tensor<1x1x1x32xbf16>) -> tensor<1x2x1x32xbf16>
    %y = hl.add %a, %b : (tensor<1x2x1x32xbf16>, tensor<1x2x1x32xbf16>) -> tensor<1x2x1x32xbf16>
    hl.yield %y : tensor<1x2x1x32xbf16>
  }
  func.return %rq, %rk : memref<1x4x1x32xbf16>, memref<1x2x1x32xbf16>
}

// -----

// Three independent bodies of every kernel form: a row softmax (one row per program,
// 4 warps), a wide elementwise row cut into column tiles (5000 lanes: three tiles of
// 2048) and a narrow one packed many rows to a program with a ragged last tile. All
// three run as one group; test_fused_group.py runs this group under the interpreter.
// CHECK-LABEL: func.func @forms(
// CHECK:         cublaslt_rt.fused_group {
// CHECK-COUNT-3:   cublaslt_rt.fused_launch
// CHECK:         func.return
func.func @forms(%x: memref<5x40xf32>, %w: memref<3x5000xf32>, %b: memref<5000xf32>,
                 %n: memref<37x24xbf16>) -> (memref<5x40xf32>, memref<3x5000xf32>, memref<37x24xbf16>) {
  %sx = cublaslt_rt.alloc : memref<5x40xf32>
  cublaslt_rt.fused_launch ins(%x : memref<5x40xf32>) outs(%sx : memref<5x40xf32>) {
  ^bb0(%v: tensor<5x40xf32>):
    %s = hl.softmax %v {dim = -1 : i64} : tensor<5x40xf32> -> tensor<5x40xf32>
    hl.yield %s : tensor<5x40xf32>
  }
  %sw = cublaslt_rt.alloc : memref<3x5000xf32>
  cublaslt_rt.fused_launch ins(%w, %b : memref<3x5000xf32>, memref<5000xf32>) outs(%sw : memref<3x5000xf32>) {
  ^bb0(%v: tensor<3x5000xf32>, %bias: tensor<5000xf32>):
    %a = hl.add %v, %bias : (tensor<3x5000xf32>, tensor<5000xf32>) -> tensor<3x5000xf32>
    %s = hl.silu %a : tensor<3x5000xf32> -> tensor<3x5000xf32>
    hl.yield %s : tensor<3x5000xf32>
  }
  %sn = cublaslt_rt.alloc : memref<37x24xbf16>
  cublaslt_rt.fused_launch ins(%n : memref<37x24xbf16>) outs(%sn : memref<37x24xbf16>) {
  ^bb0(%v: tensor<37x24xbf16>):
    %e = hl.exp %v : tensor<37x24xbf16> -> tensor<37x24xbf16>
    %m = hl.mul %e, %v : (tensor<37x24xbf16>, tensor<37x24xbf16>) -> tensor<37x24xbf16>
    hl.yield %m : tensor<37x24xbf16>
  }
  func.return %sx, %sw, %sn : memref<5x40xf32>, memref<3x5000xf32>, memref<37x24xbf16>
}

// -----

// The second launch reads what the first writes: they stay two launches.
// CHECK-LABEL: func.func @dependent(
// CHECK-NOT:     cublaslt_rt.fused_group
// CHECK:         func.return
func.func @dependent(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %a = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %e = hl.exp %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %e : tensor<4x8xf32>
  }
  %b = cublaslt_rt.alloc : memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %e = hl.tanh %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %e : tensor<4x8xf32>
  }
  func.return %b : memref<4x8xf32>
}

// -----

// Two launches writing into one buffer's halves (views of one arena) are independent
// and group; two writing the same bytes would not.
// CHECK-LABEL: func.func @views(
// CHECK:         cublaslt_rt.fused_group {
func.func @views(%x: memref<4x8xf32>, %y: memref<4x8xf32>) -> memref<256xi8> {
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %a = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %e = hl.exp %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %e : tensor<4x8xf32>
  }
  %b = cublaslt_rt.view %arena {byte_offset = 128 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%y : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %e = hl.tanh %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %e : tensor<4x8xf32>
  }
  func.return %arena : memref<256xi8>
}
// -----

// CHECK-LABEL: func.func @same_bytes(
// CHECK-NOT:     cublaslt_rt.fused_group
// CHECK:         func.return
func.func @same_bytes(%x: memref<4x8xf32>, %y: memref<4x8xf32>) -> memref<256xi8> {
  %arena = cublaslt_rt.alloc : memref<256xi8>
  %a = cublaslt_rt.view %arena {byte_offset = 0 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %e = hl.exp %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %e : tensor<4x8xf32>
  }
  %b = cublaslt_rt.view %arena {byte_offset = 64 : i64} : memref<256xi8> -> memref<4x8xf32>
  cublaslt_rt.fused_launch ins(%y : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %e = hl.tanh %v : tensor<4x8xf32> -> tensor<4x8xf32>
    hl.yield %e : tensor<4x8xf32>
  }
  func.return %arena : memref<256xi8>
}
