"""lumir.backend.partitions answers exactly what torch's partitioner would."""

from __future__ import annotations

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner

from lumir.backend.compiler import _LumirSupport
from lumir.backend.partitions import propose_partitions
from lumir.frontend import unsupported_reason


def _chain(x, w):
    return torch.relu(x @ w) * 2.0 + x


def _disconnected(x, w):
    return torch.sigmoid(x @ w), torch.tanh(x) + 1.0


def _tuple_outputs(x, w):
    first, second = torch.split(x @ w, 4, dim=-1)
    return first * second


def _with_lgamma(x, w):
    return torch.lgamma(x @ w) @ w.t() + x[:, :8]


def _no_compute(x, w):
    return x


def _trailing_lgamma(x, w):
    return torch.lgamma(x @ w), torch.relu(x)


def _lgamma_of_an_input(x, w):
    return torch.relu(x @ torch.lgamma(w)) + x


def _torch_answer(gm):
    partitioner = CapabilityBasedPartitioner(gm, _LumirSupport(), allows_single_node_partition=True)
    return [list(p.nodes.items()) for p in partitioner.propose_partitions()]


def _graph(function):
    return make_fx(function, tracing_mode="fake")(torch.randn(4, 8), torch.randn(8, 8))


@pytest.mark.parametrize(
    "function",
    [
        _chain,
        _disconnected,
        _tuple_outputs,
        _with_lgamma,
        _no_compute,
        _trailing_lgamma,
        _lgamma_of_an_input,
    ],
)
def test_partitions_are_the_partitioners(function):
    """Graphs where no supported op reads one in eager that reads a supported one
    (chain, disconnected, nothing to compute, an lgamma only the output reads, an
    lgamma of an input) take the direct answer; the others (split's getitems, an lgamma
    between products) go to the partitioner."""
    gm = _graph(function)
    made = []

    def partitioner():
        made.append(True)
        return CapabilityBasedPartitioner(gm, _LumirSupport(), allows_single_node_partition=True)

    got = [list(p.nodes.items()) for p in propose_partitions(gm, partitioner)]
    assert got == _torch_answer(gm)  # the same nodes, in the same order, with the same orders
    refused = {
        n
        for n in gm.graph.nodes
        if n.op == "call_function"
        and unsupported_reason(n) is not None
        and any(i.op == "call_function" for i in n.all_input_nodes)
    }
    reads_refused = any(
        refused & set(n.all_input_nodes)
        for n in gm.graph.nodes
        if n.op == "call_function" and n not in refused and unsupported_reason(n) is None
    )
    assert bool(made) == reads_refused  # the quadratic partitioner only where needed


def test_the_compiled_graph_is_called_through_its_generated_forward():
    """Issue 11's host path: aot_autograd calls the fused graph's generated `forward`,
    not the lazy module's trampoline (a recompile check and `nn.Module.__call__` on
    every call)."""
    from torch.fx._lazy_graph_module import _LazyGraphModule

    from lumir.backend.compiler import _generated_forward

    traced = make_fx(lambda x: torch.relu(x) + 1)(torch.randn(3))
    lazy = _LazyGraphModule(traced, traced.graph)
    assert lazy.forward.__func__ is _LazyGraphModule._lazy_forward  # before: the trampoline
    forward = _generated_forward(lazy)
    assert forward.__func__ is not _LazyGraphModule._lazy_forward
    assert forward.__func__ is type(lazy).forward
    x = torch.tensor([-1.0, 0.5, 2.0])
    assert torch.equal(forward(x), torch.relu(x) + 1)
