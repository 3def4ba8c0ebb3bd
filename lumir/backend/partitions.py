"""The partitions lumir proposes for a graph, without the partitioner's quadratic walk
when the answer is known.

torch's `CapabilityBasedPartitioner.propose_partitions` merges partitions while
checking, for every node, every node downstream of its users for cycles: quadratic in
the graph, over a second on the 1B Llama's 1,300-node graph (its `_DependencyViewer`
alone keeps a downstream set per node). When lumir supports every `call_function` node
and the graph has no other computing nodes (only placeholders, `get_attr`s and the
output), the answer is known without that walk: one partition holding every
`call_function` node. Nothing outside it can sit between two of its nodes (placeholders
and `get_attr`s have no inputs, the output has no users), so no merge can make a cycle,
and horizontal fusion merges disconnected parts too. The partition is built as the
partitioner would return it: its nodes in graph order, each mapped to its reversed
topological index. The same holds when the nodes lumir does not take only read the
supported ones (size arithmetic whose result only the graph returns, a trailing op in
eager): nothing they compute flows back into the partition; and when the supported
ones read nodes in eager that read no supported node, directly or through others in
eager (a float64 scalar computed from sizes and lifted floats, lumir.backend.compiler's
host scalars): like placeholders, those cannot sit between two nodes of the partition.
Any other graph goes to the partitioner.
"""

from __future__ import annotations

from collections.abc import Callable

from torch import fx
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner, Partition

from lumir.frontend import unsupported_reason

_SOURCES_AND_SINK = frozenset(("placeholder", "get_attr", "output"))


def propose_partitions(
    gm: fx.GraphModule,
    partitioner: Callable[[], CapabilityBasedPartitioner],
    supported: Callable[[fx.Node], bool] = lambda node: unsupported_reason(node) is None,
) -> list[Partition]:
    """What `partitioner().propose_partitions()` returns for `gm`, answered directly
    where every computing node is a `call_function` and none that `supported` accepts
    reads one it refuses (see the module doc); `supported` must be the partitioner's
    own question.

    `partitioner` makes the partitioner only when it is asked: making one already
    walks the graph quadratically.
    """
    nodes = list(gm.graph.nodes)
    compute = [n for n in nodes if n.op not in _SOURCES_AND_SINK]
    if not all(n.op == "call_function" for n in compute):
        return partitioner().propose_partitions()
    taken = {n for n in compute if supported(n)}
    after_taken: set[fx.Node] = set()  # nodes in eager that read a supported one
    for node in compute:  # in graph order: inputs first
        if node not in taken and any(i in taken or i in after_taken for i in node.all_input_nodes):
            after_taken.add(node)
    compute = [n for n in compute if n in taken]
    if any(i in after_taken for n in compute for i in n.all_input_nodes):
        return partitioner().propose_partitions()  # an op in eager may sit between two
    if not compute:
        return []
    order = {node: index for index, node in enumerate(reversed(nodes))}
    return [Partition(id=0, nodes=compute, node_orders=[order[n] for n in compute])]
