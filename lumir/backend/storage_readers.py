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
from collections.abc import Iterable, Sequence

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


def relay_storage_reads(gm: fx.GraphModule) -> None:
    """Hand each eager `as_strided` whose input an op computes the input at its traced layout.

    The `as_strided` addresses its input's storage at the strides the trace gave that input
    (torch's decomposition of `diagonal` is one). A tensor the graph computes in eager
    can be laid out other than its fake tensor was: ATen's `index.Tensor` of a permuted
    input is traced at strides (6, 1, 1, 2) and comes out at (6, 6, 3, 1). Where the
    traced value is a whole tensor (dense, its storage from offset 0 and as large as its
    elements), its strides follow from its sizes and the order of its dimensions, and
    `in_traced_layout` copies a call's tensor laid out otherwise into that order first;
    views are left as they are."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in STORAGE_READERS or not node.args:
            continue
        source = node.args[0]
        if not isinstance(source, fx.Node) or source.op == "placeholder":
            continue
        order = _whole_tensor_order(source.meta.get("val"))
        if order is None:
            continue
        with gm.graph.inserting_before(node):
            relaid = gm.graph.call_function(in_traced_layout, (source, order))
        relaid.meta = dict(source.meta)
        node.replace_input_with(source, relaid)
        changed = True
    if changed:
        gm.recompile()


def _whole_tensor_order(value: object) -> tuple[int, ...] | None:
    """The dimensions of a whole dense tensor `value`, outermost first (None otherwise)."""
    if not isinstance(value, torch.Tensor):
        return None
    try:
        storage_bytes = value.untyped_storage().nbytes()
        strides = [_hint(s) for s in value.stride()]
        sizes = [_hint(s) for s in value.shape]
    except (NotImplementedError, RuntimeError, ValueError, TypeError):
        return None
    if not (
        statically_known_true(value.storage_offset() == 0)
        and statically_known_true(storage_bytes == value.numel() * value.element_size())
    ):
        return None
    order = tuple(sorted(range(value.dim()), key=lambda d: (-strides[d], -sizes[d])))
    dense = _dense_strides(sizes, order)
    if any(n > 1 and a != b for n, a, b in zip(sizes, strides, dense, strict=True)):
        return None
    return order


def _hint(value: int | torch.SymInt) -> int:
    """`value`'s value at the traced call (raises TypeError when it has none)."""
    if isinstance(value, torch.SymInt):
        hint = value.node.hint
        if hint is None:
            raise TypeError("no hint")
        return int(hint)
    return int(value)


def _dense_strides(sizes: Sequence[int], order: Sequence[int]) -> list[int]:
    """The strides of a dense tensor of `sizes` whose dimensions run `order`, outermost first."""
    strides = [0] * len(sizes)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= sizes[d]
    return strides


def in_traced_layout(tensor: torch.Tensor, order: tuple[int, ...]) -> torch.Tensor:
    """`tensor`, or a copy of it with its dimensions laid out densely in `order` where it is
    laid out otherwise."""
    strides = _dense_strides(tensor.shape, order)
    if tensor.storage_offset() == 0 and all(
        n <= 1 or a == b for n, a, b in zip(tensor.shape, tensor.stride(), strides, strict=True)
    ):
        return tensor
    copy = torch.empty_strided(tensor.shape, strides, dtype=tensor.dtype, device=tensor.device)
    return copy.copy_(tensor)
