"""Import an ATen FX graph (what aot_autograd hands a backend) into an `hl` function.

One specialisation per call: `import_graph(gm, bindings)` gives every SymInt its value
from `bindings` (lumir.frontend.shapes) and walks the graph once. Tensor placeholders
and tensor constants (`get_attr`) become the function's arguments, in graph order;
size placeholders and size arithmetic only feed the bindings. Each `call_function`
node goes through its row of `lumir.frontend.table.TABLE`; a node without a row is an
`UnsupportedNodeError` (the partitioner keeps such nodes out of what it hands here).
Each op is located at the user's source line that produced it, when tracing recorded
one, so diagnostics point at the model's code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch
from torch import fx
from torch.multiprocessing.reductions import StorageWeakRef
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region, SSAValue

from lumir.frontend.context import ImportContext, UnsupportedNodeError
from lumir.frontend.dtypes import element_type, is_imported
from lumir.frontend.shapes import Bindings, concrete_shape
from lumir.frontend.size_tags import tag_sized_ops
from lumir.frontend.table import (
    TABLE,
    cast_only_input_dtype,
    is_shape_node,
    unsupported_reason,
)


@dataclass(frozen=True)
class GraphOutput:
    """One output of the graph: a function result (`result` index), or a size (`size`).

    `example` is a result's traced tensor (the node's `meta["val"]`, when it has one):
    its size, strides and storage say what layout eager torch would hand back
    (lumir.backend.output_layouts). `input_view` is the position of the graph input
    whose storage the traced result shares (it is a view of that input, which the
    call hands back as one), else None; `viewed_example` that input's traced tensor.
    `storage` is the traced storage of the value the output is a chain of views of,
    where tracing gave the view a storage of its own (as it does under dynamic
    shapes), else None: outputs with one storage alias each other."""

    result: int | None = None
    size: object = None
    example: object = None
    input_view: int | None = None
    viewed_example: object = None
    storage: object = None


@dataclass(frozen=True)
class ImportedGraph:
    """An imported specialisation: the module and how it maps to the graph's interface.

    Attributes:
        module: one `func.func @forward` at level 1 (`hl`).
        arguments: for each function argument, the placeholder position it comes from
            (an int), or the `get_attr` target naming a tensor constant (a str).
        outputs: for each graph output, where its value comes from.
    """

    module: ModuleOp
    arguments: tuple[int | str, ...]
    outputs: tuple[GraphOutput, ...]


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def source_location(node: fx.Node) -> FileLineColLoc | None:
    """The innermost user frame recorded in the node's stack trace, if any."""
    trace = node.meta.get("stack_trace")
    if not trace:
        return None
    frames = _FRAME.findall(trace)
    if not frames:
        return None
    path, line = frames[-1]
    return FileLineColLoc(StringAttr(path), IntAttr(int(line)), IntAttr(1))


def _tensor_argument(node: fx.Node, bindings: Bindings, gm: fx.GraphModule) -> TensorType | None:
    placeholder = node.op == "placeholder"
    example = node.meta.get("val") if placeholder else _attribute(gm, str(node.target))
    if not isinstance(example, torch.Tensor):
        return None
    dtype = example.dtype
    if placeholder and not is_imported(dtype):
        dtype = cast_only_input_dtype(node) or dtype  # arrives cast (its casts are no-ops)
    return TensorType(element_type(dtype), list(concrete_shape(example, bindings)))


def _attribute(gm: fx.GraphModule, target: str) -> object:
    value: object = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


def import_graph(gm: fx.GraphModule, bindings: Bindings, name: str = "forward") -> ImportedGraph:
    """The `hl` function of `gm` specialised to `bindings` (see the module doc).

    Raises `UnsupportedNodeError` for a node lumir does not import, and the converters'
    own errors for one it claims but cannot express at these sizes.
    """
    cx = ImportContext(bindings)
    argument_types: list[TensorType] = []
    arguments: list[int | str] = []
    argument_nodes: list[fx.Node] = []
    placeholder_index = 0
    for node in gm.graph.nodes:
        if node.op not in ("placeholder", "get_attr"):
            continue
        tensor_type = _tensor_argument(node, bindings, gm)
        if tensor_type is not None:
            argument_types.append(tensor_type)
            arguments.append(placeholder_index if node.op == "placeholder" else str(node.target))
            argument_nodes.append(node)
        if node.op == "placeholder":
            placeholder_index += 1
    block = Block(arg_types=argument_types)
    for node, arg in zip(argument_nodes, block.args, strict=True):
        cx.values[node] = arg
    viewed = _input_storages(gm)
    results: list[SSAValue] = []
    outputs: list[GraphOutput] = []
    for node in gm.graph.nodes:
        if node.op == "call_function":
            _import_node(cx, node)
        elif node.op == "output":
            for item in _flat_outputs(node.args[0]):
                if isinstance(item, fx.Node) and item in cx.values:
                    example = item.meta.get("val")
                    own = traced_storage(example)
                    storage = traced_storage(_view_root(item).meta.get("val")) or own
                    source = _viewed_input(example, storage, viewed)
                    outputs.append(
                        GraphOutput(
                            result=len(results),
                            example=example,
                            input_view=None if source is None else source[0],
                            viewed_example=None if source is None else source[1],
                            storage=None if storage == own else storage,
                        )
                    )
                    results.append(cx.values[item])
                elif isinstance(item, fx.Node):
                    outputs.append(GraphOutput(size=item.meta.get("val")))
                else:
                    outputs.append(GraphOutput(size=item))
    block.add_ops([*cx.ops, ReturnOp(*results)])
    func = FuncOp.from_region(name, argument_types, [r.type for r in results], Region(block))
    return ImportedGraph(ModuleOp([func]), tuple(arguments), tuple(outputs))


def traced_storage(example: object) -> StorageWeakRef | None:
    """The traced storage of a dense tensor (which views of it share), else None."""
    if not isinstance(example, torch.Tensor) or example.layout != torch.strided:
        return None
    try:
        return StorageWeakRef(example.untyped_storage())
    except (RuntimeError, NotImplementedError):
        return None


def _input_storages(gm: fx.GraphModule) -> dict[StorageWeakRef, tuple[int, torch.Tensor]]:
    """{traced storage: (placeholder position, traced tensor)} of the tensor inputs."""
    storages: dict[StorageWeakRef, tuple[int, torch.Tensor]] = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for position, node in enumerate(placeholders):
        example = node.meta.get("val")
        storage = traced_storage(example)
        if storage is not None:
            assert isinstance(example, torch.Tensor)
            storages.setdefault(storage, (position, example))
    return storages


_VIEWS = frozenset(
    {
        torch.ops.aten.view.default,
        torch.ops.aten._unsafe_view.default,
        torch.ops.aten.select.int,
        torch.ops.aten.slice.Tensor,
        torch.ops.aten.t.default,
        torch.ops.aten.transpose.int,
        torch.ops.aten.permute.default,
        torch.ops.aten.expand.default,
        torch.ops.aten.unsqueeze.default,
        torch.ops.aten.squeeze.default,
        torch.ops.aten.squeeze.dim,
        torch.ops.aten.squeeze.dims,
        torch.ops.aten.diagonal.default,
        torch.ops.aten.as_strided.default,
        torch.ops.aten.alias.default,
    }
)
"""ATen ops whose result is always a view of their first argument."""


def _view_root(node: fx.Node) -> fx.Node:
    """The value `node` is a chain of views of (itself when it is not a view)."""
    while node.target in _VIEWS and node.args and isinstance(node.args[0], fx.Node):
        node = node.args[0]
    return node


def _viewed_input(
    example: object,
    storage: StorageWeakRef | None,
    viewed: dict[StorageWeakRef, tuple[int, torch.Tensor]],
) -> tuple[int, torch.Tensor] | None:
    """The input (position, traced tensor) whose storage an output's is (the storage
    of the value its view chain starts at), with the same dtype; else None."""
    if storage is None or storage not in viewed:
        return None
    position, source = viewed[storage]
    assert isinstance(example, torch.Tensor)
    return (position, source) if example.dtype == source.dtype else None


def _flat_outputs(value: object) -> list[object]:
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _import_node(cx: ImportContext, node: fx.Node) -> None:
    if is_shape_node(node):
        return
    reason = unsupported_reason(node)
    if reason is not None:
        raise UnsupportedNodeError(f"{node.format_node()}: {reason}")
    first = len(cx.ops)
    value = TABLE[node.target].convert(cx, node)
    if value is None:  # an unread statistic of a multi-output node
        return
    assert isinstance(value, SSAValue)
    tag_sized_ops(node, cx.ops[first:])
    location = source_location(node)
    if location is not None:
        for op in cx.ops[first:]:
            op.location = location
    cx.values[node] = value
