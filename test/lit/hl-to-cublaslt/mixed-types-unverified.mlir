// RUN: lumir-opt %s -p hl-to-cublaslt --disable-verify --verify-diagnostics

// hl.matmul's verifier rejects mixed element types; with verification off the pass
// still refuses them with a located error instead of building a wrong call.
func.func @mixed(%x: tensor<4x8xf32>, %w: tensor<8x16xbf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'hl.matmul' operands are f32 and bf16; cuBLASLt lowering expects one element type, one of f16, bf16, f32, f64}}
  %y = "hl.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x16xbf16>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}
