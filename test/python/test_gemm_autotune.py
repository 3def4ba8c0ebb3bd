"""The measured cuBLASLt algorithm choice (lumir.runtime.gemm_autotune).

The choice rule, the disk cache and the settings are plain Python and run everywhere;
the tests marked `cuda` build real autotuned plans (they skip without nvmath-python and
a CUDA device): the result is right, measuring writes nothing the plan's caller holds,
and a second plan of the same problem takes the cached choice without timing anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lumir.backend.options import LumirOptionError, parse_options
from lumir.runtime.gemm_autotune import (
    CACHE_FILE,
    AlgorithmCache,
    AlgorithmTuner,
    AutotuneSettingError,
    autotune_requested,
    cache_dir,
    fastest,
    problem_key,
)

INF = float("inf")


# --- the rule -----------------------------------------------------------------------------


def test_fastest_takes_a_clearly_faster_candidate() -> None:
    assert fastest([10.0, 9.0, 8.5, 9.5]) == 2


def test_fastest_keeps_the_heuristic_within_the_margin() -> None:
    # 2% faster is noise: the heuristic's first answer (and its bits) stays.
    assert fastest([10.0, 9.8, 10.4]) == 0
    assert fastest([10.0, 9.69]) == 1


def test_fastest_breaks_ties_by_heuristic_order_and_skips_failures() -> None:
    assert fastest([10.0, 8.0, 8.0]) == 1
    assert fastest([INF, 5.0, 6.0]) == 1
    assert fastest([7.0, INF]) == 0
    with pytest.raises(ValueError):
        fastest([])


# --- the cache and the tuner --------------------------------------------------------------


def _tuner(path: Path) -> AlgorithmTuner:
    return AlgorithmTuner(AlgorithmCache(path))


def test_a_problem_is_measured_once_then_read_from_disk(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE
    candidates = [b"\x01" * 64, b"\x02" * 64, b"\x03" * 64]
    calls: list[int] = []

    def measure() -> list[float]:
        calls.append(1)
        return [10.0, 7.0, 9.0]

    tuner = _tuner(path)
    assert tuner.choose("k", candidates, measure) == 1
    assert tuner.choose("k", candidates, measure) == 1
    assert calls == [1] and tuner.measured == 1
    # Another process (a fresh tuner on the same file) takes the recorded choice.
    other = _tuner(path)
    assert other.choose("k", candidates, lambda: pytest.fail("measured again")) == 1
    # The heuristic may list the algorithms in another order later: the bytes decide.
    assert other.choose("k", list(reversed(candidates)), lambda: pytest.fail("again")) == 1
    entry = json.loads(path.read_text())["entries"]["k"]
    assert bytes.fromhex(entry["algo"]) == candidates[1]
    assert entry["median_us"] == [10.0, 7.0, 9.0]


def test_a_cached_algorithm_the_heuristic_no_longer_offers_is_measured_again(
    tmp_path: Path,
) -> None:
    tuner = _tuner(tmp_path / CACHE_FILE)
    assert tuner.choose("k", [b"a", b"b"], lambda: [5.0, 1.0]) == 1
    assert tuner.choose("k", [b"c", b"d"], lambda: [1.0, 5.0]) == 0
    assert tuner.measured == 2


def test_no_measuring_when_it_is_not_allowed_or_there_is_no_choice(tmp_path: Path) -> None:
    tuner = _tuner(tmp_path / CACHE_FILE)
    never = lambda: pytest.fail("measured")  # noqa: E731
    assert tuner.choose("k", [b"a", b"b"], never, may_measure=False) == 0
    assert tuner.choose("k", [b"a"], never) == 0
    assert not (tmp_path / CACHE_FILE).exists()
    # A recorded choice is still taken where measuring is not allowed (graph capture).
    tuner.choose("k", [b"a", b"b"], lambda: [5.0, 1.0])
    assert _tuner(tmp_path / CACHE_FILE).choose("k", [b"a", b"b"], never, False) == 1


def test_a_measurement_must_time_every_candidate(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="2 times for 3 candidates"):
        _tuner(tmp_path / CACHE_FILE).choose("k", [b"a", b"b", b"c"], lambda: [1.0, 2.0])


@pytest.mark.parametrize(
    "text", ["", "not json", '{"format": 99, "entries": {}}', "[1, 2]", '{"format": 1}']
)
def test_an_unreadable_cache_counts_as_empty_and_is_replaced(tmp_path: Path, text: str) -> None:
    path = tmp_path / CACHE_FILE
    path.write_text(text)
    tuner = _tuner(path)
    assert tuner.choose("k", [b"a", b"b"], lambda: [5.0, 1.0]) == 1
    assert json.loads(path.read_text())["format"] == 1


def test_the_cache_file_is_a_function_of_its_entries(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / CACHE_FILE, tmp_path / "b" / CACHE_FILE
    for path, order in ((first, ["x", "y"]), (second, ["y", "x"])):
        tuner = _tuner(path)
        for key in order:
            tuner.choose(key, [b"a", b"b"], lambda: [5.0, 1.0])
    assert first.read_text() == second.read_text()
    assert not list(first.parent.glob(".*.tmp"))


def test_problem_key_names_every_input_of_the_heuristic() -> None:
    base = dict(
        gpu="H200 sm90",
        cublaslt_version=130100,
        descriptor=("m", 1024),
        alignments={"A": 256, "B": 256},
        workspace_bytes=1 << 25,
        bias_dtype="bf16",
    )
    key = problem_key(**base)  # type: ignore[arg-type]
    assert key == problem_key(**base)  # type: ignore[arg-type]
    for field, other in (
        ("gpu", "A100 sm80"),
        ("cublaslt_version", 120900),
        ("descriptor", ("m", 1023)),
        ("alignments", {"A": 256, "B": 16}),
        ("workspace_bytes", 1 << 22),
        ("bias_dtype", "f32"),
    ):
        assert problem_key(**{**base, field: other}) != key, field  # type: ignore[arg-type]


# --- settings -----------------------------------------------------------------------------


def test_the_switch_and_the_cache_directory(tmp_path: Path, monkeypatch) -> None:
    assert autotune_requested(None, {}) is False
    assert autotune_requested(None, {"LUMIR_AUTOTUNE": "1"}) is True
    assert autotune_requested(False, {"LUMIR_AUTOTUNE": "1"}) is False
    with pytest.raises(AutotuneSettingError, match="must be 0 or 1, got 'on'"):
        autotune_requested(None, {"LUMIR_AUTOTUNE": "on"})
    monkeypatch.setenv("LUMIR_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("LUMIR_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x" / "lumir"


def test_backend_option() -> None:
    assert parse_options({}, {}).autotune is False
    assert parse_options({"autotune": True}, {}).autotune is True
    assert parse_options({}, {"LUMIR_AUTOTUNE": "1"}).autotune is True
    assert parse_options({"autotune": False}, {"LUMIR_AUTOTUNE": "1"}).autotune is False
    with pytest.raises(LumirOptionError, match="'autotune' must be True or False"):
        parse_options({"autotune": "yes"}, {})
    with pytest.raises(LumirOptionError, match="LUMIR_AUTOTUNE must be 0 or 1"):
        parse_options({}, {"LUMIR_AUTOTUNE": "2"})


def test_lumir_run_refuses_a_bad_switch() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "mlp_block.mlir"
    result = subprocess.run(
        [sys.executable, "-m", "lumir.tools.lumir_run", str(example)],
        capture_output=True,
        text=True,
        env={**os.environ, "LUMIR_AUTOTUNE": "yes"},
        check=False,
    )
    assert result.returncode == 1
    assert "LUMIR_AUTOTUNE must be 0 or 1, got 'yes'" in result.stderr
    assert "Traceback" not in result.stderr


# --- on the GPU ---------------------------------------------------------------------------


def _gpu() -> bool:
    from lumir.runtime.cuda_cublaslt import cublaslt_available

    return cublaslt_available()


needs_gpu = pytest.mark.skipif(not _gpu(), reason="needs nvmath-python and a CUDA device")


@pytest.mark.cuda
@needs_gpu
@pytest.mark.parametrize("beta", [0.0, 1.0], ids=["plain", "in-place-residual"])
def test_autotuned_plan_is_right_and_cached(tmp_path: Path, beta: float) -> None:
    """A 1B down-projection-shaped bf16 GEMM (the shape the heuristic serves worst):
    measuring leaves D (here also C) untouched, the run is right, and a second plan of
    the problem reads the choice from the file."""
    from test_cuda_cublaslt import as_buffer, assert_close, linear_descriptor, reference

    from lumir.cublaslt_enums import DataType
    from lumir.runtime.cuda_cublaslt import CublasLtMatmulPlan

    torch.manual_seed(0)
    rows, k, out = 256, 2048, 1024
    desc = linear_descriptor(DataType.BF16, rows=rows, k=k, out_features=out, beta=beta)
    x = torch.randn(rows, k, device="cuda").to(torch.bfloat16)
    w = (torch.randn(out, k, device="cuda") * k**-0.5).to(torch.bfloat16)
    r = torch.randn(rows, out, device="cuda").to(torch.bfloat16)
    before = r.clone()
    expected = reference(x, w, desc, c=r if beta else None)
    tuner = AlgorithmTuner(AlgorithmCache(tmp_path / CACHE_FILE))
    buffer = as_buffer(r)
    c = buffer if beta else None
    with CublasLtMatmulPlan(desc, as_buffer(w), as_buffer(x), buffer, c=c, tuner=tuner) as plan:
        torch.cuda.synchronize()
        assert torch.equal(r, before), "measuring wrote into the plan's D"
        plan.run()
        rank = plan.algorithm_rank
    torch.cuda.synchronize()
    assert_close(r, expected, DataType.BF16)
    assert tuner.measured == 1 and (tmp_path / CACHE_FILE).exists()
    again = AlgorithmTuner(AlgorithmCache(tmp_path / CACHE_FILE))
    with CublasLtMatmulPlan(desc, as_buffer(w), as_buffer(x), buffer, c=c, tuner=again) as plan:
        assert plan.algorithm_rank == rank
    assert again.measured == 0
