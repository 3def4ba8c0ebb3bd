"""bench/fused_kernels_bench.py on the CPU: which kernels of a Llama layer it times, what
it counts as their bytes, and the table it prints (the timing itself needs the H200)."""

from __future__ import annotations

from bench.fused_kernels_bench import layer_kernels, main


def test_a_layer_has_four_distinct_fused_kernels_with_their_bytes() -> None:
    kernels = layer_kernels(6, "tiny")  # hidden 64, 4 heads of 16, 2 KV heads, MLP 128
    assert [k.per_layer for k in kernels] == [2, 1, 1, 1]  # the two RMSNorms are one
    norm, q, k, mlp = kernels
    assert norm.description == "cast·mul·mean·add·rsqrt·mul·cast·mul"
    assert q.description == k.description == "transpose·slice·slice·neg·cat·mul·mul·add"
    assert mlp.description == "silu·mul"
    # bf16: x [6, 64] and the weight [64] in, [6, 64] out
    assert (norm.read, norm.written) == (2 * (6 * 64 + 64), 2 * 6 * 64)
    # q [6, 4, 16] and cos, sin [6, 16] in; [4, 6, 16] out
    assert (q.read, q.written) == (2 * (6 * 64 + 2 * 6 * 16), 2 * 6 * 64)
    assert (mlp.read, mlp.written) == (2 * 2 * 6 * 128, 2 * 6 * 128)
    assert abs(mlp.roofline_us - 3 * 2 * 6 * 128 / 4.3e6) < 1e-9
    assert not norm.launch.tiled and q.launch.tiled and mlp.launch.tiled
    assert [(x.launch.rows, x.launch.hidden) for x in kernels] == [
        (6, 64), (24, 16), (12, 16), (6, 128),
    ]  # fmt: skip


def test_without_a_gpu_it_prints_launches_and_rooflines(capsys) -> None:
    assert main(["--device", "cpu", "--shape", "tiny", "--seqs", "6", "--compare"]) == 0
    out = capsys.readouterr().out
    assert "### seq 6: 5 fused launches per layer, 4 distinct" in out
    (header,) = [line for line in out.splitlines() if line.startswith("| kernel |")]
    assert header.endswith("| one-row µs | one-row % of roofline | speed-up | same bytes |")
    (mlp,) = [line for line in out.splitlines() if line.startswith("| silu·mul |")]
    assert "| 6 x 128 |" in mlp
    assert "| 8x128 tile, grid 1x1, 2 warps |" in mlp  # 6 rows in one ragged tile
    assert "| one row of 64, grid 6, 4 warps |" in out  # the norm keeps its launch
