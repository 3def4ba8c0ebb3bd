// RUN: lumir-opt %S/Inputs/residual-cast-legal.mlir -p lower-to-cublaslt-rt | lumir-run --reference %s | filecheck %s --check-prefix=LEGAL
// RUN: lumir-run %s | filecheck %s --check-prefix=LEGAL
// RUN: not lumir-opt %S/Inputs/residual-cast-bug.mlir -p lower-to-cublaslt-rt 2>&1 | filecheck %s --check-prefix=LEVEL2
// RUN: lumir-opt %S/Inputs/residual-cast-bug.mlir -p lower-to-cublaslt-rt --disable-verify --print-debuginfo | not lumir-run --reference %s 2>&1 | filecheck %s --check-prefix=LEVEL3
// RUN: lumir-opt %S/Inputs/residual-cast-bug.mlir -p lower-to-cublaslt-rt --disable-verify --print-debuginfo | not lumir-run --reference %s --disable-verify --device cpu 2>&1 | filecheck %s --check-prefix=EXECUTED

// docs/design.md's motivating bug, end to end. This file is the unfused block: a bf16
// Linear plus a bf16 residual, cast to f32. Inputs/residual-cast-legal.mlir fuses it
// legally (C cast to f32 first); Inputs/residual-cast-bug.mlir is the bad rule's
// output, which declares c_dtype = f32 over the bf16 residual.

// The legal fusion matches the unfused block, and so does what lumir-pipeline makes of it.
// LEGAL:      @block on {{cpu|cuda}}, seed 0:
// LEGAL-NEXT:   result 0 tensor<8x32xf32>: max abs error {{.*}}: ok

// The verifier refuses the bad call at level 2 (where the rule produced it)...
// LEVEL2:     residual-cast-bug.mlir:4:3: error: V4: beta = 1.0 reads C as f32, but operand C is tensor<8x32xbf16>

// ...and at level 3, when lumir-run loads the lowered program.
// LEVEL3:     residual-cast-bug.mlir:4:3: error: @plan0: V4: beta = 1.0 reads C as f32, but operand C is memref<8x32xbf16>
// LEVEL3-NOT: Traceback

// With verification bypassed, the CPU executor reads C as cuBLASLt would: 8 x 32 f32
// values (1024 bytes) from a 512-byte bf16 buffer, and stops at the op that does it.
// EXECUTED:     residual-cast-bug.mlir:4:3: error: 'cublaslt_rt.matmul' @plan0: operand C is read as a f32 32 x 8 col-order matrix with ld 32, which reaches byte 1024, but its buffer holds 512 bytes
// EXECUTED-NOT: Traceback
func.func @block(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xf32> {
  %wt = hl.transpose %w {permutation = array<i64: 1, 0>} : tensor<32x16xbf16> -> tensor<16x32xbf16>
  %y = hl.matmul %x, %wt : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
  %s = hl.add %y, %r : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %f = hl.cast %s : tensor<8x32xbf16> -> tensor<8x32xf32>
  func.return %f : tensor<8x32xf32>
}
