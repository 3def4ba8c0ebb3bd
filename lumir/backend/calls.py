"""The hot path of a compiled partition: one `CallPlan` per loaded program.

Issue 11's lever: almost no host work per call. Everything a call needs that does not
depend on the call's tensors is decided once, when the program is loaded:

- which graph arguments the program reads in place (weights, bound by address) and the
  data pointers they were bound at;
- which arguments are copied in, in the program's order (an `itemgetter` over the
  call's arguments, no dict or list built per call);
- what each graph output is (a program result, or a size that is a constant of this
  specialisation).

A call then checks the bound pointers (`torch._C._tensors_data_ptrs_at_indices_equal`
on builds that have it, one C call; else a loop over `data_ptr()`), hands the copied
inputs to `Program.run_unchecked` (no shape or dtype re-validation: the cache key, the
dynamic sizes, already fixes every shape; dtypes are fixed by the graph) and copies
the outputs out of the program's buffers. The copy is required: the buffers belong to
the program and the next call (the next CUDA graph replay) overwrites them, while the
caller may keep the previous outputs. Two kinds of result are returned as they are:
the program's fresh outputs (`Program.fresh_outputs`: a trailing matmul wrote them into
a tensor allocated for this call, such as a model's logits), and the caller's own
tensors updated in place (`lumir.backend.in_place`).

A pointer that changed (a weight rebound with `weight.data = other`) makes the call
return `STALE`; the partition then loads the program again against the new storage
(a new plan, no new fusion).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence

import sympy
import torch

from lumir.backend.output_layouts import Placer, input_views, placer, plan_layouts
from lumir.frontend.importer import ImportedGraph
from lumir.frontend.shapes import Bindings, SymbolSite, evaluate_scalar, site_symbol_value
from lumir.runtime import Program

STALE = object()
"""What a `CallPlan` returns when a bound weight no longer has its bound storage."""

_POINTERS_EQUAL = getattr(torch._C, "_tensors_data_ptrs_at_indices_equal", None)
"""torch's one-call pointer check (CUDA builds, used by cudagraph trees), if present."""


OutputBuilder = Callable[[Sequence[torch.Tensor], Sequence[object]], object]
"""The graph's outputs from one call's program results and the call's arguments."""


def size_key_function(sites: Sequence[SymbolSite]) -> Callable[[Sequence[object]], tuple]:
    """The cache key of a call: the tuple of its dynamic sizes, in `sites` order.

    Generated once per partition as one expression (`(a[0].shape[1], a[3])`), so
    computing the key builds nothing but the tuple. A graph with no dynamic size has
    the key `()`.
    """
    parts = [
        f"a[{position}]" + (f".shape[{dim}]" if dim is not None else "")
        for position, dim, _, _ in sites
    ]
    source = "lambda a: (" + "".join(part + ", " for part in parts) + ")"
    return eval(source, {})


def bindings_of(sites: Sequence[SymbolSite], key: tuple) -> dict[sympy.Symbol, int]:
    """The size bindings a key stands for (the slow path's view of the same sizes)."""
    bindings: dict[sympy.Symbol, int] = {}
    for site, value in zip(sites, key, strict=True):
        bindings[site[2]] = site_symbol_value(site, int(value), bindings)
    return bindings


class CallPlan:
    """Runs one loaded program on a call's arguments with no per-call decisions."""

    def __init__(
        self,
        program: Program,
        imported: ImportedGraph,
        bindings: Bindings,
        attributes: Callable[[str], torch.Tensor],
        home: torch.device,
        returns_tuple: bool,
        in_place: Mapping[int, int] | None = None,
    ) -> None:
        """`in_place`: program results that are a caller's tensor updated in place
        (lumir.backend.in_place), each with the position of that argument in the call:
        the argument itself is returned, not a copy (nor a tensor of the program's own
        strides over its memory, which torch's write-back would refuse to copy onto
        the argument where the two differ in a size-1 dimension)."""
        self.program = program
        self.calls = 0
        """Calls served; a partition reads it when the plan goes stale."""
        self.updated_arguments = tuple(sorted(set((in_place or {}).values())))
        """The call arguments the program writes in place: a run that fails may already
        have updated them, so the partition must not run the call again in eager."""
        sources = imported.arguments
        bound = [i for i in range(len(sources)) if i in program.static]
        copied = [i for i in range(len(sources)) if i not in program.static]
        # Bound weights: graph positions (checked in the call's arguments) and tensor
        # constants (held here; `.data =` on one changes its pointer too).
        self.bound_positions = [sources[i] for i in bound if isinstance(sources[i], int)]
        self.bound_pointers: list[int] = []
        self.bound_indices: list[int] = []
        self.fast_check = False
        self.held = [attributes(s) for i in bound if isinstance(s := sources[i], str)]
        self.held_pointers = [t.data_ptr() for t in self.held]
        self.fetch = _fetcher([sources[i] for i in copied], attributes)
        self.outputs = _output_builder(
            imported,
            bindings,
            home,
            program.device,
            returns_tuple,
            in_place or {},
            program.fresh_outputs,
        )

    def bind(self, args: Sequence[object]) -> None:
        """Remember the pointers of the bound weights as the program was loaded with."""
        self.bound_pointers = [args[p].data_ptr() for p in self.bound_positions]  # type: ignore[union-attr]
        self.bound_indices = list(range(len(self.bound_positions)))
        self.fast_check = _POINTERS_EQUAL is not None and self._fast_check_works(args)

    def _fast_check_works(self, args: Sequence[object]) -> bool:
        """Whether torch's one-call check accepts these arguments and agrees with `bind`.

        Its signature is private and has changed between torch versions; a check that
        raises on every call would send every call down the slow path (to eager), so it
        is tried once here and the loop is used when it does not answer `True`.
        """
        try:
            return bool(
                _POINTERS_EQUAL(self._bound_tensors(args), self.bound_pointers, self.bound_indices)
            )
        except (TypeError, RuntimeError):
            return False

    def _bound_tensors(self, args: Sequence[object]) -> list[object]:
        return [args[p] for p in self.bound_positions]

    def __call__(self, args: Sequence[object]) -> object:
        if not self.pointers_unchanged(args):
            return STALE
        program = self.program
        with program.lock:  # the buffers are shared: threads take turns, copies included
            if program.closed:  # evicted from its partition's cache by another thread
                return STALE
            self.calls += 1
            return self.outputs(program.run_unchecked(self.fetch(args)), args)

    def pointers_unchanged(self, args: Sequence[object]) -> bool:
        """True when every bound weight still has the storage it was bound to."""
        if self.fast_check:
            same = _POINTERS_EQUAL(
                self._bound_tensors(args), self.bound_pointers, self.bound_indices
            )
        else:
            same = all(
                args[p].data_ptr() == q  # type: ignore[union-attr]
                for p, q in zip(self.bound_positions, self.bound_pointers, strict=True)
            )
        return same and all(
            t.data_ptr() == q for t, q in zip(self.held, self.held_pointers, strict=True)
        )


def _fetcher(
    sources: Sequence[int | str], attributes: Callable[[str], torch.Tensor]
) -> Callable[[Sequence[object]], Sequence[object]]:
    """The copied inputs of a call, in program order, as one itemgetter when possible."""
    if not sources:
        return lambda args: ()
    if all(isinstance(s, int) for s in sources):
        if len(sources) == 1:
            (only,) = sources
            return lambda args: (args[only],)
        return operator.itemgetter(*sources)  # type: ignore[arg-type]
    held = [attributes(s) if isinstance(s, str) else None for s in sources]
    pairs = list(zip(sources, held, strict=True))
    return lambda args: [t if t is not None else args[s] for s, t in pairs]  # type: ignore[index]


def _output_builder(
    imported: ImportedGraph,
    bindings: Bindings,
    home: torch.device,
    device: torch.device,
    returns_tuple: bool,
    in_place: Mapping[int, int],
    fresh: frozenset[int] = frozenset(),
) -> OutputBuilder:
    """The graph's outputs from the program's output buffers: each result copied out
    (cloned on the program's device, moved when the graph lives elsewhere), each size
    the constant it is in this specialisation. A result in `in_place` is the caller's
    own (bound) tensor, updated in place: that argument is returned. So is a result in
    `fresh` (`Program.fresh_outputs`, the call's own tensor) where it stays on its
    device, the first time it is returned: a second graph output of the same result
    gets a copy, as it always did, so that no two outputs alias. Outputs that eager
    torch returns as views (transposed, strided, aliasing one another) are placed in
    that layout instead, and outputs that are views of an argument are that view of the
    call's argument (lumir.backend.output_layouts)."""
    same_place = home == device or (home.type == device.type and home.type == "cpu")
    clone: Callable[[torch.Tensor], torch.Tensor] = (
        torch.Tensor.clone if same_place else (lambda t: t.to(home))
    )
    handed_over: set[int] = set()

    def copier(result: int) -> Callable[[torch.Tensor], torch.Tensor]:
        if result in fresh and same_place and result not in handed_over:
            handed_over.add(result)
            return _as_it_is
        return clone

    items: list[tuple[int, object]] = []
    arguments: dict[int, int] = {}  # output position -> the call argument it is
    for position, output in enumerate(imported.outputs):
        if output.result in in_place:
            arguments[position] = in_place[output.result]
            items.append((-1, None))
        elif output.result is not None:
            items.append((output.result, None))
        else:
            size = output.size
            items.append((-1, evaluate_scalar(size, bindings) if _is_number(size) else size))
    placeable = [
        (position, output)
        for position, output in enumerate(imported.outputs)
        if output.result is not None and output.result not in in_place
    ]
    views = input_views(
        [
            (position, output.input_view, output.example, output.viewed_example)
            for position, output in placeable
        ],
        bindings,
    )
    viewed = {view.position for view in views}
    groups = plan_layouts(
        [
            (position, output.result, output.example)
            for position, output in placeable
            if position not in viewed
        ],
        bindings,
        {position: output.storage for position, output in placeable if output.storage},
    )
    if groups or views or arguments:
        place = placer(groups, views, home)

        def place_with_arguments(results: Sequence[torch.Tensor], args: Sequence[object]) -> dict:
            placed = place(results, args)
            for position, argument in arguments.items():
                placed[position] = args[argument]
            return placed

        return _placing_builder(
            items,
            [
                (clone if p in viewed else copier(i)) if i >= 0 else None
                for p, (i, _) in enumerate(items)
            ],
            place_with_arguments,
            returns_tuple,
        )
    if len(items) == 1 and items[0][0] >= 0 and not returns_tuple:
        index = items[0][0]
        copy = copier(index)
        return lambda results, _args: copy(results[index])
    if returns_tuple and all(i >= 0 for i, _ in items):
        pairs = [(i, copier(i)) for i, _ in items]
        return lambda results, _args: tuple(copy(results[i]) for i, copy in pairs)
    copies = [copier(i) if i >= 0 else None for i, _ in items]

    def build(results: Sequence[torch.Tensor], _args: Sequence[object]) -> object:
        values = tuple(
            copy(results[i]) if copy is not None else v
            for (i, v), copy in zip(items, copies, strict=True)
        )
        return values if returns_tuple else values[0]

    return build


def _placing_builder(
    items: Sequence[tuple[int, object]],
    copies: Sequence[Callable[[torch.Tensor], torch.Tensor] | None],
    place: Placer,
    returns_tuple: bool,
) -> OutputBuilder:
    """`_output_builder`'s general form when some outputs are placed in a layout or are
    views of an argument."""

    def build(results: Sequence[torch.Tensor], args: Sequence[object]) -> object:
        placed = place(results, args)
        values = tuple(
            placed[position]
            if position in placed
            else (copy(results[i]) if copy is not None else v)
            for position, ((i, v), copy) in enumerate(zip(items, copies, strict=True))
        )
        return values if returns_tuple else values[0]

    return build


def _as_it_is(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


def _is_number(value: object) -> bool:
    """A size output (an int or SymInt) or its float (a SymFloat of `torch.sym_float`):
    evaluated at each call's sizes, not handed back as traced."""
    return isinstance(value, torch.SymInt | torch.SymFloat | int | float) and not isinstance(
        value, bool
    )
