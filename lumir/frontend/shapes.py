"""Symbolic shapes: the one place where the importer turns SymInts into integers.

A graph traced with dynamic dimensions carries `torch.SymInt` sizes whose `node.expr`
is a sympy expression over the graph's size symbols (`s0`, `s1`, ...). lumir's IR is
static, so every import is a specialisation: a `Bindings` maps each symbol to one
concrete integer, and every size, slice bound and integer argument the importer reads
goes through `evaluate`. Bindings come from real inputs at run time (`bind_inputs`, at
the sites `symbol_sites` found once per graph) or
from the tracing-time example values (`hint_bindings`), never from guessing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy
import torch
from torch import fx

Bindings = Mapping[sympy.Symbol, int]
"""Size symbol -> the concrete value it takes in one specialisation."""


class UnboundSymbolError(ValueError):
    """A size expression mentions a symbol no graph input determines."""


def expression(value: object) -> sympy.Expr:
    """The sympy expression of a SymInt, or the integer of a plain int."""
    if isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
        return value.node.expr
    if isinstance(value, bool | int):
        return sympy.Integer(int(value))
    raise TypeError(f"expected an int or SymInt, got {type(value).__name__}")


def evaluate(value: object, bindings: Bindings) -> int:
    """The concrete integer `value` (an int or SymInt) takes under `bindings`."""
    if isinstance(value, torch.SymFloat | float):
        raise TypeError(f"expected an integer size, got the float {value}")
    expr = expression(value)
    if expr.is_Integer:
        return int(expr)
    return int(_substitute(expr, bindings, "size"))


def evaluate_scalar(value: object, bindings: Bindings) -> int | float:
    """The concrete number a scalar argument takes under `bindings`: an int or SymInt as
    `evaluate` gives it, a float or SymFloat (`torch.sym_float` of a size: a LayerNorm's
    divisor over a dynamic width) as a float."""
    if isinstance(value, float):
        return value
    if not isinstance(value, torch.SymFloat):
        return evaluate(value, bindings)
    return float(_substitute(expression(value), bindings, "scalar"))


def _substitute(expr: sympy.Expr, bindings: Bindings, what: str) -> sympy.Expr:
    """`expr` with every bound symbol replaced by its value: a number, or an error."""
    result = expr.xreplace({symbol: sympy.Integer(v) for symbol, v in bindings.items()})
    if not getattr(result, "is_number", False):
        missing = sorted(str(s) for s in result.free_symbols)
        raise UnboundSymbolError(f"{what} {expr} depends on unbound symbols {missing}")
    return result


def concrete_shape(tensor: torch.Tensor, bindings: Bindings) -> tuple[int, ...]:
    """The shape of a (fake) tensor under `bindings`."""
    return tuple(evaluate(dim, bindings) for dim in tensor.shape)


def is_dynamic(tensor: torch.Tensor) -> bool:
    """True when some dimension of the (fake) tensor is symbolic."""
    return any(not expression(dim).is_Integer for dim in tensor.shape)


def _symbols_of(value: object) -> list[sympy.Symbol]:
    if isinstance(value, torch.Tensor):
        return [e for e in (expression(d) for d in value.shape) if isinstance(e, sympy.Symbol)]
    if isinstance(value, torch.SymInt):
        expr = expression(value)
        return [expr] if isinstance(expr, sympy.Symbol) else []
    return []


SymbolSite = tuple[int, int | None, sympy.Symbol]
"""(input position, dimension or None for an integer input, the symbol found there)."""


def symbol_sites(placeholders: Sequence[fx.Node]) -> tuple[SymbolSite, ...]:
    """Where each bare size symbol of the placeholders' example values can be read off
    real inputs: a dimension of a tensor input, or an integer input itself."""
    sites: list[SymbolSite] = []
    for position, node in enumerate(placeholders):
        example = node.meta.get("val")
        if isinstance(example, torch.Tensor):
            for dim, size in enumerate(example.shape):
                expr = expression(size)
                if isinstance(expr, sympy.Symbol):
                    sites.append((position, dim, expr))
        elif isinstance(example, torch.SymInt):
            expr = expression(example)
            if isinstance(expr, sympy.Symbol):
                sites.append((position, None, expr))
    return tuple(sites)


def bind_inputs(sites: Sequence[SymbolSite], inputs: Sequence[object]) -> dict:
    """Bindings read off real inputs at `sites` (see `symbol_sites`)."""
    bindings: dict[sympy.Symbol, int] = {}
    for position, dim, symbol in sites:
        value = inputs[position]
        if dim is not None:
            assert isinstance(value, torch.Tensor)
            value = value.shape[dim]
        assert isinstance(value, int)
        bindings[symbol] = value
    return bindings


def hint_bindings(placeholders: Sequence[fx.Node]) -> dict:
    """Bindings from the example values the graph was traced with (the ShapeEnv's hints)."""
    bindings: dict[sympy.Symbol, int] = {}
    for node in placeholders:
        example = node.meta.get("val")
        for symbol in _symbols_of(example):
            hints = _hints(_shape_env(example))
            if symbol in hints:
                bindings[symbol] = int(hints[symbol])
    return bindings


def _hints(shape_env: object) -> Mapping[sympy.Symbol, object]:
    """The example value of each symbol (`backed_var_to_val` in newer torch)."""
    if shape_env is None:
        return {}
    hints = getattr(shape_env, "backed_var_to_val", None)
    return hints if hints is not None else shape_env.var_to_val  # type: ignore[attr-defined]


def _shape_env(value: object) -> object:
    if isinstance(value, torch.Tensor):
        for dim in value.shape:
            if isinstance(dim, torch.SymInt):
                return dim.node.shape_env
        return None
    if isinstance(value, torch.SymInt):
        return value.node.shape_env
    return None


def symbol_names(bindings: Bindings) -> tuple[tuple[str, int], ...]:
    """Bindings as sorted (name, value) pairs: a deterministic, hashable cache key."""
    return tuple(sorted((str(symbol), value) for symbol, value in bindings.items()))
