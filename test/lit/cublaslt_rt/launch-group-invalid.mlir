// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.launch_group verifier: it refuses any group its one launch could not run
// as the members would run alone: only launches, 2 to 16 of them, one kernel and
// params, in-place cache writes reading one index, integer adds only, and no member
// writing bytes another member reads or writes.

func.func @one_member(%c: memref<i64>, %one: memref<i64>) {
  // expected-error@+1 {{holds 1 launch(es); a grouped launch runs 2 to 16}}
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.add" ins(%c, %one : memref<i64>, memref<i64>) outs(%c : memref<i64>)
  }
  func.return
}

// -----

func.func @float_add(%x: memref<4xf32>, %y: memref<4xf32>, %c: memref<i64>, %one: memref<i64>) {
  // expected-error@+1 {{member 0 (hl.add) adds memref<4xf32>, memref<4xf32> into memref<4xf32>; a group adds integers of one type (8 bits or wider) only}}
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.add" ins(%x, %y : memref<4xf32>, memref<4xf32>) outs(%x : memref<4xf32>)
    cublaslt_rt.launch "hl.add" ins(%c, %one : memref<i64>, memref<i64>) outs(%c : memref<i64>)
  }
  func.return
}

// -----

func.func @two_indices(%kc: memref<2x8xbf16>, %vc: memref<2x8xbf16>, %i: memref<1xi64>, %j: memref<1xi64>, %s: memref<2x1xbf16>) {
  // expected-error@+1 {{member 1 (hl.index_copy) reads another index than member 0; a group reads one index}}
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%kc, %i, %s : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%kc : memref<2x8xbf16>)
    cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%vc, %j, %s : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%vc : memref<2x8xbf16>)
  }
  func.return
}

// -----

func.func @not_in_place(%kc: memref<2x8xbf16>, %out: memref<2x8xbf16>, %vc: memref<2x8xbf16>, %i: memref<1xi64>, %s: memref<2x1xbf16>) {
  // expected-error@+1 {{member 0 (hl.index_copy) writes a new buffer (outs is not ins[0]); a group updates caches in place, writing the indexed slices only}}
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%kc, %i, %s : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%out : memref<2x8xbf16>)
    cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%vc, %i, %s : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%vc : memref<2x8xbf16>)
  }
  func.return
}

// -----

func.func @dependent(%a: memref<i64>, %b: memref<i64>, %c: memref<i64>) {
  // expected-error@+1 {{member 1 writes bytes member 0 reads or writes; the members of a group run at once and may not depend on each other}}
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.add" ins(%a, %b : memref<i64>, memref<i64>) outs(%a : memref<i64>)
    cublaslt_rt.launch "hl.add" ins(%c, %c : memref<i64>, memref<i64>) outs(%b : memref<i64>)
  }
  func.return
}

// -----

func.func @mixed(%a: memref<i64>, %b: memref<i64>, %kc: memref<2x8xbf16>, %i: memref<1xi64>, %s: memref<2x1xbf16>) {
  // expected-error@+1 {{member 1 (hl.index_copy) runs another kernel or params than member 0; a group runs one kernel}}
  cublaslt_rt.launch_group {
    cublaslt_rt.launch "hl.add" ins(%a, %b : memref<i64>, memref<i64>) outs(%a : memref<i64>)
    cublaslt_rt.launch "hl.index_copy" {dim = 1 : i64} ins(%kc, %i, %s : memref<2x8xbf16>, memref<1xi64>, memref<2x1xbf16>) outs(%kc : memref<2x8xbf16>)
  }
  func.return
}

// -----

func.func @stranger(%a: memref<i64>) {
  // expected-error@+1 {{holds only cublaslt_rt.launch ops and no block arguments, found cublaslt_rt.alloc}}
  cublaslt_rt.launch_group {
    %x = cublaslt_rt.alloc : memref<i64>
  }
  func.return
}

// -----

// A member on buffers without a byte width is refused at the member; the group's check
// that no member writes what another reads needs byte ranges, and asserted on them.
func.func @index_buffers(%c0: memref<index>, %c1: memref<index>, %one: memref<index>) {
  cublaslt_rt.launch_group {
    // expected-error @+1 {{'cublaslt_rt.launch' input: buffer memref<index> holds index, which has no byte width}}
    cublaslt_rt.launch "hl.add" ins(%c0, %one : memref<index>, memref<index>) outs(%c0 : memref<index>)
    // expected-error @+1 {{'cublaslt_rt.launch' input: buffer memref<index> holds index, which has no byte width}}
    cublaslt_rt.launch "hl.add" ins(%c1, %one : memref<index>, memref<index>) outs(%c1 : memref<index>)
  }
  func.return
}
