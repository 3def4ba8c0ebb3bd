// RUN: not lumir-run %s --function no_rows 2>&1 | filecheck %s --check-prefix=NO-ROWS
// RUN: lumir-run %s --function no_ids | filecheck %s --check-prefix=NO-IDS
// RUN: lumir-run %s --function two_tables | filecheck %s --check-prefix=TWO-TABLES

// lumir-run draws an integer argument that indexes embedding tables within the rows of
// every table it indexes. A table without rows can take no id: a non-empty id argument
// is refused at the lookup (mutate fuzzer, mutant 5501 of seed 6, raised torch's
// RuntimeError from randint(0, 0)), an empty one runs. Ids read by a 3-row and a
// 50-row table are drawn below 3, whichever lookup comes first (they were drawn below
// 50 when the 3-row lookup came first, and torch's embedding reported an index out of
// range on a valid program).

// NO-ROWS:      embedding-ids.mlir:[[# @LINE + 3]]:3: error: the embedding table has no rows, so no id can index it
// NO-ROWS-NOT:  Traceback
func.func @no_rows(%w: tensor<0x64xbf16>, %ids: tensor<2x6xi64>) -> tensor<2x6x64xbf16> {
  %e = hl.embedding %w, %ids : (tensor<0x64xbf16>, tensor<2x6xi64>) -> tensor<2x6x64xbf16>
  func.return %e : tensor<2x6x64xbf16>
}

// NO-IDS:       @no_ids on {{cpu|cuda}}, seed 0:
// NO-IDS-NEXT:    result 0 tensor<2x0x64xbf16>: {{.*}}: ok
func.func @no_ids(%w: tensor<0x64xbf16>, %ids: tensor<2x0xi64>) -> tensor<2x0x64xbf16> {
  %e = hl.embedding %w, %ids : (tensor<0x64xbf16>, tensor<2x0xi64>) -> tensor<2x0x64xbf16>
  func.return %e : tensor<2x0x64xbf16>
}

// TWO-TABLES:       @two_tables on {{cpu|cuda}}, seed 0:
// TWO-TABLES-NEXT:    result 0 tensor<4x5x8xf32>: {{.*}}: ok
func.func @two_tables(%big: tensor<50x8xf32>, %small: tensor<3x8xf32>, %ids: tensor<4x5xi64>) -> tensor<4x5x8xf32> {
  %a = hl.embedding %small, %ids : (tensor<3x8xf32>, tensor<4x5xi64>) -> tensor<4x5x8xf32>
  %b = hl.embedding %big, %ids : (tensor<50x8xf32>, tensor<4x5xi64>) -> tensor<4x5x8xf32>
  %s = hl.add %a, %b : (tensor<4x5x8xf32>, tensor<4x5x8xf32>) -> tensor<4x5x8xf32>
  func.return %s : tensor<4x5x8xf32>
}
