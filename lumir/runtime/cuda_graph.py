"""Capture a program's GPU launches into one CUDA graph and replay it.

Launching a cuBLASLt call or a torch op from Python costs tens of microseconds of host
time, more than a small GEMM takes on the GPU; replaying the same launches from a
captured CUDA graph costs a few microseconds each (docs/design.md, runtime). The CUDA
executor therefore runs a lowered program as a list of zero-argument launches over
static buffers, captures them once and replays the graph on every call.

API for the program executor:

    launches = [plan.run, lambda: torch.add(x, y, out=z), other_plan.run]
    static_input.copy_(first_input)        # the warm-up is a real run: inputs first
    program = CudaGraphProgram(launches)   # warm-up (the first call's work), capture
    static_input.copy_(new_input)          # the caller refreshes inputs in place
    program.replay()                       # on torch's current stream
    result = static_output.clone()         # before the next replay overwrites it
    program.close()                        # or `with CudaGraphProgram(...) as program:`

Rules for the launches, which are what make a captured graph correct:

- Each launch issues its GPU work on torch's current stream (`CublasLtMatmulPlan.run`
  with no argument does) and does no host synchronisation (no `.item()`, no printing of
  GPU values, no host-to-device copy of pageable memory).
- Launches read and write static buffers that live as long as the graph: inputs are
  copied into them before `replay()`, outputs are read from them after it. Torch ops
  should write with `out=` or in place (`copy_`, `add_`); a tensor a launch allocates
  comes from the graph's private memory pool and is only meaningful inside the graph.
- Every launch does the same work on every call: shapes and addresses are frozen at
  capture, so a new shape or buffer needs a new capture.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import TracebackType

import torch

#: A zero-argument callable that issues GPU work on torch's current stream.
Launch = Callable[[], object]


class GraphCaptureError(RuntimeError):
    """The warm-up ran, the capture failed (a launch that synchronises, say); the
    error that stopped it is `__cause__`."""


class CudaGraphProgram:
    """A list of launches captured into one `torch.cuda.CUDAGraph`.

    Construction runs the launches `warmup` times on a side stream, then captures them
    once on that stream. Warming up first is what lets capture succeed: cuBLASLt loads
    its kernels lazily on first use, torch creates its cuBLAS handles and workspaces
    lazily per stream, and none of that may happen during capture. The warm-up runs
    are real runs on whatever the buffers hold, so the inputs must be in place first:
    a launch that updates a tensor in place (a KV cache) updates it `warmup` times.
    Raises `GraphCaptureError` when the warm-up ran but the capture failed.

    Args:
        launches: the program's launches in order (see the module docstring's rules).
        device: the CUDA device they run on; defaults to the current one.
        warmup: how many times to run the launches before capture (at least 1).
        pool: a memory pool handle (`other.pool`) to share with another captured
            program, so programs that never run concurrently reuse the same memory.
    """

    def __init__(
        self,
        launches: Sequence[Launch],
        *,
        device: int | torch.device | None = None,
        warmup: int = 1,
        pool: tuple[int, int] | None = None,
    ) -> None:
        if warmup < 1:
            raise ValueError(f"warmup must be at least 1, got {warmup}")
        self.launches = tuple(launches)
        if device is None:
            device = torch.cuda.current_device()
        self.device = torch.device("cuda", device) if isinstance(device, int) else device
        self._graph: torch.cuda.CUDAGraph | None = self._capture(warmup, pool)

    def _capture(self, warmup: int, pool: tuple[int, int] | None) -> torch.cuda.CUDAGraph:
        with torch.cuda.device(self.device):
            caller = torch.cuda.current_stream(self.device)
            side = torch.cuda.Stream(self.device)
            # The side stream must see what the caller's stream wrote to the inputs.
            side.wait_stream(caller)
            with torch.cuda.stream(side):
                for _ in range(warmup):
                    self.run_eager()
            caller.wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(graph, pool=pool, stream=side):
                    self.run_eager()
            except Exception as error:
                raise GraphCaptureError("capturing the launches failed") from error
        return graph

    def run_eager(self) -> None:
        """Run the launches once without the graph, on torch's current stream.

        The same work `replay()` does, launch by launch; useful to compare against the
        graph or to debug a launch.
        """
        for launch in self.launches:
            launch()

    def replay(self, stream: torch.cuda.Stream | None = None) -> None:
        """Replay the captured launches on `stream` (default: torch's current stream).

        Asynchronous: synchronise (or record an event) before reading the outputs on
        the host. Replays on one stream are ordered, so consecutive calls need no sync.
        """
        graph = self._graph
        if graph is None:
            raise RuntimeError("replay() on a closed CudaGraphProgram")
        if stream is None:
            graph.replay()
        else:
            with torch.cuda.stream(stream):
                graph.replay()

    @property
    def pool(self) -> tuple[int, int]:
        """The graph's memory pool handle, to pass as another program's `pool`."""
        if self._graph is None:
            raise RuntimeError("pool of a closed CudaGraphProgram")
        return self._graph.pool()

    def close(self) -> None:
        """Free the captured graph and its private memory. Idempotent."""
        if self._graph is not None:
            self._graph.reset()
            self._graph = None

    def __enter__(self) -> CudaGraphProgram:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
