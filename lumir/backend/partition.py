"""One lumir partition of a graph: compiled per concrete shape, weights bound in place.

A `CompiledPartition` stands in for the partition's FX submodule. It compiles at the
graph's example sizes when created (so failures surface at compile time and fall back
then), and for each new concrete shape on first use: the first compile fuses, later
ones re-type the fused template (lumir.backend.retype) and only fuse again when it does
not fit. Compiled shapes live in a bounded LRU cache.

Inputs that are the model's parameters, buffers or tensor constants ("static": their
storage outlives the call) are bound to the program by storage at load time, and so
are the inputs the graph mutates (until they are seen to move on every call); every other
input is copied into the program once per call. Each call compares the static
inputs' data pointers with the bound ones: a parameter replaced by a new tensor (not
updated in place) makes the program load again against the new storage. The per-call
work is a `CallPlan` (lumir.backend.calls), keyed by the call's dynamic sizes alone.
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import fx
from xdsl.dialects.builtin import ModuleOp

from lumir.backend.calls import STALE, CallPlan, bindings_of, size_key_function
from lumir.backend.collector import collector_paused
from lumir.backend.in_place import update_in_place
from lumir.backend.options import BackendOptions
from lumir.backend.report import (
    count_fused_groups,
    count_fusions,
    count_gemv_epilogues,
    count_gemv_groups,
    count_gemv_plans,
    count_gemv_prologues,
    count_matmuls,
)
from lumir.backend.retype import FusedTemplate, RetypeError, structure
from lumir.backend.stages import Dumper, fuse, lower, prepare
from lumir.backend.stats import PartitionStats
from lumir.diagnostics import first_line
from lumir.frontend import ImportedGraph, import_graph
from lumir.frontend.shapes import (
    Bindings,
    evaluate,
    hint_bindings,
    pinned_symbols,
    site_size,
    size_expressions,
    symbol_names,
    symbol_sites,
)
from lumir.passes.group_launches import group_module, has_groupable_launches
from lumir.runtime import Program, load
from lumir.runtime.buffers import shaped_type_parts
from lumir.runtime.interpreter import find_function


class LumirRuntimeFallbackWarning(UserWarning):
    """A compiled partition could not run at some new sizes; those run in eager."""


class LumirRuntimeError(RuntimeError):
    """A compiled partition failed after it may have written an argument in place: the
    call cannot be run again in eager without applying that update twice."""


MAX_TEMPLATES = 2
"""Fused templates kept per partition: the first, and one for a length (often 1) whose
preparation differs in structure."""


@dataclass
class _Specialisation:
    """One concrete shape: the lowered module, its interface, and the loaded program."""

    imported: ImportedGraph
    """The interface (arguments, outputs); its module was compiled in place."""
    lowered: ModuleOp
    bindings: Bindings
    program: Program | None = None
    plan: CallPlan | None = None


class CompiledPartition(torch.nn.Module):
    """Callable like the partition's submodule; runs it as lumir programs."""

    def __init__(
        self,
        graph_module: fx.GraphModule,
        static_inputs: frozenset[int],
        device: torch.device,
        home: torch.device,
        options: BackendOptions,
        stats: PartitionStats,
        updates: dict[int, int] | None = None,
    ):
        """`updates` maps an output index to the argument position whose new value it is
        (an input mutation aot_autograd writes back after the call; lumir.backend.in_place
        writes it in place when that argument is bound by address)."""
        super().__init__()
        self.updates = dict(updates or {})
        self.mutated_inputs = frozenset(self.updates.values())
        self.bind_mutated = True
        self.graph_module = graph_module
        self.static_inputs = static_inputs
        self.device = device
        self.home = home
        self.options = options
        self.stats = stats
        self.placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
        self.pinned = pinned_symbols(
            self.placeholders, lambda: size_expressions(graph_module.graph)
        )
        """Symbols no input size separates from another, fixed where that is exact."""
        self.symbol_sites = symbol_sites(self.placeholders, self.pinned)
        self.size_key = size_key_function(self.symbol_sites)
        self.returns_tuple = isinstance(_output_node(graph_module).args[0], list | tuple)
        self.templates: list[FusedTemplate] = []
        self.cache: OrderedDict[tuple[object, ...], _Specialisation] = OrderedDict()
        self.eager_shapes: set[tuple[object, ...]] = set()
        self.slow_lock = threading.RLock()
        """Held on the slow path (compile, load, evict, fall back): calls from several
        threads change the cache one at a time. A program's own lock serialises its runs."""
        self.compile(
            {**self.pinned, **hint_bindings(self.placeholders, self.symbol_sites)}, first=True
        )

    # --- compile -----------------------------------------------------------------------

    def _bindings(self, key: tuple[object, ...]) -> dict:
        """The size bindings of a cache key, pinned symbols included."""
        return {**self.pinned, **bindings_of(self.symbol_sites, key)}

    def compile(self, bindings: Bindings, first: bool = False) -> _Specialisation:
        """Compile (or re-type) the partition at `bindings`; cache and return it."""
        label = self.stats.label + "".join(f".{k}={v}" for k, v in symbol_names(bindings))
        dump = Dumper(self.options.dump_ir, label)
        imported = import_graph(self.graph_module, bindings)
        matmuls = count_matmuls(imported.module) if first else 0
        # Each stage modifies the module it is given: nothing reads the imported or the
        # prepared module again (`imported` keeps the interface), so none is copied.
        prepared = prepare(imported.module, dump)
        fused = self._from_template(prepared)
        if fused is None:
            shape = structure(prepared)
            fused = fuse(prepared, self.options, dump)
            self.stats.fuse_runs += 1
            if len(self.templates) < MAX_TEMPLATES:
                self.templates.append(FusedTemplate(shape, fused.clone()))
        else:
            dump("retyped", fused)
        if first:
            self.stats.fused = count_fusions(matmuls, fused)
        lowered = lower(fused, dump, self.options)
        if first:
            self.stats.fused["gemv_calls"] = count_gemv_plans(lowered)
            self.stats.fused["gemv_groups"] = count_gemv_groups(lowered)
            self.stats.fused["gemv_epilogues"] = count_gemv_epilogues(lowered)
            self.stats.fused["gemv_prologues"] = count_gemv_prologues(lowered)
            self.stats.fused["fused_groups"] = count_fused_groups(lowered)
        self.stats.specialisations += 1
        entry = _Specialisation(imported, lowered, dict(bindings))
        self._remember(tuple(site_size(site, bindings) for site in self.symbol_sites), entry)
        return entry

    def _from_template(self, prepared: ModuleOp) -> ModuleOp | None:
        for template in self.templates:
            try:
                return template.specialise(prepared)
            except RetypeError:
                continue
        return None

    def _remember(self, key: tuple[object, ...], entry: _Specialisation) -> None:
        self.cache[key] = entry
        self.cache.move_to_end(key)
        while len(self.cache) > self.options.cache_size:
            _, evicted = self.cache.popitem(last=False)
            if evicted.program is not None:
                evicted.program.close()

    # --- run ---------------------------------------------------------------------------

    def forward(self, *args: object) -> object:
        """The hot path: the dynamic sizes pick the specialisation, its `CallPlan` runs it
        (lumir.backend.calls); anything else (a new shape, rebound weights, a failure)
        goes to `_slow_call`."""
        key = self.size_key(args)
        entry = self.cache.get(key)
        if entry is not None and entry.plan is not None:
            plan = entry.plan
            try:
                result = plan(args)
            except Exception as error:  # a lumir failure must never cost the user their model
                return self._fall_back(key, args, error, plan.updated_arguments)
            if result is not STALE:
                return result
        return self._slow_call(key, args)

    __call__ = forward
    """Called straight from the fused graph's code: a partition has no hooks, so
    `nn.Module.__call__`'s hook dispatch is skipped on the hot path."""

    def _slow_call(self, key: tuple[object, ...], args: Sequence[object]) -> object:
        with self.slow_lock:
            if key in self.eager_shapes:
                return self.graph_module(*args)
            try:
                with collector_paused():
                    entry = self.cache.get(key)
                    if entry is None:
                        entry = self.compile(self._bindings(key))
                    else:
                        self.cache.move_to_end(key)
                    plan = entry.plan = self._plan(entry, args)
            except Exception as error:  # a lumir failure must never cost the user their model
                return self._fall_back(key, args, error)
            try:
                result = plan(args)
            except Exception as error:  # a lumir failure must never cost the user their model
                return self._fall_back(key, args, error, plan.updated_arguments)
            assert result is not STALE, "a plan made for these arguments accepts them"
            return result

    def _fall_back(
        self,
        key: tuple[object, ...],
        args: Sequence[object],
        error: Exception,
        updated: Sequence[int] = (),
    ) -> object:
        """Run these sizes in eager from now on, with a warning, when eager can run the
        call lumir failed on. When eager fails on it too, the call's arguments are at
        fault (an embedding index out of range), not lumir: eager's error is raised, as
        without lumir, and the sizes stay compiled for the next call.

        `updated`: the arguments the failed run writes in place (lumir.backend.in_place).
        It may have written them before failing, so eager's result (computed from them,
        and written back into them by torch) would apply the update twice: a counter
        one ahead of eager's from then on. Then this call raises `LumirRuntimeError`
        instead of returning that result; the sizes still run in eager from the next
        call. (The graph itself is functional: running it writes nothing.)"""
        try:
            result = self.graph_module(*args)
        except Exception as eager_error:  # the caller's error, shown without lumir's
            raise eager_error from None
        with self.slow_lock:
            self.eager_shapes.add(key)
            entry = self.cache.pop(key, None)
            if entry is not None and entry.program is not None:
                entry.program.close()
        sizes = dict(symbol_names(self._bindings(key)))
        if updated:
            names = ", ".join(_described(self.placeholders[i].name, args[i]) for i in updated)
            raise LumirRuntimeError(
                f"lumir {self.stats.label}: failed at sizes {sizes} after it may have "
                f"updated {names} in place, so the call is not run again in eager (that "
                "would apply the update twice); these sizes run in eager from the next "
                f"call: {type(error).__name__}: {first_line(error)}"
            ) from None
        warnings.warn(
            f"lumir {self.stats.label}: failed at sizes {sizes} and runs in eager "
            f"there: {type(error).__name__}: {first_line(error)}",
            LumirRuntimeFallbackWarning,
            stacklevel=3,
        )
        return result

    def _plan(self, entry: _Specialisation, args: Sequence[object]) -> CallPlan:
        """Load the program against the call's weights (again, when they were rebound)
        and build its call plan."""
        if entry.plan is not None and entry.plan.calls <= 1 and self.mutated_inputs:
            # A bound input moved after a single call: when the mutated inputs are
            # fresh tensors on every call, binding them would mean a reload per call,
            # so from now on they are copied in. (A cache that lives for a whole
            # generation and is then replaced costs one reload per generation.)
            self.bind_mutated = False
        arguments = [self._argument(source, args) for source in entry.imported.arguments]
        static = [i for i, s in enumerate(entry.imported.arguments) if self._is_static(s)]
        entry.program, in_place = self._load(entry, arguments, static)
        plan = CallPlan(
            entry.program,
            entry.imported,
            entry.bindings,
            lambda target: self._argument(target, args),
            self.home,
            self.returns_tuple,
            in_place,
        )
        plan.bind(args)
        return plan

    def _argument(self, source: int | str, args: Sequence[object]) -> torch.Tensor:
        value = args[source] if isinstance(source, int) else _attribute(self.graph_module, source)
        assert isinstance(value, torch.Tensor)
        return value

    def _is_static(self, source: int | str) -> bool:
        """Bound by address: parameters, buffers and tensor constants, and the inputs
        the graph mutates (a KV cache: its storage is where the update must land, and
        a cache built inside the compiled call is never marked static by Dynamo)."""
        return (
            isinstance(source, str)
            or source in self.static_inputs
            or (self.bind_mutated and source in self.mutated_inputs)
        )

    def _load(
        self, entry: _Specialisation, arguments: list[torch.Tensor], static: list[int]
    ) -> tuple[Program, dict[int, int]]:
        """The loaded program and the program results it writes into their inputs, each
        with the call argument it is (`CallPlan`'s `in_place`)."""
        if entry.program is not None:
            entry.program.close()
        signature = find_function(entry.lowered).body.block.args
        bindable = {
            i: arguments[i]
            for i in static
            if arguments[i].is_contiguous()
            and arguments[i].device.type == self.device.type
            # a float64 buffer that arrives cast (`cast_only_input_dtype`) is copied in
            and arguments[i].dtype == shaped_type_parts(signature[i].type)[1]
        }
        module, in_place = entry.lowered, dict[int, int]()
        updates = self._result_updates(entry.imported, bindable)
        if updates:
            module = entry.lowered.clone()
            sources = entry.imported.arguments
            in_place = {r: sources[updates[r]] for r in update_in_place(module, updates)}
        groups = 0
        if self.options.group_launches and has_groupable_launches(module):
            module = module.clone() if module is entry.lowered else module
            groups = group_module(module)
        self.stats.loads += 1
        self.stats.in_place_updates = len(in_place)
        self.stats.launch_groups = groups
        program = load(
            module,
            self.device,
            static_inputs=bindable,
            cuda_graph=self.options.cuda_graph,
            autotune=self.options.autotune,
        )
        self.stats.bound_inputs = len(program.static)
        self.stats.fresh_outputs = len(program.fresh_outputs)
        return program, in_place

    def _result_updates(
        self, imported: ImportedGraph, bindable: dict[int, torch.Tensor]
    ) -> dict[int, int]:
        """{program result: function argument} for the updates whose input is bound."""
        found: dict[int, int] = {}
        for output_index, position in self.updates.items():
            result = imported.outputs[output_index].result
            arguments = [i for i, s in enumerate(imported.arguments) if s == position]
            if result is not None and len(arguments) == 1 and arguments[0] in bindable:
                found[result] = arguments[0]
        return found


def _attribute(module: torch.nn.Module, target: str) -> object:
    value: object = module
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _size(size: object, bindings: Bindings) -> object:
    if isinstance(size, torch.SymInt | int):
        return evaluate(size, bindings)
    return size


def _described(name: str, value: object) -> str:
    """A graph argument as a diagnostic names it: its node name, dtype and shape."""
    if isinstance(value, torch.Tensor):
        return f"{name} ({str(value.dtype).removeprefix('torch.')} {list(value.shape)})"
    return name


def _output_node(graph_module: fx.GraphModule) -> fx.Node:
    return next(n for n in graph_module.graph.nodes if n.op == "output")
