"""Tag the ops of a node whose sizes are symbolic with what those sizes are made of.

An import is static: every SymInt becomes the integer it takes at this length
(lumir.frontend.shapes). Two values that are equal only at this length (`arange(s0)`
and `arange(s1)` when s0 == s1 today, the past length `s7` and a literal 4 when
s7 == 4) then import as identical ops, and hl-canonicalize's common-subexpression
elimination would merge them at this length and not at the next one: the prepared
program differs from the one fused at another length, and the graph fuses again
(lumir.backend.retype compares the two). So each op emitted for a node that reads a
symbolic size carries `SIZES_ATTRIBUTE`: the node's symbols and a digest of its
target, of the symbolic sizes, strides and scalars of its arguments and result, and
of the op's position among the node's ops. Two ops with equal tags are the same
function of the same symbols, so they are equal at every length or at none; CSE
compares the tag as it compares properties (hl-canonicalize), and drops it afterwards.
Ops of nodes that read no symbol carry none: their sizes are the same at every length.
"""

from __future__ import annotations

import contextlib
import hashlib
import weakref
from collections.abc import Iterator, Sequence

import sympy
import torch
from torch import fx
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

from lumir.passes.hl_canonicalize import SIZES_ATTRIBUTE


def tag_sized_ops(node: fx.Node, ops: Sequence[Operation]) -> None:
    """Give each of `ops` (the ops `node` imported as, in order) the node's size tag,
    when the node's arguments or result have a symbolic size or scalar."""
    if node not in _SIGNATURES:
        _SIGNATURES[node] = _signature(node)
    signature = _SIGNATURES[node]
    if signature is None:
        return
    for position, op in enumerate(ops):
        op.attributes[SIZES_ATTRIBUTE] = StringAttr(f"{signature}.{position}")


_SIGNATURES: weakref.WeakKeyDictionary[fx.Node, str | None] = weakref.WeakKeyDictionary()
"""Each node's signature, found once: it does not depend on the length (every length of
a graph imports the same nodes), and a new length should cost the least it can."""


def _signature(node: fx.Node) -> str | None:
    """`"<symbols>: <digest>"` for a node that reads a symbolic size, else None."""
    symbols: set[sympy.Symbol] = set()
    words = [str(node.target), *_describe((node.args, node.kwargs, node), symbols)]
    if not symbols:
        return None
    names = " ".join(sorted(str(symbol) for symbol in symbols))
    return f"{names}: {hashlib.sha256(' '.join(words).encode()).hexdigest()[:12]}"


_LITERALS = (
    bool,
    int,
    float,
    str,
    type(None),
    torch.dtype,
    torch.device,
    torch.layout,
    torch.memory_format,
)
"""Argument types whose repr is their value, the same in every process."""


def _describe(value: object, symbols: set[sympy.Symbol]) -> Iterator[str]:
    """Words that say `value` (a node's argument, an example value) symbolically; the
    symbols it mentions go into `symbols`."""
    if isinstance(value, fx.Node):
        yield from _describe(value.meta.get("val"), symbols)
    elif isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
        expr = value.node.expr
        symbols.update(expr.free_symbols)
        yield str(expr)
    elif isinstance(value, torch.Tensor):
        yield f"tensor {value.dtype}"
        parts: list[object] = [*value.shape, "/"]
        with contextlib.suppress(RuntimeError, NotImplementedError):  # sparse, nested
            parts += [*value.stride(), "+", value.storage_offset()]
        for part in parts:
            yield from _describe(part, symbols)
    elif isinstance(value, list | tuple):
        yield "("
        for item in value:
            yield from _describe(item, symbols)
        yield ")"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{key}="
            yield from _describe(item, symbols)
    else:
        yield repr(value) if isinstance(value, _LITERALS) else type(value).__name__
