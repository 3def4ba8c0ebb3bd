// RUN: lumir-opt %S/../../../examples/mlp_block.mlir -p lumir-pipeline --timing 2>&1 >/dev/null | filecheck %s
// RUN: lumir-opt %S/../../../examples/mlp_block.mlir -p hl-canonicalize --timing --disable-verify 2>&1 >/dev/null | filecheck %s --check-prefix=NOVERIFY

// --timing prints, on stderr, the wall-clock seconds of parsing, of each pass (a
// compound pass by its stages) and of verification, in the order they first ran.
// CHECK:      ===- lumir timing report -===
// CHECK-NEXT:   seconds   share  stage
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  parse
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  verify
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  hl-canonicalize
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  hl-to-cublaslt
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  cublaslt-fuse
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  cublaslt-verify
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  fuse-kernels
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  lower-to-cublaslt-rt
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  group-gemv
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  gemv-epilogue
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  chunk-rows
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  hoist-index-math
// CHECK-NEXT: {{[0-9.]+ +[0-9.]+%}}  share-buffers
// CHECK-NEXT: {{[0-9.]+ +100.0%}}  total

// With verification off there is nothing to time for it.
// NOVERIFY:      {{[0-9.]+ +[0-9.]+%}}  parse
// NOVERIFY-NEXT: {{[0-9.]+ +[0-9.]+%}}  hl-canonicalize
// NOVERIFY-NEXT: {{[0-9.]+ +100.0%}}  total
