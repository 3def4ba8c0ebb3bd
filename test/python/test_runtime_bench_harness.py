"""bench/compare.py, the benchmark of lumir's runtime against torch, run on the CPU.

The CUDA timing paths need the H200; here the harness's logic runs for real on small
shapes: candidates side by side on the same inputs, skips with their reasons, the
budget, the CSV and the table.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import torch

from bench.candidates import FRONTEND_MODES
from bench.compare import Budget, main, make_parser, plan_from, skip_reason
from bench.timing import summarise
from bench.workloads import LLAMA_SHAPES, ResidualChain, chain_hl, llama_workloads


def _rows(folder: Path) -> dict[tuple[str, str, str], dict[str, str]]:
    with (folder / "results.csv").open() as handle:
        return {(r["workload"], r["seq"], r["candidate"]): r for r in csv.DictReader(handle)}


def test_a_cpu_run_writes_every_candidate_with_a_status(tmp_path: Path) -> None:
    modes = "eager,eager-graph,lumir-direct,lumir-direct-replay,lumir"
    argv = ["--device", "cpu", "--workloads", "chain,layer,llama", "--llama-shape", "tiny"]
    argv += ["--chain-hidden", "64", "--seqs", "6,decode", "--modes", modes]
    argv += ["--iters", "3", "--out", str(tmp_path)]
    assert main(argv) == 0
    rows = _rows(tmp_path)
    # decode is a llama workload only; every (workload, mode) pair has a row.
    workloads = {(w, s) for w, s, _ in rows}
    assert workloads == {("chain", "6"), ("layer", "6"), ("llama", "6"), ("llama", "decode")}
    assert len(rows) == 4 * 5
    assert rows[("chain", "6", "eager")]["status"] == "ok"
    assert rows[("chain", "6", "eager-graph")]["reason"] == (
        "eager-graph: CUDA graphs need a CUDA device"
    )
    direct = rows[("chain", "6", "lumir-direct")]
    assert direct["status"] == "ok" and int(direct["calls"]) == 3
    # lumir computes the module's own function on its weights: bf16-close to eager.
    assert float(direct["max_abs_err_vs_eager"]) < 0.1
    # The hl Llama layer is transformers' LlamaDecoderLayer, to bf16 rounding.
    layer = rows[("layer", "6", "lumir-direct")]
    assert layer["status"] == "ok" and float(layer["max_abs_err_vs_eager"]) < 0.05
    assert rows[("llama", "decode", "lumir-direct")]["status"] == "skipped"
    assert rows[("llama", "decode", "eager")]["max_abs_err_vs_eager"] == "0.0"
    table = (tmp_path / "table.md").read_text()
    assert "| chain 6 |" in table and "CPU" in table.splitlines()[0]


def test_the_gpt2_workload_runs_through_lumir_close_to_eager(tmp_path: Path) -> None:
    argv = ["--device", "cpu", "--workloads", "gpt2", "--gpt2-shape", "tiny", "--seqs", "5"]
    argv += ["--modes", "eager,lumir", "--iters", "2", "--out", str(tmp_path)]
    assert main(argv) == 0
    lumir = _rows(tmp_path)[("gpt2", "5", "lumir")]
    assert lumir["status"] == "ok" and float(lumir["max_abs_err_vs_eager"]) < 0.05


def test_the_frontend_floors_run_only_when_asked(tmp_path: Path) -> None:
    """frontend-dynamo and frontend-aot trace the model as every backend does and then run
    it unchanged, so they give eager's output; a default run leaves them out."""
    assert not set(FRONTEND_MODES) & set(plan_from(make_parser().parse_args([])).modes)
    argv = ["--device", "cpu", "--workloads", "llama", "--llama-shape", "tiny", "--seqs", "3"]
    argv += [
        "--modes",
        "eager,frontend-dynamo,frontend-aot",
        "--iters",
        "2",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    rows = _rows(tmp_path)
    for mode in FRONTEND_MODES:
        row = rows[("llama", "3", mode)]
        assert row["status"] == "ok" and float(row["max_abs_err_vs_eager"]) == 0.0
        assert float(row["first_call_s"]) > 0.0


def test_quick_is_the_chain_with_two_torch_modes_and_lumir() -> None:
    plan = plan_from(make_parser().parse_args(["--quick", "--device", "cpu"]))
    assert plan.families == ["chain"] and plan.seqs == {"chain": ["6", "128"]}
    assert plan.modes == ["eager-graph", "lumir-direct", "lumir-direct-replay", "reduce-overhead"]


def test_autotuning_the_1b_model_is_off_unless_asked() -> None:
    plan = plan_from(make_parser().parse_args(["--device", "cpu", "--llama-shape", "tiny"]))
    (forward,) = llama_workloads(["1"], LLAMA_SHAPES["tiny"], torch.device("cpu"))
    budget = Budget(1e6)
    assert "pass --llama-autotune" in (skip_reason("max-autotune", forward, plan, budget) or "")
    assert skip_reason("inductor", forward, plan, budget) is None
    asked = plan_from(make_parser().parse_args(["--device", "cpu", "--llama-autotune"]))
    assert skip_reason("max-autotune", forward, asked, budget) is None


def test_a_candidate_over_the_budget_is_skipped_with_the_numbers() -> None:
    reason = Budget(20).refuse("llama", "inductor")
    assert reason is not None and reason.startswith("over the time budget: ~32 s expected")
    assert Budget(20).refuse("chain", "eager") is None


def test_unknown_modes_are_refused() -> None:
    with pytest.raises(SystemExit, match="unknown mode 'fastest'"):
        plan_from(make_parser().parse_args(["--modes", "eager,fastest"]))


def test_summary_is_median_and_deciles() -> None:
    timing = summarise([float(v) for v in range(1, 12)])
    assert (timing.median_ms, timing.p10_ms, timing.p90_ms, timing.calls) == (6.0, 2.0, 10.0, 11)


def test_the_chain_hl_text_is_the_module() -> None:
    """Both have the same arguments: x, then per block the norm weight and the Linear's."""
    text = chain_hl(6, 64)
    module = ResidualChain(64)
    assert text.count("hl.linear") == len(module.blocks) == 2
    assert "%g1: tensor<64xbf16>, %w1: tensor<64x64xbf16>" in text


def test_every_lumir_candidate_is_a_mode_with_a_compile_budget() -> None:
    """A candidate the harness knows options for but not as a mode is unreachable:
    `bench.compare --modes lumir-no-prologue` answered 'unknown mode' on an H100."""
    from bench.candidates import ESTIMATE_S, LUMIR_OPTIONS, ORDER

    for name in LUMIR_OPTIONS:
        assert name in ORDER, name
        workloads = {workload for workload, mode in ESTIMATE_S if mode == "lumir"}
        assert {workload for workload, mode in ESTIMATE_S if mode == name} == workloads, name


def test_the_gemv_sweep_takes_the_shapes_it_is_given() -> None:
    """`bench/gemv_sweep.py --wide --shapes` sweeps only the shapes named, so one device
    call can time the down and o projections' block shapes alone."""
    import argparse

    from bench.gemv_sweep import parse_shapes

    assert parse_shapes("2048x8192, 2048X2048") == [(2048, 8192), (2048, 2048)]
    for bad in ("2048", "2048x", "x8192", "0x8", "2048y8192", "-1x8"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected MxK"):
            parse_shapes(bad)
