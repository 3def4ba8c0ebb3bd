"""A measured cuBLASLt algorithm per problem: the heuristic's best few, timed once, on disk.

cuBLASLt's heuristic ranks its algorithms with a model of the GPU. Where a problem's
output tiles fill the GPU unevenly its first answer is not always the fastest: at 1024
rows the 1B model's q/o projections and its down projection have 64 output tiles of
128 x 256 for 132 SMs, and the down projection ran at 566 TFLOP/s against ~750 for the
gate/up projections of the same run. The lever issue 11 names for it is this one:
measure the heuristic's top candidates once per problem, keep the fastest, cache the
choice on disk.

With autotuning on (`LUMIR_AUTOTUNE=1`, or `options={"autotune": True}` in the backend),
a cuBLASLt plan asks the heuristic for its best `TOP_K` algorithms, times each on the
plan's own operands (into a scratch D, so nothing a program holds is written; with an
L2 flush before every timed call, CUDA events, the median of `REPEATS`) and keeps the
fastest unless it beats the heuristic's first by less than `MARGIN`. The choice is
written to `cublaslt-algorithms.json` in `cache_dir()`, keyed by the GPU, the cuBLASLt
version and the whole problem (descriptor, alignments, workspace, bias type), so every
later plan of that problem, in this process or any other, reuses it without measuring.

Determinism: algorithms differ in summation order, so a result's bits depend on the
choice. With autotuning off (the default) the choice is the heuristic's first answer, a
function of the problem alone. With it on, the first process to meet a problem decides
by timing and every later one reads that decision: runs are reproducible for as long as
the cache file is kept (delete it to measure again). A plan built during CUDA-graph
capture never measures; it takes the cached choice or the heuristic's first.

Everything here but `time_candidates` is plain Python and tested on the CPU.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import torch

TOP_K = 8
"""Heuristic candidates timed per problem."""

REPEATS = 7
"""Timed calls per candidate; the median is kept."""

MARGIN = 0.03
"""A candidate replaces the heuristic's first only when at least this much faster (3%):
closer than that is run-to-run noise, and keeping the heuristic's answer keeps the bits
that autotuning off gives."""

L2_FLUSH_BYTES = 64 * 1024 * 1024
"""Written before every timed call so no candidate finds its operands in L2 (the H200
has 50 MB), as a model's weights are not when the call comes."""

CACHE_FILE = "cublaslt-algorithms.json"
FORMAT_VERSION = 1

_SWITCH = "LUMIR_AUTOTUNE"


class AutotuneSettingError(ValueError):
    """`LUMIR_AUTOTUNE` holds something other than 0 or 1."""


def autotune_requested(
    explicit: bool | None = None, environ: Mapping[str, str] | None = None
) -> bool:
    """Whether plans measure their algorithm: `explicit` when given, else `LUMIR_AUTOTUNE`
    (of `environ`, default the process's)."""
    if explicit is not None:
        return explicit
    value = (os.environ if environ is None else environ).get(_SWITCH, "0").strip()
    if value not in ("0", "1", ""):
        raise AutotuneSettingError(f"{_SWITCH} must be 0 or 1, got {value!r}")
    return value == "1"


def cache_dir() -> Path:
    """`LUMIR_CACHE_DIR`, else `$XDG_CACHE_HOME/lumir`, else `~/.cache/lumir`."""
    explicit = os.environ.get("LUMIR_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "lumir"


def problem_key(
    gpu: str,
    cublaslt_version: int,
    descriptor: object,
    alignments: Mapping[object, int],
    workspace_bytes: int,
    bias_dtype: object,
) -> str:
    """One line naming everything the heuristic's answer depends on."""
    aligned = ",".join(f"{getattr(k, 'value', k)}={v}" for k, v in alignments.items())
    return (
        f"{gpu} | cublasLt {cublaslt_version} | {descriptor!r} | align {aligned} | "
        f"workspace {workspace_bytes} | bias {bias_dtype}"
    )


def fastest(times: Sequence[float], margin: float = MARGIN) -> int:
    """The candidate to keep: the fastest, if it beats candidate 0 (the heuristic's
    first) by more than `margin`, else 0; on equal times the heuristic's order decides.
    A candidate that failed to run has the time `inf`."""
    if not times:
        raise ValueError("no candidate was timed")
    best = min(range(len(times)), key=lambda i: (times[i], i))
    if best != 0 and times[best] >= times[0] * (1.0 - margin):
        return 0
    return best


class AlgorithmCache:
    """The chosen algorithm (its 64 opaque bytes, hex) per problem key, kept in a JSON file.

    Read once when first needed; every new choice rewrites the file atomically (a
    temporary file renamed over it), with sorted keys so its text is a function of its
    entries. A file that cannot be read or parsed counts as empty (and is replaced on
    the next choice): a cache must never stop a program from loading.
    """

    def __init__(self, path: Path):
        self.path = path
        self._entries: dict[str, dict[str, object]] | None = None
        self._lock = threading.Lock()

    def entries(self) -> dict[str, dict[str, object]]:
        if self._entries is None:
            self._entries = _read_entries(self.path)
        return self._entries

    def get(self, key: str) -> bytes | None:
        entry = self.entries().get(key)
        algo = entry.get("algo") if isinstance(entry, dict) else None
        try:
            return bytes.fromhex(algo) if isinstance(algo, str) else None
        except ValueError:
            return None

    def put(self, key: str, algo: bytes, times_us: Sequence[float], index: int) -> None:
        with self._lock:
            self.entries()[key] = {
                "algo": algo.hex(),
                "heuristic_rank": index,
                "median_us": [round(t, 3) if t != float("inf") else None for t in times_us],
            }
            self._write()

    def _write(self) -> None:
        text = json.dumps(
            {"format": FORMAT_VERSION, "entries": self.entries()}, indent=1, sort_keys=True
        )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            temporary.write_text(text + "\n")
            os.replace(temporary, self.path)
        except OSError:
            pass  # an unwritable cache only means measuring again next time


def _read_entries(path: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
        return {}
    return dict(entries) if isinstance(entries, dict) else {}


class AlgorithmTuner:
    """Picks one of the heuristic's candidates per problem: cached, else measured."""

    def __init__(self, cache: AlgorithmCache):
        self.cache = cache
        self.measured = 0
        """Problems timed by this tuner (the others came from the cache)."""

    def choose(
        self,
        key: str,
        candidates: Sequence[bytes],
        measure: Callable[[], Sequence[float]],
        may_measure: bool = True,
    ) -> int:
        """The index of the candidate to run.

        `candidates` are the heuristic's answers, best first; `measure` times all of
        them (seconds or any unit, one number each). A cached choice that is among the
        candidates is taken as it is; otherwise the candidates are measured (unless
        `may_measure` is false, as during CUDA-graph capture: then the heuristic's first)
        and the choice is cached.
        """
        if len(candidates) <= 1:
            return 0
        cached = self.cache.get(key)
        if cached is not None and cached in candidates:
            return candidates.index(cached)
        if not may_measure:
            return 0
        times = list(measure())
        if len(times) != len(candidates):
            raise ValueError(f"measured {len(times)} times for {len(candidates)} candidates")
        index = fastest(times)
        self.measured += 1
        self.cache.put(key, candidates[index], times, index)
        return index


_tuners: dict[Path, AlgorithmTuner] = {}
_tuners_lock = threading.Lock()


def process_tuner() -> AlgorithmTuner:
    """The tuner of the process for the current `cache_dir()` (one per file)."""
    path = cache_dir() / CACHE_FILE
    with _tuners_lock:
        tuner = _tuners.get(path)
        if tuner is None:
            tuner = _tuners[path] = AlgorithmTuner(AlgorithmCache(path))
        return tuner


def time_candidates(
    launch: Callable[[int], None], count: int, device: torch.device, repeats: int = REPEATS
) -> list[float]:
    """Median CUDA-event time (µs) of `launch(i)` for each of `count` candidates.

    Every candidate runs once untimed first (a candidate that raises there is given
    `inf` and never timed again). The timed calls go round the candidates `repeats`
    times, starting one candidate later each round, each after an L2 flush.
    """
    usable = []
    for index in range(count):
        try:
            launch(index)
            usable.append(index)
        except Exception:  # a candidate cuBLASLt cannot run is simply not chosen
            continue
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device=device)
    marks: list[tuple[int, torch.cuda.Event, torch.cuda.Event]] = []
    for round_ in range(repeats):
        for offset in range(len(usable)):
            index = usable[(round_ + offset) % len(usable)]
            flush.zero_()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            launch(index)
            end.record()
            marks.append((index, start, end))
    torch.cuda.synchronize(device)
    samples: dict[int, list[float]] = {i: [] for i in usable}
    for index, start, end in marks:
        samples[index].append(start.elapsed_time(end) * 1000.0)
    return [statistics.median(samples[i]) if i in samples else float("inf") for i in range(count)]
