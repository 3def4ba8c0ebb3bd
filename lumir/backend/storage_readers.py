"""Keep in eager what an eager op reads through a view's storage.

A partition hands its results back as tensors of its own: contiguous, each with a
storage of its size. Eager ops do not care, but for one that reads a tensor's *storage*
rather than its values: `as_strided` addresses its input's storage from the storage's
start, whatever view of it the input is. Where the graph applies an `as_strided` that
lumir does not import (`lumir.frontend.generators.as_strided_check`: the input is a
view) to a partition's result, eager torch would read the compiled copy's storage, not
the storage of the view the graph computed there: different values (Longformer's
sliding-window chunks are such an `as_strided`, and came out wrong by 1e-3 this way).

So the view it reads, and every view up the chain to the tensor that owns the storage,
run in eager too: `storage_views` names them, the partitioner is asked again without
them, until no such read crosses a partition's edge. The tensor owning the storage (a
contiguous result from the storage's start, as a partition's own result is) may stay in
a partition.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

import torch
from torch import fx
from torch.fx.experimental.symbolic_shapes import statically_known_true

from lumir.frontend import target_name

STORAGE_READERS = frozenset({torch.ops.aten.as_strided.default})
"""Overloads whose result depends on their input's storage, not only its values."""


def storage_views(gm: fx.GraphModule, partitioned: Iterable[fx.Node]) -> dict[fx.Node, str]:
    """The partitioned nodes that must run in eager (see the module doc), each with why."""
    inside = set(partitioned)
    found: dict[fx.Node, str] = {}
    pending = [
        (n, n)
        for n in gm.graph.nodes
        if n.op == "call_function" and n.target in STORAGE_READERS and n not in inside
    ]
    seen: set[fx.Node] = set()
    while pending:
        reader, node = pending.pop()
        source = node.args[0] if node.args else None
        if not isinstance(source, fx.Node) or source in seen or owns_storage(source):
            continue
        seen.add(source)
        if source in inside:
            found[source] = f"{target_name(reader)} in eager reads its storage"
        producer = _multi_output_producer(source)
        if producer is not None:
            # The partitioner keeps a getitem with the op whose output it picks (a
            # split's chunk): asked without the getitem alone, it would put it back.
            source = producer
            seen.add(source)
            if source in inside:
                found[source] = f"{target_name(reader)} in eager reads an output's storage"
        pending.append((reader, source))
    return found


def _multi_output_producer(node: fx.Node) -> fx.Node | None:
    """The op whose list or tuple of results `node` picks one of (`operator.getitem`)."""
    if node.target is not operator.getitem or not node.args:
        return None
    producer = node.args[0]
    if isinstance(producer, fx.Node) and isinstance(producer.meta.get("val"), list | tuple):
        return producer
    return None


def owns_storage(node: fx.Node) -> bool:
    """Whether `node`'s value is its storage from the start, in order: contiguous, at
    offset 0, as large as the storage (decided without adding shape guards)."""
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor):
        return True  # not a tensor: nothing to read through
    try:
        storage_bytes = value.untyped_storage().nbytes()
    except (NotImplementedError, RuntimeError):
        return False
    return (
        value.is_contiguous()
        and statically_known_true(value.storage_offset() == 0)
        and statically_known_true(storage_bytes == value.numel() * value.element_size())
    )
