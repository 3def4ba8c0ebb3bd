"""Symbolic shapes: the one place where the importer turns SymInts into integers.

A graph traced with dynamic dimensions carries `torch.SymInt` sizes whose `node.expr`
is a sympy expression over the graph's size symbols (`s0`, `s1`, ...). lumir's IR is
static, so every import is a specialisation: a `Bindings` maps each symbol to one
concrete integer, and every size, slice bound and integer argument the importer reads
goes through `evaluate`. Bindings come from real inputs at run time (the sizes read at
the sites `symbol_sites` found once per graph, `site_symbol_value`) or from the
tracing-time example values (`hint_bindings`), never from guessing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

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


SymbolSite = tuple[int, int | None, sympy.Symbol, sympy.Expr]
"""(input position, dimension or None for an integer input, the symbol found there, the
size there: the symbol itself, or an expression of it and of earlier sites' symbols)."""


def symbol_sites(
    placeholders: Sequence[fx.Node], pinned: Bindings | None = None
) -> tuple[SymbolSite, ...]:
    """Where each size symbol of the placeholders' example values can be read off real
    inputs: a dimension of a tensor input, or an integer input itself.

    A bare symbol is read where it stands. A symbol that only appears in derived sizes
    (a partition after an eager op, whose inputs are all `cat([x, x])`, of `2 * s` rows,
    or a strided window's `(s - 3) // 2 + 1`) is solved from the first size in which it
    is the one symbol not read already (`site_symbol_value`); later sites may use the
    symbols of earlier ones. `pinned` symbols (`pinned_symbols`) take their fixed value
    in every size and have no site.
    """
    fixed = {symbol: sympy.Integer(value) for symbol, value in (pinned or {}).items()}
    sizes = [(p, d, size.xreplace(fixed)) for p, d, size in _placeholder_sizes(placeholders)]
    sites: list[SymbolSite] = [(p, d, e, e) for p, d, e in sizes if isinstance(e, sympy.Symbol)]
    bound = {symbol for _, _, symbol, _ in sites}
    progress = True
    while progress:
        progress = False
        for position, dim, size in sizes:
            unknown = size.free_symbols - bound
            if len(unknown) == 1:
                (symbol,) = unknown
                sites.append((position, dim, symbol, size))
                bound.add(symbol)
                progress = True
    return tuple(sites)


def _placeholder_sizes(
    placeholders: Sequence[fx.Node],
) -> list[tuple[int, int | None, sympy.Expr]]:
    """(input position, dimension or None, size) of every size the inputs carry."""
    sizes: list[tuple[int, int | None, sympy.Expr]] = []
    for position, node in enumerate(placeholders):
        example = node.meta.get("val")
        if isinstance(example, torch.Tensor):
            shape = example.shape
            sizes.extend((position, dim, expression(size)) for dim, size in enumerate(shape))
        elif isinstance(example, torch.SymInt):
            sizes.append((position, None, expression(example)))
    return sizes


def pinned_symbols(
    placeholders: Sequence[fx.Node], expressions: Callable[[], Iterable[sympy.Expr]]
) -> dict[sympy.Symbol, int]:
    """Symbols the inputs only carry together with others (`s + t` rows after an eager
    `cat` of two dynamic tensors; `s * t` rows after an eager op on a `[batch, length]`
    tensor flattened to tokens, as a mixture-of-experts router's `topk` under
    `dynamic=True`), fixed where that is exact.

    No input size tells `s` and `t` apart, but a partition whose every size (of its
    inputs, values and scalars: `expressions()`) depends on them only through `s + t`
    (or `s * t`) computes the same program for any split of the sum (or product). So
    `t` is pinned and `s` solved from the size: for each input size left with several
    unread symbols, in input order, the first symbol by name is solved (linearly: its
    coefficient may be a product of the others) and the others are pinned, when
    substituting the solution into every expression of the partition removes them.
    Otherwise nothing more is pinned, and compiling names the unbound symbols as before.

    A symbol of a sum is pinned at its traced value. A symbol the solved one is
    multiplied by is pinned at 1: at its traced value, `s` would be solved by dividing
    a later call's size by it, and a token count of 39 has no `s` for `9 * s`. Any
    value is exact where the partition only reads the product, and 1 divides every one.

    A size linear in none of its symbols (`(s * t + t - 1) // t`, the rows of an
    `embedding_bag` of `[s, t]` indices after the eager bag) pins them the same way
    where every expression reads them only through that whole size
    (`_whole_size_pins`).
    """
    pinned: dict[sympy.Symbol, int] = {}
    solutions: dict[sympy.Symbol, sympy.Expr] = {}
    collected: list[sympy.Expr] | None = None
    while True:
        bound = {site[2] for site in symbol_sites(placeholders, pinned)} | set(pinned)
        tangled = [
            (node_position, size)
            for node_position, _, size in _placeholder_sizes(placeholders)
            if len(size.free_symbols - bound) >= 2
        ]
        if not tangled:
            return pinned
        position, size = tangled[0]
        unread = sorted(size.free_symbols - bound, key=str)
        hints = _hints(_shape_env(placeholders[position].meta.get("val")))
        fresh = sympy.Symbol(f"lumir_size_{len(solutions)}")
        solved, *others = unread
        solution = _linear_solution(size, solved, fresh)
        needs_hints = others if solution is not None else unread
        if any(symbol not in hints for symbol in needs_hints):
            return pinned
        if collected is None:
            collected = list(expressions())
        if solution is not None:
            trial = {**solutions, solved: solution}
            if any(_mentions(e.xreplace(trial), others) for e in collected):
                return pinned
            factors = sympy.Poly(size, solved).all_coeffs()[0].free_symbols
            pinned.update(
                (symbol, 1 if symbol in factors else int(hints[symbol])) for symbol in others
            )
        else:
            # Not linear in any one symbol (a ceiling division of a product by one of its
            # factors): the partition may still read the symbols only through this size.
            trial = {**solutions, size: fresh}
            if any(_mentions(e.xreplace(trial), unread) for e in collected):
                return pinned
            whole = _whole_size_pins(size, unread, hints)
            if whole is None:
                return pinned
            pinned.update(whole)
        solutions = trial


def _whole_size_pins(
    size: sympy.Expr, unread: Sequence[sympy.Symbol], hints: Mapping[sympy.Symbol, object]
) -> dict[sympy.Symbol, int] | None:
    """Pins for all but one of a size's unread symbols, for a partition that reads them
    only through that size (not linear in any of them: `(s * t + t - 1) // t` rows,
    an `arange(0, s * t, t)` of torch's `embedding_bag` offsets, after the eager bag).

    Any values that give the size its value compute the same program. The others are
    pinned at their traced values where that leaves the size `symbol + b`, so the one
    symbol left is read off every size a call brings (a size with no integer solution
    would leave the call unbound); None where no symbol does."""
    for solved in unread:
        others = {s: int(hints[s]) for s in unread if s != solved}
        linear = _linear(size.xreplace({s: sympy.Integer(v) for s, v in others.items()}), solved)
        if linear is not None and linear[0] == 1:
            return others
    return None


def _linear_solution(
    size: sympy.Expr, symbol: sympy.Symbol, value: sympy.Symbol
) -> sympy.Expr | None:
    """`symbol` as a function of the size's `value` and its other symbols, for a size
    linear in `symbol` whose coefficient is an integer times other symbols (`s * t`:
    `value / t`), else None."""
    try:
        poly = sympy.Poly(size, symbol)
    except sympy.PolynomialError:
        return None
    if poly.degree() != 1:
        return None
    coefficient, rest = poly.all_coeffs()
    if symbol in rest.free_symbols or not _is_monomial(coefficient):
        return None
    return (value - rest) / coefficient


def _is_monomial(expr: sympy.Expr) -> bool:
    """A nonzero integer times a product of symbols (each to a positive integer power)."""
    factors = sympy.Mul.make_args(expr)
    return all(
        (f.is_Integer and f != 0)
        or isinstance(f, sympy.Symbol)
        or (f.is_Pow and isinstance(f.base, sympy.Symbol) and f.exp.is_Integer and f.exp > 0)
        for f in factors
    )


def _mentions(expr: sympy.Expr, symbols: Sequence[sympy.Symbol]) -> bool:
    return any(symbol in expr.free_symbols for symbol in symbols)


def size_expressions(graph: fx.Graph) -> Iterator[sympy.Expr]:
    """Every symbolic size, stride, offset and scalar of the graph's example values."""
    for node in graph.nodes:
        yield from _example_expressions(node.meta.get("val"))


def _example_expressions(value: object) -> Iterator[sympy.Expr]:
    if isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
        yield value.node.expr
    elif isinstance(value, torch.Tensor):
        parts: list[object] = [*value.shape]
        with contextlib.suppress(RuntimeError, NotImplementedError):  # sparse, nested
            parts.extend([*value.stride(), value.storage_offset()])
        for part in parts:
            yield from _example_expressions(part)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _example_expressions(item)


def _linear(size: sympy.Expr, symbol: sympy.Symbol) -> tuple[int, int] | None:
    """(a, b) with `size == a * symbol + b`, integers and a != 0, else None."""
    try:
        poly = sympy.Poly(size, symbol)
    except sympy.PolynomialError:
        return None
    if poly.degree() != 1 or not all(c.is_Integer for c in poly.all_coeffs()):
        return None
    a, b = (int(c) for c in poly.all_coeffs())
    return a, b


_LARGEST_SIZE = 2**62
"""Where the search for a symbol's value stops (no tensor has more elements)."""


def site_symbol_value(site: SymbolSite, size: int, bindings: Bindings | None = None) -> int:
    """A value of the site's symbol for which the site's size is `size`, the symbols of
    earlier sites taking their values in `bindings`.

    Linear sizes are solved exactly. Others (floor divisions of a window's length) are
    searched as non-decreasing in the symbol, and the answer checked: the smallest value
    that gives `size`. Where several do, they give every size the partition computes
    the same value, as the partition's sizes all derive from its inputs' sizes.
    """
    _, _, symbol, expr = site
    if expr == symbol:
        return size
    expr = expr.xreplace({s: sympy.Integer(v) for s, v in (bindings or {}).items()})
    linear = _linear(expr, symbol)
    if linear is not None:
        a, b = linear
        value, remainder = divmod(size - b, a)
        if remainder:
            raise UnboundSymbolError(f"size {size} is not {expr} for any integer {symbol}")
        return value

    def at(value: int) -> int:
        return int(_substitute(expr, {symbol: value}, "size"))

    low, high = _smallest_defined(at), _LARGEST_SIZE
    while low < high:
        middle = (low + high) // 2
        if at(middle) < size:
            low = middle + 1
        else:
            high = middle
    if at(low) != size:
        raise UnboundSymbolError(f"size {size} is not {expr} for any integer {symbol}")
    return low


def _smallest_defined(at: Callable[[int], int]) -> int:
    """Where a search for a symbol's value starts: 0, or 1 for a symbol that a size
    divides by (`(s * t + t - 1) // t` rows solved for `t`), which no call gives 0."""
    try:
        at(0)
    except ZeroDivisionError:
        return 1
    return 0


def site_size(site: SymbolSite, bindings: Bindings) -> int:
    """The size read at `site` under `bindings` (the inverse of `site_symbol_value`)."""
    return int(_substitute(site[3], bindings, "size"))


def hint_bindings(placeholders: Sequence[fx.Node], sites: Sequence[SymbolSite]) -> dict:
    """Bindings from the example values the graph was traced with (the ShapeEnv's
    hints), for every symbol that `sites` (`symbol_sites(placeholders)`) reads.

    Each symbol takes the value a call of the traced sizes binds it to: its site's size
    at the hints, solved as at a call (`site_symbol_value`). Not the symbol's own hint,
    which differs where another symbol is pinned at a value other than its hint (`s`
    of `s * t` rows, with `t` pinned at 1, is the product of their hints)."""
    bindings: dict[sympy.Symbol, int] = {}
    examples = [node.meta.get("val") for node in placeholders]
    for site in sites:
        position, dim, symbol, _ = site
        example = examples[position]
        hints = _hints(_shape_env(example))
        size = expression(example if dim is None else example.shape[dim])
        if not size.free_symbols <= set(hints):
            continue
        traced = int(size.xreplace({s: sympy.Integer(int(hints[s])) for s in size.free_symbols}))
        bindings[symbol] = site_symbol_value(site, traced, bindings)
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
