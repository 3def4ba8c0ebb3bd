"""hl.arange, cumsum, index, index_copy, pad, cos, sin, bitwise_and: imported from ATen and
run by the compiled CPU program exactly as torch computes them."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from lumir.backend import LumirFallbackWarning, stats
from lumir.testing.devices import CPU_AND_CUDA


def _compiled(fn, *inputs):
    torch._dynamo.reset()
    stats.reset()
    got = torch.compile(fn, backend="lumir", options={"report": False})(*inputs)
    (graph,) = stats.GRAPHS
    assert not graph.fallback_ops and len(graph.partitions) == 1, graph
    return got


def _rotary_and_mask(x: torch.Tensor, m: torch.Tensor) -> tuple[torch.Tensor, ...]:
    positions = torch.arange(x.shape[0]).cumsum(-1)
    rows = torch.arange(x.shape[0] - 1, -1, -1).unsqueeze(1)  # reversed, step -1
    table = x[rows, torch.arange(2, 8, 2).unsqueeze(0)]
    mask = (m > 0) & (torch.arange(m.shape[1]) <= 3)
    padded = F.pad(x, (1, -2), value=-1.5)
    return torch.cos(table) + torch.sin(table), mask, padded, positions


@torch.no_grad()
def test_generators_and_gathers_compute_what_torch_computes():
    x, m = torch.randn(5, 9), torch.randn(3, 6)
    got = _compiled(_rotary_and_mask, x, m)
    for actual, expected in zip(got, _rotary_and_mask(x, m), strict=True):
        assert actual.dtype == expected.dtype
        torch.testing.assert_close(actual, expected, atol=0, rtol=0)


@torch.no_grad()
def test_boolean_mask_index_stays_in_eager():
    torch._dynamo.reset()
    stats.reset()
    x = torch.randn(4, 3)
    fn = torch.compile(lambda t, i: t[i] * 2, backend="lumir")
    index = torch.tensor([True, False, True, True])
    torch.testing.assert_close(fn(x, index), x[index] * 2)


class _KVCache(torch.nn.Module):
    """A StaticCache's update: index_copy_ into a buffer at the step's positions."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, 2, 8, 4))

    def forward(self, new: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        self.keys.index_copy_(2, positions, new)
        return self.keys.sum(-1) * 2


@torch.no_grad()
def test_kv_cache_index_copy_runs_in_lumir_and_mutates_the_cache():
    eager, compiled_module = _KVCache(), _KVCache()
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(compiled_module, backend="lumir")
    for start, length in ((0, 3), (3, 1), (4, 1)):
        new = torch.randn(1, 2, length, 4)
        positions = torch.arange(start, start + length)
        want = eager(new, positions)
        got = compiled(new, positions)
        torch.testing.assert_close(got, want, atol=0, rtol=0)
        torch.testing.assert_close(compiled_module.keys, eager.keys, atol=0, rtol=0)
    assert stats.GRAPHS and all(not g.fallback_ops for g in stats.GRAPHS), stats.GRAPHS


class _ReadsOldCache(torch.nn.Module):
    """Reads the cache before updating it (a cumsum, its own launch before the update):
    writing in place is safe, the read comes first."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.arange(64.0).reshape(1, 2, 8, 4))

    def forward(self, new: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        before = self.keys.cumsum(2)
        self.keys.index_copy_(2, positions, new)
        return before - self.keys


class _ReadsOldCacheLater(torch.nn.Module):
    """Reads the old cache in a fused kernel that fuse-kernels places after the update
    (where its last op is): the update must not be written in place."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.arange(64.0).reshape(1, 2, 8, 4))

    def forward(self, new: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        doubled = self.keys * 2.0
        self.keys.index_copy_(2, positions, new)
        return (doubled + 1.0) - self.keys


@torch.no_grad()
@pytest.mark.parametrize(
    ("module_class", "in_place"), [(_KVCache, 1), (_ReadsOldCache, 1), (_ReadsOldCacheLater, 0)]
)
def test_cache_updates_are_written_in_place_only_when_nothing_reads_the_old_value(
    module_class, in_place
):
    eager, compiled_module = module_class(), module_class()
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(compiled_module, backend="lumir")
    address = compiled_module.keys.data_ptr()
    for start in (0, 1, 5):
        new = torch.randn(1, 2, 2, 4)
        positions = torch.tensor([start, start + 2])
        torch.testing.assert_close(compiled(new, positions), eager(new, positions), atol=0, rtol=0)
        torch.testing.assert_close(compiled_module.keys, eager.keys, atol=0, rtol=0)
    assert compiled_module.keys.data_ptr() == address
    (graph,) = stats.GRAPHS
    (partition,) = graph.partitions
    assert partition.bound_inputs >= 1
    assert partition.in_place_updates == in_place


class _SlidingWindowCache(torch.nn.Module):
    """A full sliding-window cache's step (Hugging Face's Mistral and Gemma 2 static
    caches): roll left by one, write the newest position through a tensor index
    (`new[:, :, tensor([-1])] = key`, an `aten.index_put` with broadcast values),
    copy back in place."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer(
            "keys", torch.randn(1, 2, 5, 4, generator=torch.Generator().manual_seed(0))
        )

    def forward(self, key: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        rolled = self.keys.roll(-1, dims=-2)
        rolled[:, :, index] = key
        self.keys.copy_(rolled)
        return self.keys * 2


@pytest.mark.parametrize("device", CPU_AND_CUDA)
@pytest.mark.parametrize("position", [-1, 2, -5, 0], ids=["-1", "2", "-5", "0"])
@torch.no_grad()
def test_a_tensor_indexed_write_of_one_dimension_runs_in_lumir(position, device):
    eager, compiled_module = _SlidingWindowCache().to(device), _SlidingWindowCache().to(device)
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(compiled_module, backend="lumir", options={"device": device})
    index = torch.tensor([position], device=device)
    for _ in range(3):
        key = torch.randn(1, 2, 1, 4, device=device)
        torch.testing.assert_close(compiled(key, index), eager(key, index), atol=0, rtol=0)
        torch.testing.assert_close(compiled_module.keys, eager.keys, atol=0, rtol=0)
    assert stats.GRAPHS and all(not g.fallback_ops for g in stats.GRAPHS), stats.GRAPHS


@pytest.mark.parametrize(
    "write",
    [
        lambda x, i, v: x.index_put((i,), v, accumulate=True),
        lambda x, i, v: x.index_put((i, i), v[:, 0], accumulate=True),
        lambda x, i, v: x.index_put((i * 0, i * 0), v[:, 0], accumulate=True),
        lambda x, i, v: x.index_put((torch.arange(4) % 2 == 0,), v),
        lambda x, i, v: x.index_put((torch.arange(4) % 2 == 0, i[:1]), v[:, 0]),
    ],
    ids=[
        "accumulate",
        "two-indices-accumulate",
        "two-indices-accumulate-duplicates",
        "mask-with-a-row-per-selected-element",
        "mask-and-an-integer-index",
    ],
)
@torch.no_grad()
def test_other_index_puts_stay_in_eager_and_match(write):
    torch._dynamo.reset()
    stats.reset()
    x, v, i = torch.randn(4, 3), torch.randn(2, 3), torch.tensor([1, 2])
    compiled = torch.compile(lambda x, i, v: write(x, i, v) * 2, backend="lumir")
    torch.testing.assert_close(compiled(x, i, v), write(x, i, v) * 2)
    assert any("aten.index_put" in op for g in stats.GRAPHS for op in g.fallback_ops)


def _put(key):
    """`y[key] = v` on a copy of x doubled (a setitem, as models write it), then + 1."""

    def write(x, i, j, v):
        y = x * 2
        y[key(i, j)] = v
        return y + 1

    return write


INDEXED_WRITES = {
    "two indices, 0-d value (wav2vec 2.0's last frame per row)": (
        _put(lambda i, j: (i, j)),
        lambda v: v[0, 0],
    ),
    "two indices, a value per tuple and column": (_put(lambda i, j: (i, j)), lambda v: v[:3]),
    "two indices, a row broadcast": (_put(lambda i, j: (i, j)), lambda v: v[0]),
    "two indices broadcast against each other": (
        _put(lambda i, j: (i[:, None], j[None, :])),
        lambda v: v[:3].reshape(3, 1, 6),
    ),
    "two indices after a whole dimension": (
        _put(lambda i, j: (slice(None), i % 5, j)),
        lambda v: v[:4, :3],
    ),
    "three indices": (_put(lambda i, j: (i, j, j)), lambda v: v[0, :3]),
    "int32 indices": (_put(lambda i, j: (i.int(), j.int())), lambda v: v[0, 0]),
    "one two-dimensional index": (
        _put(lambda i, j: (i.reshape(3, 1).expand(3, 2),)),
        lambda v: v[0],
    ),
}


@pytest.mark.parametrize("device", CPU_AND_CUDA)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
@pytest.mark.parametrize("name", sorted(INDEXED_WRITES))
@torch.no_grad()
def test_a_write_through_several_index_tensors_is_an_index_copy(name, dtype, layout, device):
    """`x[i, j] = v` with integer index tensors of adjacent dimensions (an index_put of
    several indices; negative ones counted from the end, indices broadcast together,
    values broadcast to the slots) is an `hl.index_copy` along those dimensions
    flattened: one partition without a fallback, eager's values, dtype and strides."""
    write, pick = INDEXED_WRITES[name]
    generator = torch.Generator().manual_seed(0)
    x = (torch.randn(4, 5, 6, generator=generator) * 100).to(dtype).to(device)
    if layout == "transposed":
        x = x.transpose(0, 2).contiguous().transpose(0, 2)
    i = torch.tensor([0, -1, 2], device=device)
    j = torch.tensor([4, 1, -3], device=device)
    values = pick((torch.randn(8, 6, generator=generator) * 100).to(dtype).to(device))
    got = _compiled(write, x, i, j, values)
    want = write(x, i, j, values)
    assert (got.shape, got.stride(), got.dtype) == (want.shape, want.stride(), want.dtype)
    assert torch.equal(got, want)


@torch.no_grad()
def test_a_write_through_an_index_tuple_out_of_range_raises_as_eager_does():
    """(0, 5) in a (4, 5, 6) tensor is out of range although its row-major position,
    5, is (1, 0)'s: the compiled write must refuse it as eager does, not write there."""
    write = _put(lambda i, j: (i, j))
    x, value = torch.randn(4, 5, 6), torch.tensor(1.0)
    compiled = torch.compile(write, backend="lumir", options={"report": False})
    torch._dynamo.reset()
    inside = torch.tensor([1]), torch.tensor([0])
    torch.testing.assert_close(compiled(x, *inside, value), write(x, *inside, value))
    for row, column in ((0, 5), (3, -6), (4, 0), (-5, 0)):
        with pytest.raises(IndexError):
            compiled(x, torch.tensor([row]), torch.tensor([column]), value)


@torch.no_grad()
def test_wav2vec2_feature_vector_attention_mask_compiles_under_dynamic_lengths():
    """Wav2Vec2Model._get_feature_vector_attention_mask: one 1 per row at its last
    frame (`mask[(arange(b), lengths - 1)] = 1`), then a reversed cumsum; under
    `dynamic=True` at several batch sizes and lengths: one partition, no fallback."""

    def feature_mask(lengths, frames):
        mask = torch.zeros((lengths.shape[0], frames.shape[0]), dtype=torch.long)
        mask[(torch.arange(mask.shape[0]), lengths - 1)] = 1
        return mask.flip([-1]).cumsum(-1).flip([-1]).bool()

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(feature_mask, backend="lumir", dynamic=True, options={"report": False})
    generator = torch.Generator().manual_seed(0)
    for batch, length in ((3, 9), (4, 12), (2, 7)):
        lengths = torch.randint(1, length + 1, (batch,), generator=generator)
        frames = torch.empty(length)
        assert torch.equal(compiled(lengths, frames), feature_mask(lengths, frames))
    assert stats.GRAPHS
    assert all(not g.fallback_ops and len(g.partitions) == 1 for g in stats.GRAPHS), stats.GRAPHS


_BF = torch.tensor([[True, False, True], [False, False, True], [True, True, True], [False] * 3])
MASKED_WRITES = {
    "full mask, 0-d zero (wav2vec 2.0's padded frames)": (
        lambda x, m, v: x.index_put((~m,), torch.tensor(0.0, dtype=x.dtype)),
        (4, 3),
    ),
    "full mask, one-element value": (lambda x, m, v: x.index_put((m,), v[0, :1]), (4, 3)),
    "leading mask, 0-d value": (lambda x, m, v: x.index_put((m,), v[0, 0]), (4, 3, 5)),
    "leading mask, a row of values": (lambda x, m, v: x.index_put((m,), v[0, :5]), (4, 3, 5)),
    "leading mask, a 1 x row of values": (
        lambda x, m, v: x.index_put((m,), v[0, :5].reshape(1, 5)),
        (4, 3, 5),
    ),
    "one-dimensional mask of rows": (lambda x, m, v: x.index_put((m[:, 0],), v[0, :5]), (4, 5)),
    "full mask, accumulate": (
        lambda x, m, v: x.index_put((m,), v[0, 0], accumulate=True),
        (4, 3),
    ),
    "leading mask, accumulate a row": (
        lambda x, m, v: x.index_put((m,), v[0, :5], accumulate=True),
        (4, 3, 5),
    ),
}


@pytest.mark.parametrize("device", CPU_AND_CUDA)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
@pytest.mark.parametrize("name", sorted(MASKED_WRITES))
@torch.no_grad()
def test_a_boolean_mask_write_of_one_value_is_a_where(name, dtype, layout, device):
    """`x[mask] = v` with a boolean mask of x's leading dimensions writes the same value
    (a 0-d tensor, or values that broadcast to one selected slice) at every selected
    position: `where(mask, v, x)`, no data-dependent shape, in one partition without a
    fallback; `accumulate` adds it once to each selected element. Eager's values, dtype
    and strides (a transposed x keeps its layout)."""
    write, shape = MASKED_WRITES[name]
    generator = torch.Generator().manual_seed(0)
    x = (torch.randn(shape, generator=generator) * 100).to(dtype).to(device)
    if layout == "transposed":
        x = x.transpose(0, 1).contiguous().transpose(0, 1)
    mask = _BF[:, : shape[1]].to(device)
    values = (torch.randn(8, 8, generator=generator) * 100).to(dtype).to(device)

    def f(a, m, v):
        return write(a * 2, m, v) + 1

    got = _compiled(f, x, mask, values)
    want = f(x, mask, values)
    assert (got.shape, got.stride(), got.dtype) == (want.shape, want.stride(), want.dtype)
    assert torch.equal(got, want)


@torch.no_grad()
def test_a_padded_frame_mask_written_in_place_compiles_under_dynamic_lengths():
    """wav2vec 2.0's `hidden_states[~mask] = 0` between two products, at several lengths
    with `dynamic=True`: one partition, no fallback, eager's values."""
    w = torch.randn(8, 8, generator=torch.Generator().manual_seed(1))

    def f(x, m):
        h = x @ w
        h[~m] = 0
        return h @ w

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(f, backend="lumir", dynamic=True, options={"report": False})
    for length in (5, 6, 9):
        x = torch.randn(length, 8)
        m = torch.ones(length, 8, dtype=torch.bool)
        m[length - 2 :] = False
        torch.testing.assert_close(compiled(x, m), f(x, m))
    assert stats.GRAPHS
    assert all(not g.fallback_ops and len(g.partitions) == 1 for g in stats.GRAPHS), stats.GRAPHS


def _marked(x_shape, mask_shape, generator):
    """An x and an integer mask of these shapes, every dimension marked dynamic (so each
    is a symbol of its own)."""
    x = torch.randn(x_shape, generator=generator)
    mask = torch.randint(0, 3, mask_shape, generator=generator)
    for tensor in (x, mask):
        torch._dynamo.mark_dynamic(tensor, 0)
        torch._dynamo.mark_dynamic(tensor, 1)
    return x, mask


def _lumir_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]


@torch.no_grad()
def test_a_mask_of_another_batch_symbol_is_imported_only_where_a_guard_ties_them():
    """Longformer's `ext[mask == 2] = max` where the mask's batch is another symbol than
    ext's: where the graph guards them equal (a later broadcast of the two), torch's
    shape env replaces one by the other and the write is imported (one partition); where
    nothing does, they are equal only at the calls so far, a later call of the same
    graph may differ (eager raises there), so the write stays in eager, named with that
    reason."""

    def tied(x, mask):
        x = x * 1.0
        x[mask == 2] = 5.0
        return x + mask

    def untied(x, mask):
        x = x * 1.0
        x[mask == 2] = 5.0
        return x

    generator = torch.Generator().manual_seed(3)
    for f in (tied, untied):
        torch._dynamo.reset()
        stats.reset()
        compiled = torch.compile(f, backend="lumir", options={"report": False})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for shape in ((2, 6), (3, 9)):
                x, mask = _marked(shape, shape, generator)
                assert torch.equal(compiled(x, mask), f(x, mask))
        if f is tied:
            assert _lumir_warnings(caught) == []
            assert [len(g.partitions) for g in stats.GRAPHS] == [1]
    (message,) = _lumir_warnings(caught)
    assert "aten.index_put.default: a boolean mask of size" in message
    assert "equal only at the traced call" in message
    x, mask = _marked((2, 6), (3, 6), generator)
    with pytest.raises(IndexError):
        untied(x, mask)
    with pytest.raises(IndexError):
        compiled(x, mask)
    assert len(stats.GRAPHS) == 1  # the same graph, not a recompile
