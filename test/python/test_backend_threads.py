"""A compiled model called from several threads at once gives each call its own answer.

A program's buffers are its own and shared by every call, so two calls that overlap
would read each other's inputs and outputs (they did: 165 of 240 wrong results at 8
threads). Calls now take turns on a program (`Program.lock`, from the input copies to
the output copies) and on a partition's slow path (`CompiledPartition.slow_lock`:
compile, load, evict), as eager torch and inductor's compiled code are safe to call
from several threads.
"""

from __future__ import annotations

import contextlib
import threading

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir")
from lumir.testing.devices import ON_CUDA

THREADS = 6
CALLS = 15


def _mlp(device: str) -> torch.nn.Module:
    torch.manual_seed(0)
    return (
        torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64))
        .to(device)
        .eval()
    )


def _run_together(work, count: int) -> list[BaseException]:
    """Run `work(i)` for i < count on that many threads, started together."""
    start = threading.Barrier(count)
    failures: list[BaseException] = []

    def body(i: int) -> None:
        start.wait()
        try:
            work(i)
        except BaseException as error:  # reported by the test
            failures.append(error)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def _calls_match(compiled, inputs, expected) -> list[BaseException]:
    """Thread i calls `compiled(inputs[i])` CALLS times, all threads at once; each
    result must be `expected[i]`. The failures."""

    def work(i: int) -> None:
        with torch.no_grad():
            for _ in range(CALLS):
                torch.testing.assert_close(compiled(inputs[i]), expected[i])

    return _run_together(work, len(inputs))


@pytest.mark.parametrize("device", ["cpu", ON_CUDA])
def test_concurrent_calls_each_get_their_own_result(device):
    model = _mlp(device)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="lumir")
    inputs = [torch.randn(32, 64, device=device) for _ in range(THREADS)]
    with torch.no_grad():
        compiled(inputs[0])  # compiled and loaded before the threads start
        expected = [model(x) for x in inputs]
    assert _calls_match(compiled, inputs, expected) == []


def test_concurrent_new_lengths_compile_one_at_a_time():
    """Threads bring three lengths (two threads each) to a dynamic graph whose cache
    holds two: the slow path (re-type, load, evict and close a program) runs for
    several lengths at once, beside runs of the programs it evicts and of the ones two
    threads share."""
    model = _mlp("cpu")
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="lumir", dynamic=True, options={"cache_size": 2})
    inputs = [torch.randn(3 + i % 3, 64) for i in range(THREADS)]
    with torch.no_grad():
        compiled(torch.randn(2, 64))
        expected = [model(x) for x in inputs]
    assert _calls_match(compiled, inputs, expected) == []


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_threads_on_streams_of_their_own_get_their_own_result():
    """Each thread calls on a CUDA stream of its own: the host takes turns, and each
    call's stream waits for the previous call's (`Program._follow_stream`), so no
    replay reads buffers that another stream's call is writing. The products are large
    (milliseconds a call) so that overlapping calls would overlap on the device."""
    torch.manual_seed(0)
    model = (
        torch.nn.Sequential(
            torch.nn.Linear(2048, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 2048)
        )
        .cuda()
        .eval()
    )
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="lumir")
    inputs = [torch.randn(2048, 2048, device="cuda") for _ in range(4)]
    with torch.no_grad():
        compiled(inputs[0])
        expected = [model(x) for x in inputs]
    torch.cuda.synchronize()
    streams = [torch.cuda.Stream() for _ in inputs]

    def work(i: int) -> None:
        with torch.no_grad(), torch.cuda.stream(streams[i]):
            for _ in range(CALLS):
                got = compiled(inputs[i])
                streams[i].synchronize()
                torch.testing.assert_close(got, expected[i], atol=1e-3, rtol=1e-3)

    assert _run_together(work, len(inputs)) == []


def test_graphs_compiled_at_once_from_two_threads_get_two_names(monkeypatch):
    """A graph's name is its number (`graph0`, ...) and names its dump files: two graphs
    registered at the same moment must not both take the same number."""
    from lumir.backend import stats

    stats.reset()
    made = stats.GraphStats
    barrier = threading.Barrier(2)

    def slow_stats(label: str) -> stats.GraphStats:
        # both threads have read the count before either appends (unless one waits
        # for the other to finish, as it must)
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=0.5)
        return made(label)

    monkeypatch.setattr(stats, "GraphStats", slow_stats)
    threads = [threading.Thread(target=stats.new_graph) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(graph.label for graph in stats.GRAPHS) == ["graph0", "graph1"]
    stats.reset()
