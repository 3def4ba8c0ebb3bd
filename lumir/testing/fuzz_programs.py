"""Random matmul-family `hl` programs for the whole-pipeline differential fuzzer.

A program is plain data (`Program`: arguments, a list of `Node`s, the returned values),
so it can be printed as `hl` text (the reproducer a failure shows, ready to paste into
`lumir-opt -p lumir-pipeline`) and evaluated without any of lumir's code
(`lumir.testing.fuzz_reference`).

What the generator covers: f32, f16 and bf16; 2-D, batched (`[B, M, K] @ [B, K, N]`) and
Linear-shaped (`[B, M, K] @ [K, N]`) products, written as `hl.matmul`, `hl.linear` (with
or without bias) or `hl.addmm`, and a value times its own transpose; transposed and
permuted operands, transposed and reshaped intermediates; scaling by a 0-d constant on
either side; bias, same-shape and broadcast residual adds (the product being the
smaller, broadcast operand too) and skip connections; relu, tanh and exact gelu; casts
to f32 and back; chains of up to three products; extra returned values, so intermediates
have several consumers (the motivating bug of docs/design.md: a product read by a
residual add and by a cast); sizes that include 1, 3 and 17.

The generator is written once, against `Draw` (two methods for random choices), and has
two drivers: `program_strategy()` for hypothesis, which shrinks a failing program
towards the first option of every choice (so options are listed simplest first), and
`random_program(seed, index)`, a seeded `random.Random`: the same seed and index give
the same program in every process.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

DTYPES = ("f32", "bf16", "f16")
SIZES = (1, 2, 3, 4, 5, 8, 16, 17, 32)
"""Matrix dimensions: small enough to run fast, odd enough (1, 3, 17) to catch layout bugs."""
BATCHES: tuple[tuple[int, ...], ...] = ((), (2,), (3,), (1,), (2, 3))
SCALES = (0.5, 2.0, -1.0, 0.25, -1.5, 3.0)
"""Scale factors, each exact in every dtype, so a constant adds no rounding of its own."""
MAX_RANK = 4
"""A broadcast residual may add a leading dimension up to this rank."""
GRAM_MAX_K = 8
"""A product of a value with its own transpose is drawn only for K up to this."""
MAX_PRODUCTS = 3
MAX_EPILOGUE_STEPS = 3
MAX_EXTRA_OUTPUTS = 2


class Draw(Protocol):
    """The random choices the generator makes; each driver implements them."""

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]; shrinks towards `low`."""
        ...

    def choice(self, options: Sequence[T]) -> T:
        """One of `options`; shrinks towards the first."""
        ...


@dataclass(frozen=True)
class TensorSpec:
    """The static type of a value: its shape and element type."""

    shape: tuple[int, ...]
    dtype: str

    def hl(self) -> str:
        """The builtin tensor type, as `hl` text writes it."""
        return f"tensor<{''.join(f'{d}x' for d in self.shape)}{self.dtype}>"

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Node:
    """One value of a program: a function argument or the result of one `hl` op.

    `op` is "argument" or the op's name without its `hl.` prefix. `value` is the
    constant's value for "constant" and the standard deviation of the random inputs for
    "argument" (a weight's is about 1/sqrt(K), so products stay near unit size).
    """

    name: str
    op: str
    operands: tuple[str, ...]
    result: TensorSpec
    permutation: tuple[int, ...] = ()
    approximate: str = ""
    value: float = 0.0


@dataclass(frozen=True, repr=False)
class Program:
    """A function `@f(arguments) -> outputs` whose body is `body`, in order.

    Its repr is its hl text, so hypothesis reports a falsifying program readably.
    """

    arguments: tuple[Node, ...]
    body: tuple[Node, ...]
    outputs: tuple[str, ...]

    def __repr__(self) -> str:
        return f'Program("""\n{self.text()}""")'

    def node(self, name: str) -> Node:
        """The argument or body node called `name`."""
        return next(n for n in (*self.arguments, *self.body) if n.name == name)

    def text(self) -> str:
        """The program as `hl` text: one module holding `func.func @f`."""
        params = ", ".join(f"%{a.name}: {a.result.hl()}" for a in self.arguments)
        types = [self.node(name).result.hl() for name in self.outputs]
        result_types = types[0] if len(types) == 1 else f"({', '.join(types)})"
        lines = [f"func.func @f({params}) -> {result_types} {{"]
        lines += [f"  {_op_text(self, node)}" for node in self.body]
        returned = ", ".join(f"%{name}" for name in self.outputs)
        lines += [f"  func.return {returned} : {', '.join(types)}", "}"]
        return "\n".join(lines) + "\n"


def _op_text(program: Program, node: Node) -> str:
    operands = [program.node(name) for name in node.operands]
    uses = ", ".join(f"%{o.name}" for o in operands)
    result = node.result.hl()
    head = f"%{node.name} = hl.{node.op}"
    if node.op == "constant":
        return f"{head} {{value = dense<{node.value!r}> : {result}}} : {result}"
    if node.op == "linear":
        x, w = operands[:2]
        bias = "".join(f" bias(%{b.name} : {b.result.hl()})" for b in operands[2:])
        return f"{head} %{x.name}, %{w.name}{bias} : {x.result.hl()}, {w.result.hl()} -> {result}"
    if node.op in ("transpose", "gelu", "relu", "cast", "reshape"):
        attrs = ""
        if node.op == "transpose":
            attrs = f" {{permutation = array<i64: {', '.join(map(str, node.permutation))}>}}"
        elif node.op == "gelu":
            attrs = f' {{approximate = "{node.approximate}"}}'
        return f"{head} {uses}{attrs} : {operands[0].result.hl()} -> {result}"
    types = ", ".join(o.result.hl() for o in operands)
    return f"{head} {uses} : ({types}) -> {result}"


def matmul_result(lhs: TensorSpec, rhs: TensorSpec) -> TensorSpec:
    """aten.matmul's result type for operands of rank >= 2 (batch dims broadcast)."""
    batch = broadcast(lhs.shape[:-2], rhs.shape[:-2])
    return TensorSpec((*batch, lhs.shape[-2], rhs.shape[-1]), lhs.dtype)


def broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy broadcasting of shapes the generator made compatible."""
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    return tuple(max(dims) for dims in zip(*padded, strict=True))


@dataclass
class _Builder:
    """Collects the arguments and ops of one program as the generator draws them."""

    draw: Draw
    arguments: list[Node] = field(default_factory=list)
    body: list[Node] = field(default_factory=list)
    computed: list[Node] = field(default_factory=list)
    """The activation input, residuals, products and epilogue results: what a skip
    connection or an extra output may read."""
    has_gram: bool = False

    def argument(self, role: str, shape: tuple[int, ...], dtype: str, scale: float = 1.0) -> Node:
        spec = TensorSpec(shape, dtype)
        node = Node(f"{role}{len(self.arguments)}", "argument", (), spec, value=scale)
        self.arguments.append(node)
        return node

    def op(self, op: str, operands: Sequence[Node], result: TensorSpec, **attrs: Any) -> Node:
        node = Node(f"v{len(self.body)}", op, tuple(o.name for o in operands), result, **attrs)
        self.body.append(node)
        return node

    def transpose(self, value: Node, permutation: tuple[int, ...]) -> Node:
        shape = tuple(value.result.shape[p] for p in permutation)
        return self.op(
            "transpose", [value], TensorSpec(shape, value.result.dtype), permutation=permutation
        )

    def matrix_argument(
        self, role: str, shape: tuple[int, ...], dtype: str, scale: float = 1.0
    ) -> Node:
        """An argument of `shape`, or (a coin flip) the transpose of a stored transposed one."""
        if self.draw.choice((False, True)):
            stored = (*shape[:-2], shape[-1], shape[-2])
            return self.transpose(
                self.argument(role, stored, dtype, scale), _swap_last_two(len(shape))
            )
        return self.argument(role, shape, dtype, scale)

    def add(self, lhs: Node, rhs: Node) -> Node:
        shape = broadcast(lhs.result.shape, rhs.result.shape)
        return self.op("add", [lhs, rhs], TensorSpec(shape, lhs.result.dtype))

    def cast(self, value: Node, dtype: str) -> Node:
        return self.op("cast", [value], TensorSpec(value.result.shape, dtype))


def _swap_last_two(rank: int) -> tuple[int, ...]:
    return (*range(rank - 2), rank - 1, rank - 2)


def _weight_scale(k: int) -> float:
    """About 1/sqrt(k), a power of two: a product of unit-size inputs stays unit-size."""
    return 2.0 ** -round(math.log2(k) / 2)


def _activation_input(b: _Builder, shape: tuple[int, ...], dtype: str) -> Node:
    """The first product's lhs: stored as is, transposed, or with a batch dim permuted in."""
    rank = len(shape)
    if rank == 2 or b.draw.choice(("stored", "permuted")) == "stored":
        return b.matrix_argument("x", shape, dtype)
    # [M, *batch, K] stored, permuted to [*batch, M, K]: a transpose no GEMM flag can read.
    stored = (shape[-2], *shape[:-2], shape[-1])
    return b.transpose(b.argument("x", stored, dtype), (*range(1, rank - 1), 0, rank - 1))


def _product(b: _Builder, x: Node, n: int) -> Node:
    """x [*batch, M, K] times a new weight, as one of the matmul-family spellings."""
    *batch, m, k = x.result.shape
    dtype = x.result.dtype
    scale = _weight_scale(k)
    forms = ["matmul", "linear"]
    if not batch:
        forms += ["addmm", "batched-weight"]
    else:
        forms += ["bmm"]
    if k <= GRAM_MAX_K and not b.has_gram:
        forms.append("gram")
    form = b.draw.choice(forms)
    if form == "gram":
        # x @ x^T: one buffer read as both A and B. Only once, with a short K, so values
        # stay far from f16's range.
        b.has_gram = True
        xt = b.transpose(x, _swap_last_two(x.result.rank))
        return b.op("matmul", [x, xt], matmul_result(x.result, xt.result))
    if form == "matmul":
        w = b.matrix_argument("w", (k, n), dtype, scale)
        return b.op("matmul", [x, w], matmul_result(x.result, w.result))
    if form == "linear":
        w = b.argument("w", (n, k), dtype, scale)
        operands = [x, w]
        if b.draw.choice((False, True)):
            operands.append(b.argument("b", (n,), dtype))
        return b.op("linear", operands, TensorSpec((*batch, m, n), dtype))
    if form == "addmm":
        bias_shape = b.draw.choice(((n,), (m, n), (1, n), (m, 1)))
        bias = b.argument("b", bias_shape, dtype)
        w = b.matrix_argument("w", (k, n), dtype, scale)
        return b.op("addmm", [bias, x, w], TensorSpec((m, n), dtype))
    weight_batch = tuple(batch) if form == "bmm" else (b.draw.choice((2, 3)),)
    w = b.matrix_argument("w", (*weight_batch, k, n), dtype, scale)
    return b.op("matmul", [x, w], matmul_result(x.result, w.result))


def _broadcast_partners(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Shapes that broadcast against `shape` without being it: smaller and larger ones."""
    *batch, m, n = shape
    partners = [(1, n), (m, 1)]
    if len(shape) < MAX_RANK:
        partners += [(2, *shape), (1, *shape)]
    if batch:
        partners.append((*(1 for _ in batch), m, n))
    if m == 1:
        partners.append((*batch, 3, n))
    if 1 in batch:
        partners.append((*(2 if d == 1 else d for d in batch), m, n))
    return [p for p in partners if p != shape]


def _epilogue_step(b: _Builder, y: Node, program_dtype: str) -> Node:
    """One op on the current value y [..., M, N]: elementwise, a transpose of M and N, or
    a reshape."""
    spec = y.result
    skips = [v for v in b.computed if v.result == spec and v is not y]
    steps: list[tuple[str, Callable[[], Node]]] = [
        ("scale", lambda: _scale(b, y)),
        ("bias", lambda: _ordered_add(b, y, b.argument("b", (spec.shape[-1],), spec.dtype))),
        ("residual", lambda: _residual(b, y)),
        ("relu", lambda: b.op("relu", [y], spec)),
        ("gelu-tanh", lambda: b.op("gelu", [y], spec, approximate="tanh")),
        ("gelu-exact", lambda: b.op("gelu", [y], spec, approximate="none")),
        ("broadcast-residual", lambda: _broadcast_residual(b, y)),
        ("transpose", lambda: b.transpose(y, _swap_last_two(spec.rank))),
    ]
    view = _view_shape(spec.shape)
    if view is not None:
        steps.append(("reshape", lambda: b.op("reshape", [y], TensorSpec(view, spec.dtype))))
    if spec.dtype != "f32":
        steps.append(("cast-f32", lambda: b.cast(y, "f32")))
    elif program_dtype != "f32":
        steps.append(("cast-back", lambda: b.cast(y, program_dtype)))
    if skips:
        steps.append(("skip", lambda: _ordered_add(b, y, b.draw.choice(skips))))
    _, make = b.draw.choice(steps)
    return make()


def _view_shape(shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """A reshape as a program writes one: batch dims merged into M, or M split in two."""
    *leading, n = shape
    if len(leading) > 1:
        return (math.prod(leading), n)
    if leading[0] % 2 == 0:
        return (2, leading[0] // 2, n)
    return None


def _scale(b: _Builder, y: Node) -> Node:
    constant = b.op("constant", [], TensorSpec((), y.result.dtype), value=b.draw.choice(SCALES))
    operands = [y, constant] if b.draw.choice((False, True)) is False else [constant, y]
    return b.op("mul", operands, y.result)


def _ordered_add(b: _Builder, y: Node, other: Node) -> Node:
    return b.add(y, other) if b.draw.choice((False, True)) is False else b.add(other, y)


def _residual(b: _Builder, y: Node) -> Node:
    """y + R, R a new argument of y's type that later steps may also read or return: a
    returned f32 cast of R is what makes the f32-C form of the cast fusion worth it."""
    residual = b.argument("r", y.result.shape, y.result.dtype)
    b.computed.append(residual)
    return _ordered_add(b, y, residual)


def _broadcast_residual(b: _Builder, y: Node) -> Node:
    shape = b.draw.choice(_broadcast_partners(y.result.shape))
    return _ordered_add(b, y, b.argument("r", shape, y.result.dtype))


def _extra_outputs(b: _Builder, final: Node) -> list[Node]:
    """Intermediates returned too (as they are or cast to f32): several consumers each."""
    outputs: list[Node] = []
    candidates = [v for v in b.computed if v is not final]
    for _ in range(b.draw.integer(0, MAX_EXTRA_OUTPUTS)):
        if not candidates:
            break
        value = b.draw.choice(candidates)
        candidates.remove(value)
        if value.result.dtype != "f32" and b.draw.choice((False, True)):
            value = b.cast(value, "f32")
        outputs.append(value)
    return outputs


def generate(draw: Draw) -> Program:
    """A random valid matmul-family program, every choice taken from `draw`."""
    b = _Builder(draw)
    dtype = draw.choice(DTYPES)
    batch = draw.choice(BATCHES)
    value = _activation_input(b, (*batch, draw.choice(SIZES), draw.choice(SIZES)), dtype)
    b.computed.append(value)
    for _ in range(draw.integer(1, MAX_PRODUCTS)):
        value = _product(b, value, draw.choice(SIZES))
        b.computed.append(value)
        for _ in range(draw.integer(0, MAX_EPILOGUE_STEPS)):
            value = _epilogue_step(b, value, dtype)
            b.computed.append(value)
    outputs = [value, *_extra_outputs(b, value)]
    return Program(tuple(b.arguments), tuple(b.body), tuple(o.name for o in outputs))


class RandomDraw:
    """`Draw` from a `random.Random`: reproducible from its seed."""

    def __init__(self, rng: random.Random):
        self._rng = rng

    def integer(self, low: int, high: int) -> int:
        return self._rng.randint(low, high)

    def choice(self, options: Sequence[T]) -> T:
        return options[self._rng.randrange(len(options))]


def random_program(seed: int, index: int) -> Program:
    """Program `index` of the run with `seed`; the same in every process and every run.

    A string seed goes through SHA-512 in `random.Random`, independent of hash seeds.
    """
    return generate(RandomDraw(random.Random(f"lumir-fuzz/{seed}/{index}")))


class _HypothesisDraw:
    """`Draw` from a hypothesis `draw`, so failing programs shrink."""

    def __init__(self, draw: Callable[[Any], Any]):
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        from hypothesis import strategies as st

        return self._draw(st.integers(low, high))

    def choice(self, options: Sequence[T]) -> T:
        from hypothesis import strategies as st

        return self._draw(st.sampled_from(list(options)))


def program_strategy() -> Any:
    """A hypothesis strategy of `Program`s (hypothesis is imported only here)."""
    from hypothesis import strategies as st

    @st.composite
    def programs(draw: Callable[[Any], Any]) -> Program:
        return generate(_HypothesisDraw(draw))

    return programs()
