// RUN: lumir-opt %s --split-input-file --verify-diagnostics

// cublaslt_rt.fused_group verifier: its members run as the programs of one kernel, at
// once and in no order, so it holds only fused launches, 2 to 4 of them, and no member
// writes bytes another member reads or writes (views resolved).

func.func @stranger(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.fused_group' holds only cublaslt_rt.fused_launch ops and no block arguments, found cublaslt_rt.alloc}}
  cublaslt_rt.fused_group {
    cublaslt_rt.fused_launch ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    ^bb0(%v: tensor<4xf32>):
      %e = hl.exp %v : tensor<4xf32> -> tensor<4xf32>
      hl.yield %e : tensor<4xf32>
    }
    %t = cublaslt_rt.alloc : memref<4xf32>
  }
  func.return
}

// -----

func.func @alone(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'cublaslt_rt.fused_group' holds 1 fused launch(es); a grouped fused launch runs 2 to 4}}
  cublaslt_rt.fused_group {
    cublaslt_rt.fused_launch ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    ^bb0(%v: tensor<4xf32>):
      %e = hl.exp %v : tensor<4xf32> -> tensor<4xf32>
      hl.yield %e : tensor<4xf32>
    }
  }
  func.return
}

// -----

// The second member reads what the first writes (through a view of the same bytes).
func.func @reads_another(%x: memref<4xf32>, %a: memref<16xi8>, %z: memref<4xf32>) {
  %y = cublaslt_rt.view %a {byte_offset = 0 : i64} : memref<16xi8> -> memref<4xf32>
  %w = cublaslt_rt.view %a {byte_offset = 0 : i64} : memref<16xi8> -> memref<4xf32>
  // expected-error @+1 {{'cublaslt_rt.fused_group' member 0 writes bytes member 1 reads or writes; the members of a group run at once and may not depend on each other}}
  cublaslt_rt.fused_group {
    cublaslt_rt.fused_launch ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    ^bb0(%v: tensor<4xf32>):
      %e = hl.exp %v : tensor<4xf32> -> tensor<4xf32>
      hl.yield %e : tensor<4xf32>
    }
    cublaslt_rt.fused_launch ins(%w : memref<4xf32>) outs(%z : memref<4xf32>) {
    ^bb0(%v: tensor<4xf32>):
      %e = hl.tanh %v : tensor<4xf32> -> tensor<4xf32>
      hl.yield %e : tensor<4xf32>
    }
  }
  func.return
}

// -----

// A member on buffers without a byte width is refused at the member; the group's check
// that no member writes what another reads needs byte ranges, and asserted on them.
func.func @index_buffers(%a: memref<4xindex>, %b: memref<4xindex>, %c: memref<4xf32>, %d: memref<4xf32>) {
  cublaslt_rt.fused_group {
    // expected-error @+1 {{'cublaslt_rt.fused_launch' input: buffer memref<4xindex> holds index, which has no byte width}}
    cublaslt_rt.fused_launch ins(%a : memref<4xindex>) outs(%b : memref<4xindex>) {
    ^bb0(%x: tensor<4xindex>):
      hl.yield %x : tensor<4xindex>
    }
    cublaslt_rt.fused_launch ins(%c : memref<4xf32>) outs(%d : memref<4xf32>) {
    ^bb0(%x: tensor<4xf32>):
      %y = hl.neg %x : tensor<4xf32> -> tensor<4xf32>
      hl.yield %y : tensor<4xf32>
    }
  }
  func.return
}
