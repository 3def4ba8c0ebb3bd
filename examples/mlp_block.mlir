// A transformer MLP block in bf16: Linear + bias -> tanh-GELU -> Linear -> residual -> f32.
// lumir turns it into two fused cuBLASLt calls: a GELU_BIAS epilogue, then beta = 1 with the
// residual in C. Writing f32 straight from the second call would need C cast to f32 first
// (cuBLASLt requires C and D to share a dtype); the cost model weighs that extra cast.
//   lumir-opt examples/mlp_block.mlir -p 'lumir-pipeline{stop_after=cublaslt-fuse}'
//   lumir-run examples/mlp_block.mlir [--device cuda]
func.func @mlp_block(%x: tensor<6x256xbf16>, %w1: tensor<512x256xbf16>, %b1: tensor<512xbf16>,
                     %w2: tensor<256x512xbf16>) -> tensor<6x256xf32> {
  %h = hl.linear %x, %w1 bias(%b1 : tensor<512xbf16>) : tensor<6x256xbf16>, tensor<512x256xbf16> -> tensor<6x512xbf16>
  %g = hl.gelu %h {approximate = "tanh"} : tensor<6x512xbf16> -> tensor<6x512xbf16>
  %y = hl.linear %g, %w2 : tensor<6x512xbf16>, tensor<256x512xbf16> -> tensor<6x256xbf16>
  %r = hl.add %y, %x : (tensor<6x256xbf16>, tensor<6x256xbf16>) -> tensor<6x256xbf16>
  %o = hl.cast %r : tensor<6x256xbf16> -> tensor<6x256xf32>
  func.return %o : tensor<6x256xf32>
}
