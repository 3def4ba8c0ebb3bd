// RUN: not lumir-opt %s --split-input-file -p 'cublaslt-fuse{node-limit=true}' 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: not lumir-opt %s -p 'cublaslt-fuse{node-limit=99999999999999999999}' 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not lumir-opt %s -p 'lower-to-cublaslt-rt{workspace_size=99999999999999999999}' 2>&1 | filecheck %s --check-prefix=WORKSPACE
// RUN: not lumir-opt %s -p 'lower-to-cublaslt-rt{workspace_size=-1}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not lumir-opt %s -p 'chunk-rows{max_bytes=false}' 2>&1 | filecheck %s --check-prefix=BYTES
// RUN: not lumir-opt %s --split-input-file -p 'cublaslt-fuse{precision=loose}' 2>&1 | filecheck %s --check-prefix=ONCE

// Integer pass options. xDSL's pipeline parser gives `true` to an int field as Python's
// True (node-limit 1) and takes any number of digits; each pass checks its own integer
// options when the pipeline is built, so a bad one is one whole-file error that names
// the option and its range, printed once whatever the number of chunks.
// BOOL:      lumir-opt: error: invalid pass pipeline 'cublaslt-fuse{node-limit=true}': cublaslt-fuse: node-limit must be an integer, got true
// BOOL-NOT:  error
// HUGE:      lumir-opt: error: invalid pass pipeline 'cublaslt-fuse{node-limit=99999999999999999999}': cublaslt-fuse: node-limit must be an integer in [1, 9223372036854775807], got 99999999999999999999
// WORKSPACE: lumir-opt: error: invalid pass pipeline 'lower-to-cublaslt-rt{workspace_size=99999999999999999999}': lower-to-cublaslt-rt: workspace_size must be an integer in [0, 9223372036854775807], got 99999999999999999999
// NEGATIVE:  lumir-opt: error: invalid pass pipeline 'lower-to-cublaslt-rt{workspace_size=-1}': lower-to-cublaslt-rt: workspace_size must be an integer in [0, 9223372036854775807], got -1
// BYTES:     lumir-opt: error: invalid pass pipeline 'chunk-rows{max_bytes=false}': chunk-rows: max_bytes must be an integer, got false
// ONCE:      lumir-opt: error: invalid pass pipeline 'cublaslt-fuse{precision=loose}': cublaslt-fuse: precision must be one of fast, strict, got 'loose'
// ONCE-NOT:  error

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// -----

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
