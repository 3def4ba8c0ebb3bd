"""A dynamic dimension compiles once: fusion runs once, each new length only specialises."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from lumir.backend import LumirFallbackWarning, stats


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 16)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(x)))


@torch.no_grad()
def test_marked_dynamic_dimension_fuses_once_and_caches_by_length():
    torch._dynamo.reset()
    stats.reset()
    model = Block()
    compiled = torch.compile(model, backend="lumir", options={"cache_size": 2})
    for length in (3, 5, 7, 3):
        x = torch.randn(1, length, 16)
        torch._dynamo.mark_dynamic(x, 1)
        torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    (graph,) = stats.GRAPHS
    (partition,) = graph.partitions
    assert partition.fuse_runs == 1
    # 3 was evicted by 7 (cache_size 2), so it is specialised again: four in all
    assert partition.specialisations == 4
    assert partition.fused["fused_act"] == 1 and partition.fused["fused_beta"] == 1


@torch.no_grad()
def test_a_length_that_fails_to_specialise_runs_in_eager(monkeypatch):
    import warnings

    from lumir.backend import partition

    torch._dynamo.reset()
    stats.reset()
    model = Block()
    compiled = torch.compile(model, backend="lumir")
    first = torch.randn(1, 3, 16)
    torch._dynamo.mark_dynamic(first, 1)
    compiled(first)

    def broken(*_args):
        raise RuntimeError("lowering exploded")

    monkeypatch.setattr(partition, "lower", broken)
    x = torch.randn(1, 9, 16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compiled(x)
    torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)
    messages = [str(w.message) for w in caught if "lumir" in str(w.message)]
    assert len(messages) == 1 and "lowering exploded" in messages[0]


@torch.no_grad()
def test_dynamic_true_llama_attention_block_fuses_once():
    transformers = pytest.importorskip("transformers")
    torch._dynamo.reset()
    stats.reset()
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
    )
    model = transformers.LlamaForCausalLM(config).eval()
    compiled = torch.compile(model, backend="lumir", dynamic=True)
    for length in (3, 7, 12):
        ids = torch.randint(0, 64, (2, length), generator=torch.Generator().manual_seed(length))
        expected = model(ids, use_cache=False).logits
        got = compiled(ids, use_cache=False).logits
        assert (got - expected).abs().max().item() <= 1e-4
    partitions = [p for g in stats.GRAPHS for p in g.partitions]
    assert all(p.fuse_runs == 1 for p in partitions)
    assert all(p.specialisations == 3 for p in partitions)
    # the Python floats (eps, the rotary scaling) arrive as f64 inputs, imported as cast
    assert all(g.fallback_ops == [] for g in stats.GRAPHS)


def _normalize(x, eps, scale):
    return x / (x.abs().mean(-1, keepdim=True) + eps) * scale


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dynamic_true_python_floats_are_imported_and_round_as_the_graph_does(dtype):
    """dynamic=True lifts `eps` and `scale` into 0-d f64 graph inputs that the graph
    casts: lumir takes them already cast (no op in eager, no warning) and computes the
    bits the same graph gives in aot_eager, for every value, with one fusion."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(_normalize, backend="lumir", dynamic=True)
    reference = torch.compile(_normalize, backend="aot_eager", dynamic=True)
    for eps, scale in ((1e-6, 0.3), (0.1, 1.7), (2.5e-3, 0.123456789)):
        x = torch.randn(4, 8, generator=torch.Generator().manual_seed(1)).to(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error", LumirFallbackWarning)
            got = compiled(x, eps, scale)
        assert torch.equal(got, reference(x, eps, scale))
    (graph,) = stats.GRAPHS
    assert graph.fallback_ops == []
    assert [p.fuse_runs for p in graph.partitions] == [1]


@torch.no_grad()
def test_an_f64_input_cast_to_two_dtypes_stays_in_eager():
    """Casts of one f64 input to f32 and to bf16 would round differently from one
    imported dtype, so those casts run in eager, and the result is still eager's. They
    are host arithmetic on a 0-d CPU value (lumir.backend.compiler's host scalars): no
    fallback is named, and the partition reads both casts."""

    def two_casts(x, s):
        return x * s.float() + (x.bfloat16() * s.bfloat16()).float()

    torch._dynamo.reset()
    stats.reset()
    x, s = torch.randn(4, 8), torch.tensor(0.1, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        got = torch.compile(two_casts, backend="lumir")(x, s)
    assert torch.equal(got, two_casts(x, s))
    (graph,) = stats.GRAPHS
    assert graph.fallback_ops == []
    assert len(graph.partitions) == 1


@torch.no_grad()
def test_size_arithmetic_is_evaluated_not_run_in_eager():
    """Python's `sum` over sizes reaches the graph as `torch.sym_sum` (as a cache position
    does in a Hugging Face decode step): size arithmetic, evaluated, no fallback."""

    def scaled_rows(x, y, w):
        count = sum([x.shape[0], y.shape[0], x.shape[1]])
        rows = torch.arange(count, dtype=x.dtype)[: x.shape[0] + y.shape[0], None]
        return (torch.cat([x, y]) @ w) * rows

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(scaled_rows, backend="lumir", dynamic=True)
    for first, second in ((3, 4), (5, 2), (6, 6)):
        x, y, w = torch.randn(first, 8), torch.randn(second, 8), torch.randn(8, 3)
        torch.testing.assert_close(compiled(x, y, w), scaled_rows(x, y, w))
    assert stats.GRAPHS and all(graph.fallback_ops == [] for graph in stats.GRAPHS)
    assert all(len(graph.partitions) == 1 for graph in stats.GRAPHS)


_W = torch.randn(8, 8, generator=torch.Generator().manual_seed(3))
SIZE_DEPENDENT_SCALARS = {
    "product times length": lambda a: (a @ _W) * a.shape[0],
    "product over length": lambda a: (a @ _W) / a.shape[0],
    "product and residual times length": lambda a: ((a @ _W) + a) * a.shape[0],
    "addmm alpha and beta": lambda a: torch.addmm(
        a, a, _W, alpha=a.shape[0], beta=0.5 * a.shape[0]
    ),
    "attention scale": lambda a: torch.nn.functional.scaled_dot_product_attention(
        a[None, None], a[None, None], a[None, None], scale=1.0 / a.shape[0]
    ),
    "fill with a float of the length": lambda a: torch.full((a.shape[0], 8), a.shape[0] * 2.0) + a,
    "fill with a quotient of the length": lambda a: torch.full((a.shape[0], 8), a.shape[0] / 3) + a,
}


@torch.no_grad()
@pytest.mark.parametrize("dynamic", [None, True])
@pytest.mark.parametrize("name", sorted(SIZE_DEPENDENT_SCALARS))
def test_a_scalar_computed_from_a_length_is_read_at_every_length(name, dynamic):
    """A float that depends on a size may become a call's alpha or beta (cublaslt-fuse
    folds splat literals): a template fused at one length must not serve another with
    its old literal, and a fill or attention scale computed from a size is that size's.
    Without a flag (`dynamic=None`) Dynamo makes the length symbolic at the second one,
    so lengths 3 and later are the specialised ones."""
    function = SIZE_DEPENDENT_SCALARS[name]
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=dynamic)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for length in (2, 3, 4, 6):
            a = torch.randn(length, 8)
            torch.testing.assert_close(compiled(a), function(a), atol=1e-5, rtol=1e-5)


@torch.no_grad()
def test_a_float_of_a_length_that_eager_reads_is_handed_over_at_every_length():
    """A float computed from a size in lumir's partition and read by an op that runs in
    eager (a float64 fill) leaves the partition as a number: evaluated at each call's
    sizes, not the value it had when traced."""

    def f(a):
        return (a @ _W).sum() + torch.full((2,), a.shape[0] * 0.5, dtype=torch.float64)

    torch._dynamo.reset()
    compiled = torch.compile(f, backend="lumir", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LumirFallbackWarning)  # the float64 fill
        for length in (2, 3, 4, 6):
            a = torch.randn(length, 8)
            torch.testing.assert_close(compiled(a), f(a), atol=1e-5, rtol=1e-5)


@torch.no_grad()
def test_a_number_computed_in_eager_keeps_its_readers_in_eager_without_a_failure():
    """`round` of a float of a size to a decimal place (a float: torch's `RoundDecimal`)
    has no import rule, so it runs in eager; an op that reads a number computed from it
    (here a fill) cannot compute it from its partition's sizes and stays in eager with
    it, named in the fallback warning, instead of failing that partition at every call."""

    def fill(x):
        return torch.full((x.shape[0],), round(x.shape[0] ** 0.5, 1) * 0.5) + x[:, 0]

    torch._dynamo.reset()
    compiled = torch.compile(fill, backend="lumir", dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for length in (4, 9, 10):
            x = torch.randn(length, 3)
            torch.testing.assert_close(compiled(x), fill(x))
    messages = [str(w.message) for w in caught if str(w.message).startswith("lumir")]
    assert messages and not any("failed" in m for m in messages), messages
    assert any("a number computed by an op that runs in eager" in m for m in messages)


@pytest.mark.parametrize(
    "join",
    [
        lambda x: torch.cat([x, x]),
        lambda x: torch.cat([x, x[:1], x]),
        lambda x: torch.cat([x[::2], x[:1]]),
        lambda x: F.avg_pool1d(x.t()[None], 3, 2)[0].t(),
    ],
    ids=["2s", "2s+1", "(s+1)//2+1", "(s-3)//2+1"],
)
@torch.no_grad()
def test_a_partition_whose_inputs_only_have_sizes_derived_from_a_length_compiles(join):
    """After an eager op, the next partition may see the length only as `2 * s`,
    `2 * s + 1` or a window count: the length is solved from that size, per call,
    instead of the partition failing to compile (UnboundSymbolError) and running in
    eager."""
    w = torch.randn(4, 3)

    def program(x):
        return torch.lgamma(join(x)) @ w * 2 + 1  # lgamma has no import rule

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(program, backend="lumir")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for length in (5, 7, 9, 7):
            x = torch.rand(length, 4) + 0.5
            torch._dynamo.mark_dynamic(x, 0)
            torch.testing.assert_close(compiled(x), program(x))
    messages = [str(w.message) for w in caught if str(w.message).startswith("lumir")]
    assert not any("failed" in m for m in messages), messages
    after = stats.GRAPHS[0].partitions[-1]
    assert after.fuse_runs == 1 and after.fused["fused_alpha"] == 1
    assert after.specialisations == 3  # one per distinct length


@torch.no_grad()
def test_an_integer_computed_from_a_length_still_fuses_once():
    """Integer literals reach no call's alpha or beta (a decode step's `arange(n) + past`),
    so a graph with one compiles once for every length, as KV-cache decoding needs."""

    def positions(x, w):
        return (x @ w) * 2.0 + (torch.arange(x.shape[0]) + x.shape[0])[:, None]

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(positions, backend="lumir", dynamic=True)
    w = torch.randn(8, 4)
    for length in (3, 5, 7):
        x = torch.randn(length, 8)
        torch.testing.assert_close(compiled(x, w), positions(x, w))
    (graph,) = stats.GRAPHS
    (partition,) = graph.partitions
    assert partition.fuse_runs == 1 and partition.fused["fused_alpha"] == 1


DIVIDED_BY_A_LENGTH = {
    "group norm over the length": lambda x: (
        torch.nn.functional.group_norm(x.t()[None], 4)[0].t() @ _W
    ),
    "sum over the length": lambda x: (x.sum(0, keepdim=True) / x.shape[0] + x) @ _W,
    "positions times a float of the length": lambda x: (
        (x + (torch.arange(x.shape[0]) * (4 / x.shape[0]))[:, None]) @ _W
    ),
}


@torch.no_grad()
@pytest.mark.parametrize("name", sorted(DIVIDED_BY_A_LENGTH))
def test_a_divisor_computed_from_a_length_still_fuses_once(name):
    """A float literal that only a division reads (a GroupNorm's count of elements, as
    in wav2vec 2.0's feature extractor over a dynamic audio length), or that scales
    values no product feeds (a ViT's interpolated positions, `arange(n) * (4 / n)`), is
    no call's alpha: one fusion serves every length (it fused once per length), with
    each length's literal."""
    function = DIVIDED_BY_A_LENGTH[name]
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=True)
    for length in (5, 7, 9):
        x = torch.randn(length, 8)
        torch.testing.assert_close(compiled(x), function(x), atol=1e-5, rtol=1e-5)
    (graph,) = stats.GRAPHS
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, 3)]


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_layer_norm_over_a_dynamic_width_divides_by_its_float(dtype):
    """A LayerNorm whose width is dynamic divides its sum by `torch.sym_float(width)`:
    the float of a size, read as a scalar of this specialisation (no fallback), and in
    bf16 exactly as eager reads it, also at widths bf16 cannot hold (257)."""

    def norm(x):
        return torch.nn.functional.layer_norm(x, x.shape[-1:])

    torch._dynamo.reset()
    stats.reset()
    torch.manual_seed(0)
    compiled = torch.compile(norm, backend="lumir", dynamic=True)
    for width in (8, 257, 300):
        x = torch.randn(64, width, dtype=dtype)
        got, expected = compiled(x), norm(x)
        if dtype == torch.float32:
            torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)
            continue
        # The sums run in another order than ATen's, so an element may round the other
        # way (about one in a thousand); a divisor read in bf16 (257 -> 256) would move
        # every element by 0.2%, and round most of them differently.
        step = torch.finfo(dtype).eps * expected.float().abs().clamp_min(1.0)
        assert ((got.float() - expected.float()).abs() <= step).all()
        assert (got != expected).float().mean() < 0.01
    assert stats.GRAPHS and all(graph.fallback_ops == [] for graph in stats.GRAPHS)


@torch.no_grad()
@pytest.mark.parametrize("dynamic", [False, True])
def test_bf16_mul_and_div_by_a_count_bf16_cannot_hold_match_eager_bit_for_bit(dynamic):
    """ATen's mul and div read an int scalar, or a size, at its own precision: 257 is
    not rounded to bf16's 256 first."""

    def scale(x):
        return x * 257 / x.shape[-1] + x / 4097

    torch._dynamo.reset()
    compiled = torch.compile(scale, backend="lumir", dynamic=dynamic)
    x = torch.randn(4, 257, dtype=torch.bfloat16)
    assert torch.equal(compiled(x), scale(x))


@torch.no_grad()
def test_a_patch_embedding_with_dynamic_batch_and_height_fuses_once():
    """The patch convolution's decomposition reads sizes (`sym_numel` of a reshape to
    -1, a height cut to whole patches): size arithmetic, evaluated, no fallback."""
    torch._dynamo.reset()
    stats.reset()
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 16, 4, stride=4).eval()
    compiled = torch.compile(conv, backend="lumir")
    for batch, height in ((2, 16), (3, 20), (1, 18), (4, 32)):
        x = torch.randn(batch, 3, height, 16)
        torch._dynamo.mark_dynamic(x, 0)
        torch._dynamo.mark_dynamic(x, 2)
        torch.testing.assert_close(compiled(x), conv(x), atol=1e-5, rtol=1e-5)
    assert stats.GRAPHS and all(graph.fallback_ops == [] for graph in stats.GRAPHS)
    assert all(p.fuse_runs == 1 for graph in stats.GRAPHS for p in graph.partitions)


@torch.no_grad()
def test_a_restride_with_a_dynamic_size_compiles_once_and_a_gather_falls_back():
    """torch's decompositions restride results with `as_strided`; along a dynamic length
    its sizes are symbolic. One that provably reads its input in order is a reshape in
    every specialisation; any other stays in eager, with the warning."""

    def restride(t):
        u = t + 1
        rows, columns = u.shape[0], u.shape[1] * u.shape[2]
        return torch.as_strided(u, (rows, columns), (columns, 1)) * 2

    def overlapping(t):
        u = t + 1
        return torch.as_strided(u, (u.shape[0], 2), (1, 1))

    for fn, fallback in ((restride, []), (overlapping, ["aten.as_strided.default"])):
        torch._dynamo.reset()
        stats.reset()
        compiled = torch.compile(fn, backend="lumir")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for rows in (4, 5, 7):
                x = torch.randn(rows, 3, 5)
                if rows == 4:
                    torch._dynamo.mark_dynamic(x, 0)
                torch.testing.assert_close(compiled(x), fn(x))
        warned = [w for w in caught if issubclass(w.category, LumirFallbackWarning)]
        assert len(warned) == len(fallback)  # one warning per graph that falls back
        assert all("aten.as_strided.default" in str(w.message) for w in warned)
        (graph,) = stats.GRAPHS
        assert graph.fallback_ops == fallback
        assert [p.fuse_runs for p in graph.partitions] == [1]


class _Counter:
    def __init__(self) -> None:
        self.steps = 0


@torch.no_grad()
def test_a_counter_only_the_graph_returns_does_not_specialise_the_partition():
    """A sliding-window StaticCache counts its tokens in a Python int
    (`cumulative_length_int += 1`): Dynamo makes it a size input and returns the new
    value. No op lumir takes reads it, so the addition stays in eager and the decode
    step's partition compiles once, not once per step (Mistral's, Gemma 2's)."""
    linear = torch.nn.Linear(8, 8)

    def step(x, counter):
        counter.steps += 1
        return torch.relu(linear(x))

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(step, backend="lumir")
    counter, x = _Counter(), torch.randn(2, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for _ in range(6):
            torch.testing.assert_close(compiled(x, counter), torch.relu(linear(x)))
    assert counter.steps == 6
    partitions = [p for graph in stats.GRAPHS for p in graph.partitions]
    assert all(p.specialisations == 1 for p in partitions)
    assert all(graph.fallback_ops == [] for graph in stats.GRAPHS)


@torch.no_grad()
def test_a_scaled_projection_split_into_heads_fuses_once():
    """Whisper's query, `q_proj(x) * scaling` viewed as heads: cublaslt-fuse takes the
    bias into the call and moves the scale ahead of the reshape, as an op of its own
    (no name of the prepared module). A new length gives it the broadcast of its
    operands' new shapes; before, each length fused again."""
    torch.manual_seed(0)
    projection = torch.nn.Linear(16, 16)

    def query(x):
        return (projection(x) * 0.25).view(x.shape[0], x.shape[1], 4, 4).transpose(1, 2)

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(query, backend="lumir", dynamic=True)
    for length in (3, 5, 7):
        x = torch.randn(2, length, 16)
        torch.testing.assert_close(compiled(x), query(x))
    (graph,) = stats.GRAPHS
    (partition,) = graph.partitions
    assert partition.fused["fused_bias"] == 1
    assert partition.specialisations == 3
    assert partition.fuse_runs == 1


def _matches_eager_without_fallback(function, lengths) -> None:
    """Compile `function` with `dynamic=True` and check it against eager at each length of
    a [2, length, 8] input, any `LumirFallbackWarning` an error."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(function, backend="lumir", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        for length in lengths:
            x = torch.randn(2, length, 8)
            torch.testing.assert_close(compiled(x), function(x))


@torch.no_grad()
def test_a_stride_read_under_dynamic_shapes_is_size_arithmetic():
    """Longformer reads `hidden_states.stride()` of a padded tensor to chunk it: under
    `dynamic=True` aot_autograd traces `aten.sym_stride.int`, returned here for the graph
    after the break, or read by an op in the partition. It is size arithmetic like
    `sym_size`: no fallback op (before, the warning named it, "no import rule"), and the
    value is eager's at every length, fused once."""
    torch.manual_seed(0)
    weight = torch.randn(8, 8)

    def chunked(x):
        padded = F.pad(x @ weight, (0, 0, 1, 1))
        strides = padded.stride()
        torch._dynamo.graph_break()
        return padded * strides[0]

    _matches_eager_without_fallback(chunked, (6, 10))
    assert stats.GRAPHS and all(graph.fallback_ops == [] for graph in stats.GRAPHS)
    assert all(p.fuse_runs == 1 for graph in stats.GRAPHS for p in graph.partitions)

    def read_in_the_partition(x):
        padded = F.pad(x @ weight, (0, 0, 1, 1))
        strides = padded.stride()
        return padded.reshape(-1)[: strides[0]] + torch.arange(strides[0])

    _matches_eager_without_fallback(read_in_the_partition, (6, 10, 7))
    (graph,) = stats.GRAPHS
    assert [(p.fuse_runs, p.specialisations) for p in graph.partitions] == [(1, 3)]
