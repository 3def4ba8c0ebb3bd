"""Timing one candidate: warm-up, then per-call times, their median and spread.

On CUDA each call is bracketed by CUDA events recorded on the current stream, so the
time is the device's from the start of one call's work to the end of it, including the
gaps in which the GPU waited for the host to launch (that is the cost of a host-bound
call). On CPU it is wall-clock time. Peak memory is `torch.cuda.max_memory_allocated`
since the candidate started (weights included), in GiB; on CPU it is not measured.

`graph_time_us` times one kernel launch as lumir replays it: many launches captured in
one CUDA graph, the median replay divided by the launches (the sweeps of single kernels
share it).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import torch

Item = TypeVar("Item")

GIB = 1024**3


@dataclass(frozen=True)
class Timing:
    """Per-call times of one candidate, in milliseconds."""

    median_ms: float
    p10_ms: float
    p90_ms: float
    calls: int


def summarise(times_ms: list[float]) -> Timing:
    """Median and 10th / 90th percentiles (inclusive method, so 1 sample works)."""
    if not times_ms:
        raise ValueError("no timed calls")
    if len(times_ms) == 1:
        only = times_ms[0]
        return Timing(only, only, only, 1)
    deciles = statistics.quantiles(times_ms, n=10, method="inclusive")
    return Timing(statistics.median(times_ms), deciles[0], deciles[-1], len(times_ms))


def time_calls(call: Callable[[], object], device: torch.device, warmup: int, iters: int) -> Timing:
    """Run `call` `warmup` times untimed, then `iters` times timed one by one."""
    for _ in range(warmup):
        call()
    if device.type == "cuda":
        return summarise(_cuda_times(call, iters))
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return summarise(times)


def _cuda_times(call: Callable[[], object], iters: int) -> list[float]:
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    torch.cuda.synchronize()
    for start, end in zip(starts, ends, strict=True):
        start.record()
        call()
        end.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in zip(starts, ends, strict=True)]


def graph_time_us(launch: Callable[[], object], repeat: int, samples: int = 15) -> float:
    """µs per call of `launch` (CUDA): warmed up (Triton compiles on a first call) on a
    side stream, `repeat` calls captured in one CUDA graph, the median of `samples`
    replays timed with CUDA events, divided by `repeat`."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            launch()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(repeat):
            launch()
    for _ in range(3):
        graph.replay()
    times = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / repeat)
    return statistics.median(times)


def rotating(items: Sequence[Item], step: Callable[[Item], object]) -> Callable[[], object]:
    """A launch that runs `step` on the next of `items` each time it is called, so a graph
    of many launches streams distinct buffers from HBM rather than from L2."""
    counter = itertools.count()
    return lambda: step(items[next(counter) % len(items)])


def first_call_seconds(prepare: Callable[[], Callable[[], object]], device: torch.device):
    """Build a candidate and make its first call; return (the call, wall seconds for both).

    The first call is where torch.compile and lumir compile, so this is the compile time
    a user waits for.
    """
    synchronize(device)
    start = time.perf_counter()
    call = prepare()
    call()
    synchronize(device)
    return call, time.perf_counter() - start


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def reset_peak_memory(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def peak_memory_gib(device: torch.device) -> float | None:
    if device.type != "cuda":
        return None
    return torch.cuda.max_memory_allocated(device) / GIB
