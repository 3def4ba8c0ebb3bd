"""The `lumir` torch.compile backend: aot_autograd, capability partitioning, fallback.

    torch.compile(model, backend="lumir", options={...})

Dynamo hands the backend a graph of torch calls; aot_autograd (with lumir's
decompositions) turns it into core ATen and calls `compile_aten_graph`, which

1. asks the importer's support predicate about every node and lets torch's
   `CapabilityBasedPartitioner` group the supported ones into partitions (or, when
   every node is supported, takes them all as one: lumir.backend.partitions);
2. compiles each partition (`CompiledPartition`: import, prepare, fuse, lower) and puts
   it in place of its submodule; a partition that fails to compile stays eager;
3. warns once per graph, naming the ops that run in eager and why a partition fell back,
   and prints the report line when asked.

Nothing lumir does can cost the user their model: every failure becomes eager torch.
"""

from __future__ import annotations

import functools
import operator
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence

import torch
from torch import fx
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch.fx.experimental.symbolic_shapes import ConstraintViolationError
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner, Partition
from torch.fx.passes.operator_support import OperatorSupportBase
from torch.fx.passes.utils.fuser_utils import fuse_by_partitions

from lumir.backend.cache_lengths import cache_length_nodes
from lumir.backend.collector import collector_paused
from lumir.backend.options import BackendOptions, mode_options, parse_options
from lumir.backend.partition import CompiledPartition
from lumir.backend.partitions import propose_partitions
from lumir.backend.random_order import random_ops_in_order
from lumir.backend.report import report_line
from lumir.backend.stats import GraphStats, PartitionStats, new_graph
from lumir.backend.storage_readers import relay_storage_reads, storage_views
from lumir.diagnostics import first_line
from lumir.frontend import lumir_decompositions, target_name, unsupported_reason
from lumir.frontend.decompositions import with_eager_layouts
from lumir.frontend.dtypes import HALF_DTYPES, is_imported
from lumir.frontend.elementwise import common_dtype
from lumir.frontend.table import is_shape_node


class LumirFallbackWarning(UserWarning):
    """Part (or all) of a compiled graph runs in eager torch instead of lumir."""


class _LumirSupport(OperatorSupportBase):
    """The importer's support predicate, as the partitioner asks it, but for the nodes
    kept in eager for another reason (`excluded`). Each node's reason is looked up in
    `reasons` (`_unsupported_reasons`, worked out once per graph), as the partitioner
    asks about a node more than once and the partitions are proposed more than once."""

    def __init__(
        self,
        reasons: Mapping[fx.Node, str | None] | None = None,
        excluded: Mapping[fx.Node, str] | None = None,
        eager_sizes: frozenset[fx.Node] = frozenset(),
    ) -> None:
        super().__init__()
        self.reasons = reasons or {}
        self.excluded = excluded or {}
        self.eager_sizes = eager_sizes

    def is_node_supported(self, submodules: Mapping[str, torch.nn.Module], node: fx.Node) -> bool:
        return self.supported(node)

    def supported(self, node: fx.Node) -> bool:
        reason = self.reasons[node] if node in self.reasons else unsupported_reason(node)
        if reason is not None or node in self.excluded or node in self.eager_sizes:
            return False
        source = node.args[0] if node.target is operator.getitem and node.args else None
        # One output of an op kept in eager: the importer takes a getitem only with its op.
        if isinstance(source, fx.Node) and source.op == "call_function":
            return self.supported(source)
        return True


def _unsupported_reasons(gm: fx.GraphModule) -> dict[fx.Node, str | None]:
    """`unsupported_reason` of each `call_function` node of `gm`, in graph order."""
    return {node: unsupported_reason(node) for node in gm.graph.nodes if node.op == "call_function"}


def _eager_sizes(gm: fx.GraphModule, reasons: Mapping[fx.Node, str | None]) -> frozenset[fx.Node]:
    """Size arithmetic that no op lumir takes reads: its users are the graph's output,
    ops in eager, or more such arithmetic (a sliding-window `StaticCache`'s
    `cumulative_length_int += 1`, returned for Dynamo to store). Left in a partition, it
    makes the partition's sizes include the counter, so each value (each decode step)
    compiles a specialisation of its own; in eager it is Python integer arithmetic. It
    is not a fallback op: no warning names it."""
    found: set[fx.Node] = set()
    for node in reversed(gm.graph.nodes):
        if node.op != "call_function" or reasons.get(node, "") is not None:
            continue
        if not is_shape_node(node):
            continue
        if all(
            user in found or user.op != "call_function" or reasons.get(user) is not None
            for user in node.users
        ):
            found.add(node)
    return frozenset(found)


def _cast_wide_scalars(gm: fx.GraphModule) -> None:
    """Give each pointwise op that reads a float64 0-d CPU tensor directly (`x *
    torch.tensor(0.5, dtype=torch.float64)`, a float64 0-d buffer, a `clamp` bound that
    `dynamic=True` lifts) a cast of it to f32 instead, where torch's type promotion
    leaves the op's common dtype f32, f16 or bf16 (a 0-d tensor does not promote a
    dimensioned one of its category). ATen then reads the scalar converted to that dtype,
    or at f32 (a half `mul` or `div`), and it converts a double to a half type through
    f32, so the cast changes no value; the op is imported, and the cast is a host scalar
    or an input that arrives cast."""
    changed = False
    for node in list(gm.graph.nodes):
        target = node.target
        if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload):
            continue
        if torch.Tag.pointwise not in target.tags:
            continue
        wide = [arg for arg in node.all_input_nodes if _is_wide_scalar(arg)]
        if not wide or common_dtype(node.args) not in (torch.float32, *HALF_DTYPES):
            continue
        for arg in wide:
            with gm.graph.inserting_before(node):
                cast = gm.graph.call_function(
                    torch.ops.prims.convert_element_type.default, (arg, torch.float32)
                )
            cast.meta["val"] = arg.meta["val"].to(torch.float32)
            node.replace_input_with(arg, cast)
            changed = True
    if changed:
        gm.recompile()


def _is_wide_scalar(node: fx.Node) -> bool:
    value = node.meta.get("val")
    return (
        isinstance(value, torch.Tensor)
        and value.dim() == 0
        and value.device.type == "cpu"
        and value.dtype == torch.float64
    )


def _host_scalars(gm: fx.GraphModule, reasons: Mapping[fx.Node, str | None]) -> frozenset[fx.Node]:
    """Scalar arithmetic on the host that runs in eager without a warning: 0-d CPU
    tensors computed only from sizes and from the Python floats `dynamic=True` lifts into
    0-d float64 inputs. Dynamo traces the float arithmetic of `1.0 / math.sqrt(x.size(-1))`
    or GPT-2's `math.sqrt(2.0 / math.pi)` as float64 tensor ops (`scalar_tensor`, casts,
    `sqrt`, `true_divide`, `pow`) ending in a cast to the compute dtype. Where such a
    chain has an op lumir does not import, the chain and what it reads run in eager,
    in float64 as without lumir, and the partition reads its result as an input: a few
    host operations per call, as the Python arithmetic would be, that neither split the
    partition nor name a fallback. A chain lumir imports whole stays in its partition."""
    scalars: set[fx.Node] = set()
    for node in gm.graph.nodes:
        if _computes_host_scalar(node) and all(
            arg in scalars or _host_number(arg) for arg in node.all_input_nodes
        ):
            scalars.add(node)
    found: set[fx.Node] = set()
    pending = [node for node in scalars if reasons.get(node) is not None]
    while pending:
        node = pending.pop()
        if node not in found:
            found.add(node)
            pending.extend(arg for arg in node.all_input_nodes if arg in scalars)
    return frozenset(found)


_PREDICATES = frozenset(
    {
        operator.eq,
        operator.ne,
        operator.lt,
        operator.le,
        operator.gt,
        operator.ge,
        operator.and_,
        operator.or_,
        operator.not_,
        torch.sym_not,
    }
)
"""Comparisons and logic that Dynamo traces on sizes, giving a SymBool."""


def _size_predicates(gm: fx.GraphModule) -> frozenset[fx.Node]:
    """Comparisons of sizes and the logic of those (`x.shape[0] > 1`): a graph may
    return one (Moonshine's, for the code after a graph break). They are Python
    arithmetic on sizes, which runs in eager as size arithmetic only eager reads does
    (`_eager_sizes`); with the host scalars, no warning names them. An op lumir
    imports that read one would run in eager and be named (`_numbers_from_sizes`)."""
    found: set[fx.Node] = set()
    for node in gm.graph.nodes:
        if (
            node.op == "call_function"
            and node.target in _PREDICATES
            and isinstance(node.meta.get("val"), torch.SymBool | bool)
            and all(arg in found or _host_number(arg) for arg in node.all_input_nodes)
        ):
            found.add(node)
    return frozenset(found)


def _computes_host_scalar(node: fx.Node) -> bool:
    """A pure ATen op (no mutation, no randomness) whose result is a 0-d CPU tensor."""
    value = node.meta.get("val")
    target = node.target
    return (
        node.op == "call_function"
        and isinstance(target, torch._ops.OpOverload)
        and not target._schema.is_mutable
        and torch.Tag.nondeterministic_seeded not in target.tags
        and isinstance(value, torch.Tensor)
        and value.dim() == 0
        and value.device.type == "cpu"
    )


def _host_number(node: fx.Node) -> bool:
    """A number a host scalar may read: a size or number input, size arithmetic, a 0-d
    CPU input of a dtype lumir does not import (a Python float lifted to float64), or a
    0-d CPU constant of any dtype (a `torch.tensor(0.5, dtype=torch.float64)` built in
    the forward; the int64 constant Dynamo makes of a NumPy scalar, which Reformer's
    `x / np.sqrt(head_size)` casts to float64 before its `sqrt`)."""
    value = node.meta.get("val")
    if node.op == "call_function":
        return is_shape_node(node)
    if node.op == "get_attr":
        value = _attribute(node)
        return isinstance(value, torch.Tensor) and value.dim() == 0 and value.device.type == "cpu"
    if node.op != "placeholder":
        return False
    if isinstance(value, torch.Tensor):
        return _is_host_tensor(value)
    return isinstance(value, torch.SymInt | torch.SymFloat | int | float)


def _is_host_tensor(value: torch.Tensor) -> bool:
    return value.dim() == 0 and value.device.type == "cpu" and not is_imported(value.dtype)


def _attribute(node: fx.Node) -> object:
    """The value a `get_attr` node reads (a tensor constant of the graph module)."""
    value: object = node.graph.owning_module
    for name in str(node.target).split("."):
        value = getattr(value, name, None)
    return value


def lumir_backend(
    gm: fx.GraphModule,
    example_inputs: Sequence[object],
    options: Mapping[str, object] | None = None,
    mode: str | None = None,
) -> Callable[..., object]:
    """The `torch.compile` backend named "lumir" (see the module doc and docs/backend.md).
    torch passes `mode` (never with `options`) when the caller names one."""
    settings = parse_options(options if mode is None else mode_options(mode))
    compiler = functools.partial(compile_aten_graph, options=settings)
    backend = aot_autograd(
        fw_compiler=compiler,
        inference_compiler=compiler,
        bw_compiler=_eager,
        decompositions=lumir_decompositions(),
    )
    try:
        return backend(with_eager_layouts(gm), example_inputs)
    except _TORCH_SIGNALS:
        raise  # Dynamo's own control flow (restart analysis), or a user's shape contract
    except Exception as error:  # a lumir failure must never cost the user their model
        warnings.warn(
            "lumir: aot_autograd could not trace the graph to ATen (under lumir's "
            f"decompositions; {type(error).__name__}: {first_line(error)}); it runs "
            "entirely in eager",
            LumirFallbackWarning,
            stacklevel=2,
        )
        return gm.forward


_TORCH_SIGNALS: tuple[type[BaseException], ...] = (
    torch._dynamo.exc.TorchDynamoException,
    ConstraintViolationError,
)
"""Exceptions from tracing that are not failures of lumir's: Dynamo raises some to
restart its analysis (`TensorifyScalarRestartAnalysis` when `dynamic=True` turns a
float into a tensor), and a violated `mark_dynamic` is the user's to see. They pass
through `lumir_backend`; anything else falls back to eager."""


def _eager(gm: fx.GraphModule, example_inputs: Sequence[object]) -> Callable[..., object]:
    return make_boxed_func(gm.forward)


def _static_indices(count: int) -> frozenset[int]:
    """Graph inputs aot_autograd knows to be parameters or buffers (stable storage)."""
    from torch._guards import TracingContext

    context = TracingContext.try_get()
    metadata = getattr(context, "fw_metadata", None) if context is not None else None
    indices = getattr(metadata, "static_input_indices", None) or ()
    return frozenset(i for i in indices if 0 <= i < count)


def _graph_device(example_inputs: Sequence[object]) -> torch.device:
    """Where the graph's tensors live: the first accelerator device among its inputs,
    else the CPU. A CPU input beside CUDA ones is a scalar torch lets a CUDA op read
    (such as a Python float that `dynamic=True` lifts into a 0-d tensor), not the
    graph's device, wherever it comes in the argument list."""
    for value in example_inputs:
        if isinstance(value, torch.Tensor) and value.device.type != "cpu":
            return value.device
    return torch.device("cpu")


def compile_aten_graph(
    gm: fx.GraphModule, example_inputs: Sequence[object], options: BackendOptions
) -> Callable[..., object]:
    """aot_autograd's inference (and forward) compiler: partition, compile, fall back."""
    with collector_paused():
        return _compile_aten_graph(gm, example_inputs, options)


def _compile_aten_graph(
    gm: fx.GraphModule, example_inputs: Sequence[object], options: BackendOptions
) -> Callable[..., object]:
    start = time.perf_counter()
    stats = new_graph()
    home = _graph_device(example_inputs)
    device = torch.device(options.device) if options.device is not None else home
    _cast_wide_scalars(gm)
    reasons = _unsupported_reasons(gm)
    static_inputs = _static_indices(len(example_inputs))
    lengths, stats.cache_lengths = cache_length_nodes(gm, reasons, static_inputs)
    host_scalars = _host_scalars(gm, reasons) | _size_predicates(gm) | lengths
    stats.unsupported = [
        (target_name(node), reason)
        for node, reason in reasons.items()
        if reason is not None and node not in host_scalars
    ]
    stats.fallback_ops = [name for name, _ in stats.unsupported]
    with random_ops_in_order(gm, lambda node: reasons.get(node) is not None):
        partitions = _partitions(gm, reasons, stats, host_scalars)
        nodes = [p.nodes for p in partitions]
        result = fuse_by_partitions(gm, nodes, prefix="fused_") if partitions else gm
    if partitions:
        _compile_partitions(
            result,
            static_inputs,
            _mutated_inputs(),
            device,
            home,
            options,
            stats,
        )
    relay_storage_reads(result)
    stats.compile_ms = (time.perf_counter() - start) * 1000.0
    _warn(gm, stats, bool(partitions))
    if options.report:
        print(report_line(stats, str(device), options.precision), file=sys.stderr)
    return make_boxed_func(_generated_forward(result))


def _partitions(
    gm: fx.GraphModule,
    reasons: Mapping[fx.Node, str | None],
    stats: GraphStats,
    host_scalars: frozenset[fx.Node] = frozenset(),
) -> list[Partition]:
    """The partitions of the supported nodes but the host scalars (`_host_scalars`) and
    the sizes only eager reads (`_eager_sizes`), asked again without the views an eager
    `as_strided` reads through (lumir.backend.storage_readers) until none is left in a
    partition; those are added to the graph's fallback ops, with the reason."""
    excluded: dict[fx.Node, str] = {}
    in_eager = {**reasons, **dict.fromkeys(host_scalars, "a host scalar")}
    eager_sizes = _eager_sizes(gm, in_eager) | host_scalars
    while True:
        support = _LumirSupport(reasons, excluded, eager_sizes)
        partitions = propose_partitions(
            gm,
            lambda support=support: CapabilityBasedPartitioner(
                gm, support, allows_single_node_partition=True
            ),
            support.supported,
        )
        more = storage_views(gm, (n for p in partitions for n in p.nodes))
        if more and more.keys() <= excluded.keys():  # the partitioner put them back
            more = dict.fromkeys(
                (n for p in partitions for n in p.nodes),
                "an op in eager reads a storage that lumir could not keep in eager alone",
            )
        if not more:
            break
        excluded.update(more)
    for node, reason in excluded.items():
        stats.fallback_ops.append(target_name(node))
        stats.kept_in_eager.append(f"{node.name} ({target_name(node)}): {reason}")
    return partitions


def _generated_forward(gm: fx.GraphModule) -> Callable[..., object]:
    """`gm`'s generated `forward`, bound, for aot_autograd to call on every call.

    A lazily recompiled graph module's `forward` is a trampoline that checks for a
    pending recompile and then goes through `nn.Module.__call__` (hook dispatch, the
    error-message wrapper); recompiling now and handing over the generated function
    takes those off the hot path (issue 11: host work per call).
    """
    real_recompile = getattr(gm, "real_recompile", None)
    if real_recompile is not None:
        real_recompile()
    return gm.forward


def _compile_partitions(
    fused: fx.GraphModule,
    static_indices: frozenset[int],
    mutated_inputs: Sequence[int],
    device: torch.device,
    home: torch.device,
    options: BackendOptions,
    stats: GraphStats,
) -> None:
    placeholders = {
        n: i for i, n in enumerate(n for n in fused.graph.nodes if n.op == "placeholder")
    }
    updates = _updates_by_partition(fused, placeholders, mutated_inputs)
    for node in list(fused.graph.nodes):
        if node.op != "call_module":
            continue
        submodule = fused.get_submodule(node.target)
        static = frozenset(
            position
            for position, arg in enumerate(node.args)
            if isinstance(arg, fx.Node)
            and (arg.op == "get_attr" or placeholders.get(arg, -1) in static_indices)
        )
        partition_stats = PartitionStats(f"{stats.label}.{node.target}")
        try:
            compiled = CompiledPartition(
                submodule,
                static,
                device,
                home,
                options,
                partition_stats,
                updates=updates.get(node, {}),
            )
        except Exception as error:  # a lumir failure must never cost the user their model
            stats.failures.append(f"{node.target}: {type(error).__name__}: {error}")
            stats.fallback_ops += [
                target_name(n) for n in submodule.graph.nodes if n.op == "call_function"
            ]
            continue
        stats.partitions.append(partition_stats)
        setattr(fused, node.target, compiled)
    fused.recompile()


def _mutated_inputs() -> Sequence[int]:
    """The graph inputs aot_autograd mutates outside the graph, in the order their new
    values lead the graph's outputs (empty when it does not say)."""
    from torch._guards import TracingContext

    context = TracingContext.try_get()
    metadata = getattr(context, "fw_metadata", None) if context is not None else None
    indices = getattr(metadata, "mutated_inp_runtime_indices", None) or ()
    infos = getattr(metadata, "input_info", None) or ()
    if any(i >= len(infos) or infos[i].mutates_metadata for i in indices):
        return ()  # a metadata mutation is replayed with as_strided_: leave it to torch
    return tuple(indices)


def _updates_by_partition(
    fused: fx.GraphModule, placeholders: dict[fx.Node, int], mutated_inputs: Sequence[int]
) -> dict[fx.Node, dict[int, int]]:
    """For each partition: {its output index: its argument position} where that output
    is the new value of a mutated graph input passed straight to that argument."""
    output = next(n for n in fused.graph.nodes if n.op == "output")
    values = output.args[0] if isinstance(output.args[0], list | tuple) else (output.args[0],)
    found: dict[fx.Node, dict[int, int]] = {}
    by_position = {i: n for n, i in placeholders.items()}
    for value, input_index in zip(values, mutated_inputs, strict=False):
        if not isinstance(value, fx.Node):
            continue
        if value.op == "call_module":
            node, index = value, 0
        elif value.op == "call_function" and value.target is operator.getitem:
            node, index = value.args[0], value.args[1]
        else:
            continue
        placeholder = by_position.get(input_index)
        if not isinstance(node, fx.Node) or node.op != "call_module" or placeholder is None:
            continue
        positions = [p for p, arg in enumerate(node.args) if arg is placeholder]
        if len(positions) == 1 and isinstance(index, int):
            found.setdefault(node, {})[index] = positions[0]
    return found


def _warn(gm: fx.GraphModule, stats: GraphStats, had_partitions: bool) -> None:
    if not stats.fallback_ops and not stats.failures:
        return
    parts: list[str] = []
    if not had_partitions:
        parts.append("no op of this graph is supported by lumir; it runs entirely in eager")
    if stats.fallback_ops:
        parts.append(f"{len(stats.fallback_ops)} op(s) run in eager ({_why(stats)})")
    for failure in stats.failures:
        partition, _, reason = failure.splitlines()[0].partition(": ")
        parts.append(f"partition {partition} failed to compile and runs in eager ({reason})")
    for kept in stats.kept_in_eager:
        parts.append(f"{kept}, so it runs in eager")
    warnings.warn(f"lumir {stats.label}: " + "; ".join(parts), LumirFallbackWarning, stacklevel=2)


def _why(stats: GraphStats) -> str:
    """The fallback ops, grouped by why they are unsupported (`op, op: reason; ...`,
    reasons in order of first appearance), then the ops of failed partitions and kept
    nodes by name alone: their reasons are parts of the warning of their own."""
    by_reason: dict[str, set[str]] = {}
    for name, reason in stats.unsupported:
        by_reason.setdefault(reason, set()).add(name)
    groups = [f"{', '.join(sorted(names))}: {reason}" for reason, names in by_reason.items()]
    unsupported = {name for name, _ in stats.unsupported}
    others = sorted(set(stats.fallback_ops) - unsupported)
    if others:
        groups.append(", ".join(others))
    return "; ".join(groups)
