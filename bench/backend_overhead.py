"""Host overhead of one backend call: bare program replay vs backend call vs eager.

    PYTHONPATH=$PWD python3 bench/backend_overhead.py --device cuda --hidden 2048 --seq 6
    PYTHONPATH=$PWD python3 bench/backend_overhead.py --device cpu --hidden 256 --seq 6

The residual-chain block (bf16 RMSNorm with an f32 inside -> Linear -> residual add,
twice; the module of issue 10) is compiled with `backend="lumir"`. Three calls on the
same input are timed (warm-up first, then per-call times: CUDA events on CUDA,
wall clock on CPU; medians printed):

- `bare`: the loaded program's `run_unchecked` on the activation: one input copy and
  the replay of its CUDA graph (on CPU, its launches), nothing else;
- `backend`: the compiled module, as a user calls it (Dynamo's guards, aot_autograd's
  wrapper, the partition's call plan, the output copy);
- `null-backend`: the module through `torch.compile` with a backend that does no work
  at all (it returns the outputs it computed once, at compile time): what Dynamo and
  its guards cost any backend per call, lumir's or inductor's, the floor under
  `backend`;
- `eager`: the module in eager torch.

`backend - bare` is the host overhead per call that issue 11 is about; `null-backend`
is the part of it no backend can remove.
"""

from __future__ import annotations

import argparse
import gc
import sys

import torch

from bench.timing import time_calls
from lumir.backend import stats  # registers "lumir"
from lumir.backend.partition import CompiledPartition


class RMSNorm(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.to(torch.float32)
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.weight * x32.to(x.dtype)


class ResidualChain(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.norms = torch.nn.ModuleList([RMSNorm(hidden) for _ in range(2)])
        self.linears = torch.nn.ModuleList([torch.nn.Linear(hidden, hidden) for _ in range(2)])

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        for norm, linear in zip(self.norms, self.linears, strict=True):
            h = h + linear(norm(h))
        return h


def _only_partition() -> CompiledPartition:
    """The chain's one compiled partition (found among live objects: the bench needs
    its program, which the backend does not otherwise hand out)."""
    found = [o for o in gc.get_objects() if type(o) is CompiledPartition]
    if len(found) != 1:
        raise SystemExit(f"expected one compiled partition, found {len(found)}")
    return found[0]


def _null_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
    """A torch.compile backend that computes nothing per call: the graph runs once
    here and every call returns those outputs."""
    outputs = gm(*example_inputs)
    return lambda *args: outputs


def _eager_graph(model: torch.nn.Module, x: torch.Tensor):
    """The eager module captured whole into one CUDA graph: the peer to beat."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(x)
    return graph.replay


@torch.no_grad()
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--seq", type=int, default=6)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument(
        "--fuse-kernels",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the backend option fuse_kernels (default on; --no-fuse-kernels turns it off)",
    )
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("CUDA is not available here; use --device cpu", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    model = ResidualChain(args.hidden).to(device, torch.bfloat16).eval()
    x = torch.randn(1, args.seq, args.hidden, device=device, dtype=torch.bfloat16)
    stats.reset()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="lumir", options={"fuse_kernels": args.fuse_kernels})
    compiled(x)
    partition = _only_partition()
    (entry,) = partition.cache.values()
    program = entry.program
    assert program is not None and entry.plan is not None
    activations = (x,)
    if len(program.static) + len(activations) != len(entry.imported.arguments):
        raise SystemExit("expected every weight bound and the hidden state as the only input")
    torch.testing.assert_close(compiled(x), model(x), atol=5e-2, rtol=5e-2)

    # Its own frame (the lambda), so Dynamo's cache for the module's forward holds lumir's
    # entry alone and neither call checks the other's guards.
    null = torch.compile(lambda t: model(t), backend=_null_backend)
    torch.testing.assert_close(null(x), model(x), atol=5e-2, rtol=5e-2)
    rows = [
        ("bare", lambda: program.run_unchecked(activations)),
        ("backend", lambda: compiled(x)),
        ("null-backend", lambda: null(x)),
        ("eager", lambda: model(x)),
    ]
    if device.type == "cuda":
        rows.append(("eager-graph", _eager_graph(model, x)))
    medians: dict[str, float] = {}
    for name, call in rows:
        timing = time_calls(call, device, args.warmup, args.iters)
        medians[name] = timing.median_ms
        print(
            f"{name:12s} median={timing.median_ms:.4f} ms p10={timing.p10_ms:.4f} "
            f"p90={timing.p90_ms:.4f} calls={timing.calls}"
        )
    loads = sum(p.loads for g in stats.GRAPHS for p in g.partitions)
    print(
        f"overhead backend-bare={medians['backend'] - medians['bare']:.4f} ms "
        f"floor null-backend={medians['null-backend']:.4f} ms "
        f"device={device} hidden={args.hidden} seq={args.seq} loads={loads} "
        f"fuse_kernels={args.fuse_kernels}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
