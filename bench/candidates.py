"""The ways of running a workload that the benchmark puts side by side.

Each candidate turns a workload into a zero-argument call, doing whatever compiling it
does in `prepare` (whose time, with the first call, is the first-call column), or says
why it does not apply. They all run the same module on the same inputs.

- eager: the module as written.
- eager-graph: the eager module captured whole into one `torch.cuda.CUDAGraph` and
  replayed: the same unfused kernels without launch overhead (CUDA only).
- inductor, reduce-overhead, max-autotune-no-cudagraphs, max-autotune: `torch.compile`
  in that mode (`dynamic=False`, one specialisation per shape, as the issue measures).
- lumir: `torch.compile(module, backend="lumir")`.
- lumir-autotune: the same with `options={"autotune": True}`: each cuBLASLt call runs
  the fastest of the heuristic's best algorithms, measured once per problem (its first
  call includes the measuring unless the cache in `LUMIR_CACHE_DIR` already has them).
- lumir-unchunked: the same with `options={"chunk_bytes": 0}`: every row-local GEMM
  group runs whole (chunk-rows off), to measure what running a long prompt's MLP in row
  chunks costs in time and saves in memory.
- lumir-no-epilogue: the same with `options={"gemv_epilogue": False}`: a GEMV group and
  the elementwise kernel reading its results (a decode step's SiLU(gate) * up) run as two
  launches, to measure what the one kernel saves.
- lumir-prologue: the same with `options={"gemv_prologue": True}`: the one-row kernel
  computing a GEMV group's activation (a decode step's RMSNorm before q/k/v and gate/up)
  runs inside the group's launch (gemv-prologue, off by default), to measure what that
  one kernel saves or costs.
- lumir-fused-group: the same with `options={"group_fused": True}`: fused kernels that
  depend on none of each other (a layer's q and k rotaries) run as one launch
  (group-fused, off by default), to measure what that one launch saves or costs.
- frontend-dynamo, frontend-aot: what every backend's first call pays before its own
  compiler runs: Dynamo's trace alone (a backend that returns the graph as it is), and
  Dynamo with aot_autograd tracing to ATen under lumir's decompositions (a compiler
  that returns the ATen graph as it is). Their later calls run eager kernels.
- lumir-direct / lumir-direct-replay (residual chain and Llama layer): the module
  written as `hl`, compiled with lumir-pipeline and loaded with `lumir.runtime.load`;
  `-direct` times `program(...)` (input binding, replay, output copy), `-replay` only
  the launches (on CUDA replayed from one CUDA graph) with the inputs already bound.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import torch

from bench.workloads import Workload

Call = Callable[[], object]

INDUCTOR_MODES = {
    "inductor": None,
    "reduce-overhead": "reduce-overhead",
    "max-autotune-no-cudagraphs": "max-autotune-no-cudagraphs",
    "max-autotune": "max-autotune",
}
CUDAGRAPH_MODES = {"reduce-overhead", "max-autotune"}
AUTOTUNE_MODES = ("max-autotune-no-cudagraphs", "max-autotune")

ORDER = (
    "eager",
    "eager-graph",
    "lumir-direct",
    "lumir-direct-replay",
    "lumir",
    "lumir-autotune",
    "lumir-unchunked",
    "lumir-no-epilogue",
    "lumir-prologue",
    "lumir-fused-group",
    "reduce-overhead",
    "inductor",
    "max-autotune-no-cudagraphs",
    "max-autotune",
    "frontend-dynamo",
    "frontend-aot",
)
"""Every candidate, cheapest and most needed first: when the time budget runs out, what
is skipped is the autotuning modes. The frontend floors come last: they run only when
named."""

FRONTEND_MODES = ("frontend-dynamo", "frontend-aot")
"""The first-call floors every backend stands on (Dynamo; Dynamo and aot_autograd): for
`bench.isolated`, never in a default comparison."""

DEFAULT_MODES = tuple(name for name in ORDER if name not in FRONTEND_MODES)
"""What `bench.compare` runs when no `--modes` are given."""

ESTIMATE_S = {
    ("chain", "eager"): 1,
    ("chain", "eager-graph"): 1,
    ("chain", "lumir-direct"): 10,
    ("chain", "lumir-direct-replay"): 10,
    ("chain", "lumir-autotune"): 20,
    ("chain", "lumir"): 20,
    ("chain", "lumir-unchunked"): 20,
    ("chain", "lumir-no-epilogue"): 20,
    ("chain", "lumir-prologue"): 20,
    ("chain", "lumir-fused-group"): 20,
    ("chain", "inductor"): 15,
    ("chain", "reduce-overhead"): 15,
    ("chain", "max-autotune-no-cudagraphs"): 45,
    ("chain", "max-autotune"): 45,
    ("layer", "eager"): 1,
    ("layer", "eager-graph"): 1,
    ("layer", "lumir-direct"): 15,
    ("layer", "lumir-direct-replay"): 15,
    ("layer", "lumir-autotune"): 20,
    ("layer", "lumir"): 20,
    ("layer", "lumir-unchunked"): 20,
    ("layer", "lumir-no-epilogue"): 20,
    ("layer", "lumir-prologue"): 20,
    ("layer", "lumir-fused-group"): 20,
    ("layer", "inductor"): 15,
    ("layer", "reduce-overhead"): 15,
    ("layer", "max-autotune-no-cudagraphs"): 60,
    ("layer", "max-autotune"): 60,
    ("llama", "eager"): 3,
    ("llama", "eager-graph"): 5,
    ("llama", "lumir-autotune"): 70,
    ("llama", "lumir"): 60,
    ("llama", "lumir-unchunked"): 60,
    ("llama", "lumir-no-epilogue"): 60,
    ("llama", "lumir-prologue"): 60,
    ("llama", "lumir-fused-group"): 60,
    ("llama", "inductor"): 32,
    ("llama", "reduce-overhead"): 25,
    ("llama", "max-autotune-no-cudagraphs"): 150,
    ("llama", "max-autotune"): 150,
    ("gpt2", "eager"): 3,
    ("gpt2", "eager-graph"): 5,
    ("gpt2", "lumir-autotune"): 70,
    ("gpt2", "lumir"): 60,
    ("gpt2", "lumir-unchunked"): 60,
    ("gpt2", "lumir-no-epilogue"): 60,
    ("gpt2", "lumir-prologue"): 60,
    ("gpt2", "lumir-fused-group"): 60,
    ("gpt2", "inductor"): 32,
    ("gpt2", "reduce-overhead"): 25,
    ("gpt2", "max-autotune-no-cudagraphs"): 150,
    ("gpt2", "max-autotune"): 150,
}
"""Seconds each candidate is expected to take on the H200 (compile, warm-up and timing),
from shared measurements: inductor's 1B compile 16-32 s, max-autotune 104-149 s. The
budget check skips a candidate whose estimate no longer fits."""


class NotApplicable(Exception):
    """The candidate cannot run this workload here; the message says why."""


@dataclass(frozen=True)
class Prepared:
    """A candidate ready to time: the call, and what to compare with eager's output."""

    call: Call
    output: Callable[[], torch.Tensor | None]


def prepare(name: str, workload: Workload, device: torch.device) -> Prepared:
    """Build candidate `name` for `workload` and return it ready to call.

    Raises:
        NotApplicable: the candidate does not apply (no GPU, no lumir backend, ...).
    """
    if name == "eager":
        return _with_output(workload.call)
    if name == "eager-graph":
        return _eager_graph(workload, device)
    if name in INDUCTOR_MODES:
        return _inductor(workload, INDUCTOR_MODES[name], name in CUDAGRAPH_MODES)
    if name in LUMIR_OPTIONS:
        return _lumir_backend(workload, LUMIR_OPTIONS[name])
    if name in FRONTEND_MODES:
        return _frontend(workload, aot=name == "frontend-aot")
    if name in ("lumir-direct", "lumir-direct-replay"):
        return _lumir_direct(workload, device, replay=name == "lumir-direct-replay")
    raise ValueError(f"unknown candidate {name!r}")


def main_output(result: object) -> torch.Tensor | None:
    """The tensor to compare: the result itself, a model output's logits, or the first."""
    if isinstance(result, torch.Tensor):
        return result
    logits = getattr(result, "logits", None)
    if isinstance(logits, torch.Tensor):
        return logits
    if isinstance(result, tuple | list) and result:
        return main_output(result[0])
    return None


def _with_output(call: Call) -> Prepared:
    return Prepared(call, lambda: main_output(call()))


def _eager_graph(workload: Workload, device: torch.device) -> Prepared:
    if device.type != "cuda":
        raise NotApplicable("eager-graph: CUDA graphs need a CUDA device")
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for _ in range(3):  # lazy cuBLAS handles and workspaces, before capture
            workload.call()
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static = main_output(workload.call())
    return Prepared(graph.replay, lambda: (graph.replay(), static)[1])


def _inductor(workload: Workload, mode: str | None, cudagraphs: bool) -> Prepared:
    torch._dynamo.reset()
    compiled = torch.compile(workload.module, mode=mode, dynamic=False)
    if not cudagraphs:
        return _with_output(lambda: workload.call(compiled))

    def call() -> object:
        # The caller does not keep outputs between calls: tell cudagraph trees so.
        torch.compiler.cudagraph_mark_step_begin()
        return workload.call(compiled)

    return Prepared(call, lambda: _cloned(main_output(call())))


def _cloned(tensor: torch.Tensor | None) -> torch.Tensor | None:
    return tensor.clone() if tensor is not None else None


BACKEND_MODULES = ("lumir.backend", "lumir.torch_backend", "lumir.dynamo")
"""Where the lumir torch.compile backend may live; importing it registers "lumir"."""


def lumir_backend_available() -> bool:
    """Whether `torch.compile(..., backend="lumir")` resolves, without an installed package.

    Entry points only exist for an installed lumir; on the GPU machine (PYTHONPATH only)
    the backend registers itself when its module is imported.
    """
    for module in BACKEND_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:
            continue
    return "lumir" in torch._dynamo.list_backends(exclude_tags=())


LUMIR_OPTIONS: dict[str, dict[str, object] | None] = {
    "lumir": None,
    "lumir-autotune": {"autotune": True},
    "lumir-unchunked": {"chunk_bytes": 0},
    "lumir-no-epilogue": {"gemv_epilogue": False},
    "lumir-prologue": {"gemv_prologue": True},
    "lumir-fused-group": {"group_fused": True},
}
"""The backend candidates and the `torch.compile` options each passes."""


def _lumir_backend(workload: Workload, options: dict[str, object] | None) -> Prepared:
    if not lumir_backend_available():
        raise NotApplicable("lumir: backend not available")
    torch._dynamo.reset()
    compiled = torch.compile(workload.module, backend="lumir", dynamic=False, options=options)
    return _with_output(lambda: workload.call(compiled))


def _frontend(workload: Workload, aot: bool) -> Prepared:
    from torch._dynamo.backends.common import aot_autograd

    from lumir.frontend.decompositions import lumir_decompositions

    def as_traced(gm: torch.fx.GraphModule, example_inputs: object) -> Call:
        return gm.forward

    backend = as_traced
    if aot:
        backend = aot_autograd(fw_compiler=as_traced, decompositions=lumir_decompositions())
    torch._dynamo.reset()
    compiled = torch.compile(workload.module, backend=backend, dynamic=False)
    return _with_output(lambda: workload.call(compiled))


def _lumir_direct(workload: Workload, device: torch.device, replay: bool) -> Prepared:
    if workload.hl_text is None or workload.direct_inputs is None:
        raise NotApplicable(f"lumir-direct: no hl text for {workload.family}")
    from lumir.context import lumir_context
    from lumir.parsing import LocatedParser
    from lumir.passes.pipeline import LumirPipelinePass
    from lumir.runtime import load

    module = LocatedParser(lumir_context(), workload.hl_text, workload.name).parse_module()
    LumirPipelinePass().apply(lumir_context(), module)
    # Replay times the graph of `program.launches` alone: every matmul must be in it.
    program = load(module, device.type, cuda_graph=not replay, fresh_outputs=not replay)
    inputs = workload.direct_inputs
    if not replay:
        return _with_output(lambda: program(*inputs))
    program(*inputs)  # binds the inputs into the static buffers once
    if device.type == "cuda":
        from lumir.runtime.cuda_graph import CudaGraphProgram

        graph = CudaGraphProgram(program.launches, device=device)
        return Prepared(graph.replay, lambda: None)

    def run_launches() -> None:
        for launch in program.launches:
            launch()

    return Prepared(run_launches, lambda: None)
