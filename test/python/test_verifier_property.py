"""Property test: the verifier's verdict equals an independent oracle on random calls.

The oracle below is written straight from cuBLASLt's `cublasLtMatmul` type tables and
docs/design.md's invariants, over plain strings and ints; it shares no code with
`lumir.verifier` (not even its table), so a slip in either shows up as a disagreement
about which invariant ids fire.

Calls are generated the way a lowering would build them (a row-major product in the
column-major or the row-major view, optionally batched, with C and bias where the
epilogue and beta want them), then each field is mutated with a small probability, so
legal calls, single violations and pile-ups all occur.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import (
    Float8E4M3FNType,
    Float8E5M2Type,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose
from lumir.dialects.cublaslt import MatmulDescriptor
from lumir.verifier import check_matmul

# --- the oracle's own copy of the tables ------------------------------------------------

# cublasLtMatmul, regular layouts: compute types | scale | A/B | C/D | bias ("-": default
# epilogue only).
REGULAR_TABLE = """
compute_16f compute_16f_pedantic | f16 | f16 | f16 | f16
compute_32f compute_32f_pedantic | f32 | bf16 | bf16 | bf16
compute_32f compute_32f_pedantic | f32 | f16 | f16 | f16
compute_32f compute_32f_pedantic | f32 | bf16 | f32 | f32
compute_32f compute_32f_pedantic | f32 | f16 | f32 | f32
compute_32f compute_32f_pedantic | f32 | f32 | f32 | f32
compute_32f_fast_16f compute_32f_fast_16bf compute_32f_fast_tf32 | f32 | f32 | f32 | f32
compute_64f compute_64f_pedantic | f64 | f64 | f64 | f64
compute_32i compute_32i_pedantic | i32 | i8 | i32 | -
"""

# cublasLtMatmul, FP8 (compute_32f, scale f32): A | B | C | D | bias.
FP8_TABLE = """
f8E4M3FN f8E4M3FN bf16 bf16 bf16
f8E4M3FN f8E4M3FN bf16 f8E4M3FN bf16
f8E4M3FN f8E4M3FN f16 f8E4M3FN f16
f8E4M3FN f8E4M3FN f16 f16 f16
f8E4M3FN f8E4M3FN f32 f32 bf16
f8E4M3FN f8E5M2 bf16 bf16 bf16
f8E4M3FN f8E5M2 bf16 f8E4M3FN bf16
f8E4M3FN f8E5M2 bf16 f8E5M2 bf16
f8E4M3FN f8E5M2 f16 f8E4M3FN f16
f8E4M3FN f8E5M2 f16 f8E5M2 f16
f8E4M3FN f8E5M2 f16 f16 f16
f8E4M3FN f8E5M2 f32 f32 bf16
f8E5M2 f8E4M3FN bf16 bf16 bf16
f8E5M2 f8E4M3FN bf16 f8E4M3FN bf16
f8E5M2 f8E4M3FN bf16 f8E5M2 bf16
f8E5M2 f8E4M3FN f16 f8E4M3FN f16
f8E5M2 f8E4M3FN f16 f8E5M2 f16
f8E5M2 f8E4M3FN f16 f16 f16
f8E5M2 f8E4M3FN f32 f32 bf16
"""


def _oracle_rows() -> dict[tuple[str, ...], str | None]:
    """(compute, scale, A, B, C, D) -> bias dtype, or None for default-epilogue-only rows."""
    rows: dict[tuple[str, ...], str | None] = {}
    for line in REGULAR_TABLE.strip().splitlines():
        computes, scale, ab, cd, bias = (part.strip() for part in line.split("|"))
        for compute in computes.split():
            rows[(compute, scale, ab, ab, cd, cd)] = None if bias == "-" else bias
    for line in FP8_TABLE.strip().splitlines():
        a, b, c, d, bias = line.split()
        rows[("compute_32f", "f32", a, b, c, d)] = bias
    return rows


ROWS = _oracle_rows()
FP8_PAIRS = {(a, b) for (_, _, a, b, _, _) in ROWS if a.startswith("f8")}
BIAS_EPILOGUES = {"bias", "relu_bias", "gelu_bias", "relu_aux_bias", "gelu_aux_bias"}
ACTIVATION_BIAS_EPILOGUES = {"relu_bias", "gelu_bias", "relu_aux_bias", "gelu_aux_bias"}
BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f8E4M3FN": 1, "f8E5M2": 1, "i8": 1, "i32": 4}

ELEMENTS: dict[str, Attribute] = {
    "f16": f16,
    "bf16": bf16,
    "f32": f32,
    "f64": f64,
    "f8E4M3FN": Float8E4M3FNType(),
    "f8E5M2": Float8E5M2Type(),
    "i8": i8,
    "i32": i32,
    "i64": i64,
}


@dataclass
class Tensor:
    """An operand as the oracle sees it: a row-major shape and an element type name."""

    shape: tuple[int, ...]
    element: str


@dataclass
class Call:
    """A generated call: descriptor fields as plain values, operands as `Tensor`s."""

    fields: dict[str, object]
    a: Tensor
    b: Tensor
    c: Tensor | None
    bias: Tensor | None
    d: Tensor


def oracle(call: Call) -> set[str]:
    """The invariant ids a call violates, from docs/design.md and the tables above."""
    f = call.fields
    a_t, b_t, c_t, d_t = f["a_dtype"], f["b_dtype"], f["c_dtype"], f["d_dtype"]
    fired: set[str] = set()
    v1 = a_t != b_t and (a_t, b_t) not in FP8_PAIRS
    v3 = c_t != d_t and (a_t, b_t) not in FP8_PAIRS
    key = (f["compute_type"], f["scale_type"], a_t, b_t, c_t, d_t)
    if v1:
        fired.add("V1")
    if v3:
        fired.add("V3")
    unsupported = key not in ROWS or (ROWS[key] is None and f["epilogue"] != "default")
    if unsupported and not v1 and not v3:
        fired.add("V2")

    reads_c = f["beta"] != 0.0
    if reads_c:
        c = call.c
        if c is None or c.element != c_t or c.shape != call.d.shape or f["order_c"] != f["order_d"]:
            fired.add("V4")
    elif call.c is not None:
        fired.add("V5")

    if f["epilogue"] in BIAS_EPILOGUES:
        allowed = ROWS.get(key) or d_t
        bias = call.bias
        if bias is None or bias.shape != (f["m"],) or bias.element != allowed:
            fired.add("V6")
    elif call.bias is not None:
        fired.add("V6")

    if f["epilogue"] in ACTIVATION_BIAS_EPILOGUES and f["order_d"] == "row":
        fired.add("V7")

    if not _shapes_agree(call):
        fired.add("V8")

    wrong_types = [
        call.a.element != a_t,
        call.b.element != b_t,
        call.d.element != d_t,
        call.c is not None and not reads_c and call.c.element != c_t,
    ]
    if any(wrong_types):
        fired.add("V9")

    if a_t.startswith("f8") or b_t.startswith("f8"):
        lds = [(f["lda"], a_t), (f["ldb"], b_t), (f["ldd"], d_t)]
        if call.c is not None:
            lds.append((f["ldc"], c_t))
        if any(ld * BYTES[t] % 16 for ld, t in lds) or f["k"] % 16:
            fired.add("V10")
    return fired


def _matrix(tensor: Tensor, order: object, trans: object) -> tuple[int, int]:
    """op(X)'s (rows, cols): a COL tensor is the transpose of its row-major shape."""
    r, c = tensor.shape[-2:]
    rows, cols = (r, c) if order == "row" else (c, r)
    return (cols, rows) if trans == "t" else (rows, cols)


def _shapes_agree(call: Call) -> bool:
    f = call.fields
    present = [("a", call.a), ("b", call.b), ("d", call.d)]
    if call.c is not None:
        present.append(("c", call.c))
    if any(len(t.shape) not in (2, 3) for _, t in present):
        return False
    if _matrix(call.a, f["order_a"], f["transa"]) != (f["m"], f["k"]):
        return False
    if _matrix(call.b, f["order_b"], f["transb"]) != (f["k"], f["n"]):
        return False
    if _matrix(call.d, f["order_d"], "n") != (f["m"], f["n"]):
        return False
    count = f["batch_count"]
    assert isinstance(count, int)
    if count < 1:
        return False
    if count > 1 and len(call.d.shape) == 2:
        return False
    for name, t in present:
        if t.shape[-1] != f[f"ld{name}"]:
            return False
        if len(t.shape) == 3 and t.shape[0] != count:
            return False
        want = t.shape[-2] * t.shape[-1] if count > 1 and len(t.shape) == 3 else 0
        if f[f"stride_{name}"] != want:
            return False
    if call.c is None:
        want_c = call.d.shape[-2] * call.d.shape[-1] if count > 1 and len(call.d.shape) == 3 else 0
        if f["order_c"] != f["order_d"] or f["ldc"] != call.d.shape[-1] or f["stride_c"] != want_c:
            return False
    return True


# --- generating calls ------------------------------------------------------------------

COMPUTES = [c.value for c in ComputeType]
DTYPES = [d.value for d in DataType]
EPILOGUES = [e.value for e in Epilogue]
DIMS = [8, 16, 24, 32, 40, 48]
MUTATION_ODDS = 20


def _maybe(draw: st.DrawFn, value: object, wrong: st.SearchStrategy[object]) -> object:
    """`value`, or with probability 1/MUTATION_ODDS a draw from `wrong`."""
    if draw(st.integers(0, MUTATION_ODDS - 1)) == 0:
        return draw(wrong)
    return value


def _nudge(draw: st.DrawFn, value: int) -> int:
    return int(_maybe(draw, value, st.sampled_from([-16, -1, 1, 8, 16]).map(lambda d: value + d)))


def _row_major(shape: tuple[int, int], batched: bool, batch: int) -> tuple[int, ...]:
    return (batch, *shape) if batched else shape


@st.composite
def calls(draw: st.DrawFn) -> Call:
    """A call built like a lowering would, then mutated field by field."""
    if draw(st.integers(0, 9)) < 8:
        compute, scale, a_t, b_t, c_t, d_t = draw(st.sampled_from(sorted(ROWS)))
    else:
        compute = draw(st.sampled_from(COMPUTES))
        scale, a_t, b_t, c_t, d_t = (draw(st.sampled_from(DTYPES)) for _ in range(5))
    epilogue = draw(st.sampled_from(EPILOGUES))
    big_m, big_n, big_k = (draw(st.sampled_from(DIMS)) for _ in range(3))
    batch = draw(st.sampled_from([0, 1, 3]))
    lhs_batched = batch > 0 and draw(st.booleans())
    rhs_batched = batch > 0 and draw(st.booleans())
    view = draw(st.sampled_from(["col", "row"]))
    transa, transb = draw(st.sampled_from(["n", "t"])), draw(st.sampled_from(["n", "t"]))

    if view == "col":  # A = rhs, B = lhs, m = N, n = M
        m, n = big_n, big_m
        a_shape = (big_k, big_n) if transa == "n" else (big_n, big_k)
        b_shape = (big_m, big_k) if transb == "n" else (big_k, big_m)
        a_batched, b_batched = rhs_batched, lhs_batched
    else:  # A = lhs, B = rhs, m = M, n = N
        m, n = big_m, big_n
        a_shape = (big_m, big_k) if transa == "n" else (big_k, big_m)
        b_shape = (big_k, big_n) if transb == "n" else (big_n, big_k)
        a_batched, b_batched = lhs_batched, rhs_batched
    a = Tensor(_row_major(a_shape, a_batched, batch), a_t)
    b = Tensor(_row_major(b_shape, b_batched, batch), b_t)
    d = Tensor(_row_major((big_m, big_n), batch > 0, batch), d_t)
    batch_count = max(batch, 1)

    def stride(t: Tensor) -> int:
        return t.shape[-2] * t.shape[-1] if batch_count > 1 and len(t.shape) == 3 else 0

    beta = draw(st.sampled_from([0.0, 0.0, 1.0, 0.5]))
    c = Tensor(d.shape, c_t) if beta != 0.0 else None
    row_bias = ROWS.get((compute, scale, a_t, b_t, c_t, d_t))
    bias = Tensor((m,), row_bias or d_t) if epilogue in BIAS_EPILOGUES else None

    fields: dict[str, object] = {
        "transa": transa,
        "transb": transb,
        "order_a": view,
        "order_b": view,
        "order_c": view,
        "order_d": view,
        "m": m,
        "n": n,
        "k": big_k,
        "lda": a.shape[-1],
        "ldb": b.shape[-1],
        "ldc": d.shape[-1],
        "ldd": d.shape[-1],
        "batch_count": batch_count,
        "stride_a": stride(a),
        "stride_b": stride(b),
        "stride_c": stride(d),
        "stride_d": stride(d),
        "a_dtype": a_t,
        "b_dtype": b_t,
        "c_dtype": c_t,
        "d_dtype": d_t,
        "compute_type": compute,
        "scale_type": scale,
        "alpha": 1.0,
        "beta": beta,
        "epilogue": epilogue,
    }
    for name in ("m", "n", "k", "lda", "ldb", "ldc", "ldd", "batch_count"):
        fields[name] = _nudge(draw, int(fields[name]))  # type: ignore[call-overload]
    for name in ("stride_a", "stride_b", "stride_c", "stride_d"):
        fields[name] = _nudge(draw, int(fields[name]))  # type: ignore[call-overload]
    for name in ("transa", "transb"):
        fields[name] = _maybe(draw, fields[name], st.sampled_from(["n", "t"]))
    for name in ("order_a", "order_b", "order_c", "order_d"):
        fields[name] = _maybe(draw, fields[name], st.sampled_from(["col", "row"]))
    for name in ("a_dtype", "b_dtype", "c_dtype", "d_dtype", "scale_type"):
        fields[name] = _maybe(draw, fields[name], st.sampled_from(DTYPES))
    fields["compute_type"] = _maybe(draw, compute, st.sampled_from(COMPUTES))
    fields["beta"] = _maybe(draw, beta, st.sampled_from([0.0, 1.0, -2.0]))

    elements = st.sampled_from(sorted(ELEMENTS))
    for t in (a, b, d):
        t.element = str(_maybe(draw, t.element, elements))
    a.shape = tuple(_maybe(draw, a.shape, st.just((1, *a.shape))))  # type: ignore[arg-type]
    c = _maybe(  # type: ignore[assignment]
        draw,
        c,
        st.one_of(
            st.none(),
            st.just(Tensor(d.shape, c_t)),
            st.just(Tensor((*d.shape[:-1], d.shape[-1] + 8), c_t)),
        ),
    )
    if c is not None:
        c.element = str(_maybe(draw, c.element, elements))
    bias = _maybe(  # type: ignore[assignment]
        draw,
        bias,
        st.one_of(
            st.none(),
            st.just(Tensor((m,), d_t)),
            st.just(Tensor((m + 1,), d_t)),
            st.just(Tensor((1, m), d_t)),
        ),
    )
    if bias is not None:
        bias.element = str(_maybe(draw, bias.element, elements))
    return Call(fields, a, b, c, bias, d)


# --- the property -----------------------------------------------------------------------


def _tensor_type(t: Tensor) -> TensorType[Attribute]:
    return TensorType(ELEMENTS[t.element], list(t.shape))


def _descriptor(fields: dict[str, object]) -> MatmulDescriptor:
    values = dict(fields)
    for name in ("transa", "transb"):
        values[name] = Transpose(fields[name])
    for name in ("order_a", "order_b", "order_c", "order_d"):
        values[name] = Order(fields[name])
    for name in ("a_dtype", "b_dtype", "c_dtype", "d_dtype", "scale_type"):
        values[name] = DataType(fields[name])
    values["compute_type"] = ComputeType(fields["compute_type"])
    values["epilogue"] = Epilogue(fields["epilogue"])
    return MatmulDescriptor(**values)  # type: ignore[arg-type]


def _id_number(message: str) -> int:
    return int(message.split(":", 1)[0][1:])


def test_verifier_agrees_with_oracle() -> None:
    """1,000 random calls: the ids the verifier reports are exactly the oracle's."""
    seen: Counter[str] = Counter()

    @settings(max_examples=1000, deadline=None, derandomize=True, database=None)
    @given(calls())
    def agree(call: Call) -> None:
        found = check_matmul(
            _descriptor(call.fields),
            _tensor_type(call.a),
            _tensor_type(call.b),
            _tensor_type(call.c) if call.c is not None else None,
            _tensor_type(call.bias) if call.bias is not None else None,
            _tensor_type(call.d),
        )
        messages = [str(diagnostic) for diagnostic in found]
        expected = oracle(call)
        assert {diagnostic.invariant for diagnostic in found} == expected, messages
        numbers = [_id_number(message) for message in messages]
        assert numbers == sorted(numbers), "diagnostics come out in invariant order"
        seen.update(expected)
        seen["legal"] += not expected

    agree()
    # The generator must exercise every invariant, and legal calls too.
    for invariant in [f"V{i}" for i in range(1, 11)] + ["legal"]:
        assert seen[invariant] > 0, (invariant, seen)
