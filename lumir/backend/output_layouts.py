"""Graph outputs in the layout eager torch gives them: their strides, and which alias which.

A program's results are dense tensors in its own buffers, and a call copies each one
out (lumir.backend.calls). Eager torch returns some outputs as views: `y.t()` has
strides (1, n), `y[:, ::2]` skips elements, and `(y, y.t())` are two windows of one
storage, so an in-place update through one is seen through the other. A caller can
tell the difference: `.stride()`, a `.view()` that only the transposed layout allows,
the update seen or not. aot_autograd recreates the outputs that alias *inputs*, but
leaves the layout of an inference graph's other outputs to the compiler (inductor
returns views of its buffers), so a partition recreates them itself.

`plan_layouts` reads each output's traced layout (the FakeTensor in its node's
`meta["val"]`: size, stride, storage offset, and its storage, which views share) once
per specialisation. Outputs with the strides of a copy, sharing their storage with no
other output, are left to the plain copy. The others are placed: each group of outputs
that share a traced storage gets one fresh storage per call, just long enough for the
windows they cover (so storage offsets count from the group's first element, not from
eager's base), each output is a tensor on it at its traced size and stride (made with
`set_`, not as an autograd view, so that it takes in-place updates with gradients on,
as eager's base does; all with one version counter, as eager's views of one base
have, so that a backward that saved one of them sees an update through another), and
the program's result is copied into the window. A window
that repeats elements (an `expand`, stride 0) is written through its first index along
those dimensions. A window whose elements overlap in another way (an `unfold`) cannot
be written by a copy; it stays a plain copy, as before.

An output that is a view of a graph *input* (it shares the input's traced storage:
`x.flatten(1, 2)[2]`) is handed back as that view of the caller's tensor (`InputView`,
an `as_strided` at its traced size, stride and storage offset), as inductor hands it
back, not as a copy. aot_autograd recreates such an output from the input, by
replaying its views when their arguments are constants, and otherwise (a dynamic size
among them) by `as_strided` at the size, stride and offset of the tensor the compiled
graph returned: a copy at offset 0 would make that the input's first elements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import sympy
import torch

from lumir.frontend.importer import traced_storage
from lumir.frontend.shapes import Bindings, UnboundSymbolError, evaluate


@dataclass(frozen=True)
class Window:
    """One placed output: a window of its group's storage.

    `position` is the output's index among the graph's outputs, `result` the program
    result it copies; `written` is the index (a tuple of slices) that keeps the first
    element of each repeated (stride-0) dimension, or None when the whole window is
    written."""

    position: int
    result: int
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    written: tuple[slice, ...] | None


@dataclass(frozen=True)
class StorageGroup:
    """The outputs of one traced storage, placed in one fresh storage per call."""

    dtype: torch.dtype
    extent: int
    windows: tuple[Window, ...]

    def place(
        self, results: Sequence[torch.Tensor], device: torch.device
    ) -> list[tuple[int, torch.Tensor]]:
        """(position, output) for each window, with the results copied in."""
        storage = torch.empty(self.extent, dtype=self.dtype, device=device).untyped_storage()
        placed = []
        first: torch.Tensor | None = None
        for window in self.windows:
            # A tensor on the storage, not an autograd view of another tensor: with
            # gradients on, an output that is a view cannot be updated in place. The
            # others are `detach`es of the first, set to their window: they share its
            # version counter, as eager's views of one base do, so that an update
            # through one is seen by a backward that saved another.
            blank = (
                torch.empty(0, dtype=self.dtype, device=device) if first is None else first.detach()
            )
            view = blank.set_(storage, window.offset, window.size, window.stride)
            first = view if first is None else first
            source = results[window.result]
            if window.written is None:
                view.copy_(source)
            else:
                view[window.written].copy_(source[window.written])
            placed.append((window.position, view))
        return placed


@dataclass(frozen=True)
class _Traced:
    position: int
    result: int
    example: torch.Tensor
    storage: object
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    written: tuple[slice, ...] | bool | None


def plan_layouts(
    outputs: Sequence[tuple[int, int, object]],
    bindings: Bindings,
    storages: Mapping[int, object] | None = None,
) -> tuple[StorageGroup, ...]:
    """The groups of outputs to place, from (position, result, traced example) triples.

    `storages` overrides an output's traced storage by position: under dynamic shapes
    tracing gives a view (`y[-1]`) a storage of its own, and the importer names the
    storage of the value it views instead (`GraphOutput.storage`). An output with no
    traced tensor, or one whose layout needs no placing, is in no group. Groups come
    in the order of their first output.
    """
    storages = storages or {}
    traced = [
        _traced(position, result, example, bindings, storages.get(position))
        for position, result, example in outputs
    ]
    by_storage: dict[object, list[_Traced]] = {}
    for item in traced:
        if item is not None:
            by_storage.setdefault(item.storage, []).append(item)
    groups = []
    for members in by_storage.values():
        if len(members) == 1 and _row_major(members[0].size, members[0].stride):
            continue
        group = _group(members)
        if group is not None:
            groups.append(group)
    return tuple(groups)


def _traced(
    position: int, result: int, example: object, bindings: Bindings, storage: object = None
) -> _Traced | None:
    if not isinstance(example, torch.Tensor) or example.layout != torch.strided:
        return None
    try:
        size = tuple(evaluate(d, bindings) for d in example.shape)
        stride = tuple(evaluate(s, bindings) for s in example.stride())
        offset = evaluate(example.storage_offset(), bindings)
    except (UnboundSymbolError, TypeError, RuntimeError, NotImplementedError):
        return None  # a layout this specialisation cannot state: the plain copy
    storage = storage or traced_storage(example)
    if 0 in size or storage is None:
        return None  # no element to place (the plain copy has the right shape), or no storage
    written = _written(size, stride)
    return _Traced(position, result, example, storage, size, stride, offset, written)


def _group(members: Sequence[_Traced]) -> StorageGroup | None:
    writable = [m for m in members if m.written is not False]
    if not writable or len({m.example.dtype for m in writable}) != 1:
        return None
    if len(writable) == 1 and _row_major(writable[0].size, writable[0].stride):
        return None
    start = min(m.offset for m in writable)
    windows = []
    extent = 0
    for m in writable:
        assert m.written is not False
        offset = m.offset - start
        windows.append(Window(m.position, m.result, m.size, m.stride, offset, m.written))
        extent = max(
            extent, offset + 1 + sum((n - 1) * s for n, s in zip(m.size, m.stride, strict=True))
        )
    return StorageGroup(writable[0].example.dtype, extent, tuple(windows))


def _row_major(size: Sequence[int], stride: Sequence[int]) -> bool:
    """The strides a copy (`clone` of a dense row-major result) has: each the product of
    the sizes after it, on dimensions of size 1 too (eager's `x[1::2]` of a [3, 5, 6]
    tensor has size [1, 5, 6] and stride 60, where a copy has 30)."""
    expected = 1
    for n, s in zip(reversed(size), reversed(stride), strict=True):
        if s != expected:
            return False
        expected *= n
    return True


def _written(size: Sequence[int], stride: Sequence[int]) -> tuple[slice, ...] | bool | None:
    """How a window of this layout is written: None (whole), the index keeping the
    first element of each repeated dimension, or False when its elements overlap
    otherwise and no copy can write it."""
    kept = [(n, s) for n, s in zip(size, stride, strict=True) if n > 1 and s != 0]
    reach = 0  # the furthest element reached by the dimensions of smaller stride
    for n, s in sorted(kept, key=lambda pair: pair[1]):
        if s <= reach:
            return False
        reach += (n - 1) * s
    if all(s != 0 or n == 1 for n, s in zip(size, stride, strict=True)):
        return None
    return tuple(
        slice(0, 1) if s == 0 and n > 1 else slice(None) for n, s in zip(size, stride, strict=True)
    )


@dataclass(frozen=True)
class InputView:
    """An output that is a view of the call's argument `argument`: that tensor's
    storage at this size, stride and storage offset.

    A layout that depends on the argument's own strides or storage offset (a view of a
    strided or sliced input, whose traced strides and offset are symbols that no size
    binds) keeps its traced expressions (`late`), evaluated at each call with those
    symbols read off the argument (`layout_sites`: (symbol, dimension or None for the
    offset)).

    `source` is the argument's traced layout (strides of its dimensions longer than 1,
    and its storage offset), which a fixed layout was derived from. A graph input has
    those strides at every call (torch guards on them), but an argument an eager op
    makes may not: torch's fake `copysign` or `xlogy` of a contiguous and a transposed
    tensor is laid out as the transposed one, the real one contiguous. The traced window
    of such an argument reads other elements, so `of` gives None and the call hands back
    the program's result, a copy. The window's offset counts from the argument's own
    offset: an argument another partition placed (a piece of a split) starts its
    storage at the group's first element, not at eager's base (the traced offset was
    out of the storage's bounds)."""

    position: int
    argument: int
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    late: tuple[object, ...] = ()
    bindings: Bindings | None = None
    layout_sites: tuple[tuple[object, int | None], ...] = ()
    source: tuple[tuple[int, ...], int] | None = None

    def of(self, args: Sequence[object]) -> torch.Tensor | None:
        tensor = args[self.argument]
        assert isinstance(tensor, torch.Tensor)
        if not self.late:
            if self.source is None:
                return tensor.as_strided(self.size, self.stride, self.offset)
            strides, offset = self.source
            if _strides_of(tensor) != strides:
                return None
            return tensor.as_strided(
                self.size, self.stride, self.offset - offset + tensor.storage_offset()
            )
        bindings = dict(self.bindings or {})
        for symbol, dim in self.layout_sites:
            bindings[symbol] = tensor.storage_offset() if dim is None else tensor.stride(dim)
        size, stride, (offset,) = (
            [evaluate(v, bindings) for v in part]  # type: ignore[union-attr]
            for part in self.late
        )
        return tensor.as_strided(size, stride, offset)


def input_views(
    outputs: Sequence[tuple[int, int | None, object, object]], bindings: Bindings
) -> tuple[InputView, ...]:
    """The outputs to hand back as views of an argument, from (position, argument,
    traced example, the argument's traced example) quadruples.

    Raises `UnboundSymbolError` for a view whose layout neither the sizes nor the
    argument's strides and offset determine: a copy would be rebuilt at the wrong
    place (see the module doc), so the specialisation must not run."""
    views = []
    for position, argument, example, source in outputs:
        if argument is None or not isinstance(example, torch.Tensor):
            continue
        layout = (tuple(example.shape), tuple(example.stride()), (example.storage_offset(),))
        try:
            size, stride, (offset,) = (tuple(evaluate(v, bindings) for v in p) for p in layout)
            views.append(
                InputView(
                    position,
                    argument,
                    size,
                    stride,
                    offset,
                    source=_traced_layout(source, bindings),
                )
            )
            continue
        except UnboundSymbolError:
            pass
        sites = _layout_sites(source, bindings)
        known = {**bindings, **{symbol: 0 for symbol, _ in sites}}
        for part in layout:
            for value in part:
                evaluate(value, known)  # raises for a symbol no call can bind
        views.append(InputView(position, argument, (), (), 0, layout, dict(bindings), sites))
    return tuple(views)


def _strides_of(tensor: torch.Tensor) -> tuple[int, ...]:
    """The strides of `tensor`'s dimensions longer than 1 (a size-1 dimension's stride
    addresses nothing)."""
    return _long_strides(tensor.shape, tensor.stride())


def _long_strides(size: Sequence[int], stride: Sequence[int]) -> tuple[int, ...]:
    return tuple(s for n, s in zip(size, stride, strict=True) if n != 1)


def _traced_layout(source: object, bindings: Bindings) -> tuple[tuple[int, ...], int] | None:
    """`_strides_of` the traced argument at these sizes and its storage offset, or None
    when they are unknown."""
    if not isinstance(source, torch.Tensor):
        return None
    try:
        size = [evaluate(n, bindings) for n in source.shape]
        stride = [evaluate(s, bindings) for s in source.stride()]
        offset = evaluate(source.storage_offset(), bindings)
    except UnboundSymbolError:
        return None
    return _long_strides(size, stride), offset


def _layout_sites(source: object, bindings: Bindings) -> tuple[tuple[object, int | None], ...]:
    """The unbound bare symbols of a traced argument's strides and storage offset, with
    where a call's argument holds their value."""
    if not isinstance(source, torch.Tensor):
        return ()
    sites: list[tuple[object, int | None]] = []
    places: list[tuple[object, int | None]] = [
        *((s, d) for d, s in enumerate(source.stride())),
        (source.storage_offset(), None),
    ]
    for value, dim in places:
        if isinstance(value, torch.SymInt):
            expr = value.node.expr
            if isinstance(expr, sympy.Symbol) and expr not in bindings:
                sites.append((expr, dim))
    return tuple(sites)


Placer = Callable[[Sequence[torch.Tensor], Sequence[object]], dict[int, torch.Tensor]]
"""{position: output} of every placed output, from one call's results and arguments."""


def placer(
    groups: Sequence[StorageGroup], views: Sequence[InputView], device: torch.device
) -> Placer:
    """The placer of `groups` (results copied into fresh storages) and `views` (views of
    the call's arguments)."""

    def place(results: Sequence[torch.Tensor], args: Sequence[object]) -> dict[int, torch.Tensor]:
        placed: dict[int, torch.Tensor] = {}
        for group in groups:
            placed.update(group.place(results, device))
        for view in views:
            tensor = view.of(args)
            if tensor is not None:
                placed[view.position] = tensor
        return placed

    return place
