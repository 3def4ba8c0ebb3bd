"""Lengths no weight's product depends on stay in eager, so those products compile once.

lumir specialises a program to each concrete size (import, prepare, re-type the fused
template, lower, load, capture: docs/backend.md, "Dynamic shapes"). A decode step with
Hugging Face's default `DynamicCache` has a new key length on every token, so a
partition that holds the attention would compile a specialisation per token, ~1-2 s on
a CPU for a 16-layer model, where eager takes milliseconds: generation with lumir would
be compile-bound. Yet in that step the length sizes only the cache's `cat`, the
attention (with its `q @ k^T` and `p @ v` where the attention is written as products)
and its mask; every product with a weight is [1, hidden] by that weight.

So a symbolic size (a size symbol: not a float `dynamic=True` lifts, such as a norm's
eps, nor a data-dependent count) that sizes no product of a weight (a matrix product
lumir imports, `aten.mm` and its relatives, one of whose operands is computed from
parameters, buffers and constants alone) while the graph has products of weights is a
*cache length*: the ops it sizes (whose result, input or size arguments mention it)
run in eager, between partitions whose sizes do not change, and each of those compiles
once, for every token. Like host scalars (lumir.backend.compiler), they are a
placement, not a failure, and no warning names them; the graph's stats and report list
them. A symbol that sizes a weight's product (a prompt's length in a prefill, a batch)
keeps the specialisation: those products are what lumir is for, and their shapes pick
the GEMM. A graph without products of weights keeps it too (nothing would compile once
instead), and so does one whose weights are not known (aot_autograd's
`static_input_indices`).
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy
import torch
from torch import fx
from torch.fx.experimental.symbolic_shapes import free_symbols
from torch.utils._pytree import tree_leaves
from torch.utils._sympy.symbol import SymT, symbol_is_type

from lumir.frontend.table import MATRIX_PRODUCTS


def _symbols(node: fx.Node, own: Mapping[fx.Node, set[sympy.Symbol]]) -> set[sympy.Symbol]:
    """The free symbols of what `node` computes and reads: its result, its inputs' values
    (`own`: each node's result's symbols) and its size arguments."""
    found = set(own[node])
    for arg in node.all_input_nodes:
        found |= own[arg]
    for leaf in tree_leaves((node.args, node.kwargs)):
        if isinstance(leaf, torch.SymInt | torch.SymFloat | torch.SymBool):
            found |= free_symbols(leaf)
    return found


def _weights(
    gm: fx.GraphModule, placeholders: list[fx.Node], static_inputs: frozenset[int]
) -> set[fx.Node]:
    """The nodes computed from parameters, buffers and constants alone: the static
    inputs, `get_attr`s, and the ops (transposes, casts, concatenations) of those only."""
    found = {n for i, n in enumerate(placeholders) if i in static_inputs}
    for node in gm.graph.nodes:
        inputs = node.all_input_nodes
        if node.op == "get_attr" or (
            node.op == "call_function" and inputs and all(i in found for i in inputs)
        ):
            found.add(node)
    return found


def cache_length_nodes(
    gm: fx.GraphModule, reasons: Mapping[fx.Node, str | None], static_inputs: frozenset[int]
) -> tuple[frozenset[fx.Node], tuple[str, ...]]:
    """The nodes lumir would import that a cache length sizes, and those lengths' names.

    `reasons`: each call node's reason to run in eager, None for the ones lumir imports;
    `static_inputs`: the positions of the graph's parameters and buffers.
    """
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if not any(free_symbols(n.meta.get("val")) for n in placeholders):
        return frozenset(), ()  # a graph's symbols all come from its inputs' sizes
    own = {node: set(free_symbols(node.meta.get("val"))) for node in gm.graph.nodes}
    symbols = {n: _symbols(n, own) for n in gm.graph.nodes if n.op == "call_function"}
    weights = _weights(gm, placeholders, static_inputs)
    products = [
        n
        for n in symbols
        if n.target in MATRIX_PRODUCTS
        and reasons.get(n) is None
        and any(operand in weights for operand in n.all_input_nodes)
    ]
    if not products:
        return frozenset(), ()
    sized_products = set().union(*(symbols[n] for n in products))
    sizes = {s for s in set().union(*symbols.values()) if symbol_is_type(s, SymT.SIZE)}
    lengths = sizes - sized_products
    if not lengths:
        return frozenset(), ()
    nodes = frozenset(n for n, s in symbols.items() if reasons.get(n) is None and s & lengths)
    return nodes, tuple(sorted(str(s) for s in lengths))
