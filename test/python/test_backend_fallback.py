"""Whatever lumir cannot do runs in eager: unsupported ops, whole graphs, lumir failures."""

from __future__ import annotations

import copy
import warnings

import pytest
import torch

import lumir.backend
from lumir.backend import LumirFallbackWarning, calls, stats
from lumir.backend.partition import LumirRuntimeFallbackWarning
from lumir.frontend import table


class LgammaBetweenLinears(torch.nn.Module):
    """A model with an op lumir lacks (lgamma) between two matmuls."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = torch.nn.Linear(16, 16)
        self.second = torch.nn.Linear(16, 8)

    def forward(self, x):
        return self.second(torch.lgamma(self.first(x)))


def _compile_and_run(model, *inputs, **options):
    torch._dynamo.reset()
    stats.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(model, backend="lumir", options=options or None)(*inputs)
    fallbacks = [w for w in caught if issubclass(w.category, LumirFallbackWarning)]
    return got, fallbacks


@torch.no_grad()
def test_unsupported_op_runs_in_eager_with_one_warning():
    model, x = LgammaBetweenLinears(), torch.randn(4, 16)
    got, fallbacks = _compile_and_run(model, x)
    torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)
    assert len(fallbacks) == 1
    assert "(aten.lgamma.default: no import rule)" in str(fallbacks[0].message)
    assert len(stats.GRAPHS[0].partitions) == 2  # both linears still compiled


@torch.no_grad()
def test_the_warning_groups_the_ops_by_why_they_run_in_eager():
    """A user learns from the warning what to change: the dtype, or the op."""
    a, w = torch.randn(5, 8, dtype=torch.float64), torch.randn(8, 4, dtype=torch.float64)
    got, fallbacks = _compile_and_run(lambda a, w: torch.relu(a @ w + 1), a, w)
    torch.testing.assert_close(got, torch.relu(a @ w + 1))
    (message,) = [str(f.message) for f in fallbacks]
    assert "3 op(s) run in eager (aten.add.Tensor, aten.mm.default, aten.relu.default: " in message
    assert "dtype torch.float64 is not imported (lumir imports float32, " in message

    x = torch.randn(4, 16)
    got, fallbacks = _compile_and_run(lambda x: torch.lgamma(x.topk(3).values @ x[:3]), x)
    (message,) = [str(f.message) for f in fallbacks]
    assert "aten.lgamma.default, aten.topk.default: no import rule; getitem: " in message

    i = torch.randint(0, 5, (5, 8))
    _, fallbacks = _compile_and_run(lambda a, b: a @ b, i, i.t())
    (message,) = [str(f.message) for f in fallbacks]
    assert "aten.mm.default: a torch.int64 matrix product has no cuBLASLt lowering" in message
    assert "(expected float32, float16, bfloat16)" in message


@torch.no_grad()
def test_graph_without_supported_ops_runs_entirely_in_eager():
    x = torch.rand(5) + 0.5
    got, fallbacks = _compile_and_run(lambda t: torch.digamma(torch.lgamma(t)), x)
    torch.testing.assert_close(got, torch.digamma(torch.lgamma(x)))
    assert len(fallbacks) == 1
    assert "runs entirely in eager" in str(fallbacks[0].message)


@torch.no_grad()
def test_claimed_op_that_fails_to_compile_falls_back_with_the_reason(monkeypatch):
    def broken(cx, node):
        raise RuntimeError("converter exploded")

    for product in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        monkeypatch.setitem(table.TABLE, product, table.Row(broken))
    model, x = LgammaBetweenLinears(), torch.randn(4, 16)
    got, fallbacks = _compile_and_run(model, x)
    torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)
    assert len(fallbacks) == 1
    message = str(fallbacks[0].message)
    assert "failed to compile and runs in eager (RuntimeError: converter exploded)" in message
    assert stats.GRAPHS[0].failures


@torch.no_grad()
def test_device_that_cannot_run_falls_back_at_load(monkeypatch):
    """A device the options accept but the runtime cannot use (here a CUDA device count
    faked on a machine without one) fails at load: the call runs in eager and warns."""
    if torch.cuda.is_available():
        pytest.skip("needs a machine without CUDA")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    model, x = LgammaBetweenLinears(), torch.randn(4, 16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch._dynamo.reset()
        got = torch.compile(model, backend="lumir", options={"device": "cuda"})(x)
    torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)
    assert any("DeviceUnavailableError" in str(w.message) for w in caught)


def test_backend_is_registered_by_import():
    assert "lumir" in torch._dynamo.list_backends(exclude_tags=())
    assert lumir.backend.lumir_backend is not None


class VectorProducts(torch.nn.Module):
    """Matrix-vector products: a linear layer on a 1-D input (aten.mv after aot_autograd),
    torch.addmv with its scalars, and a dot product."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(16, 8)
        self.matrix = torch.nn.Parameter(torch.randn(8, 8))
        self.offset = torch.nn.Parameter(torch.randn(8))

    def forward(self, x):
        h = torch.relu(self.linear(x))
        h = torch.addmv(self.offset, self.matrix, h, beta=0.5, alpha=2.0)
        return h, torch.dot(h, h)


@torch.no_grad()
def test_vector_products_are_lumirs_not_eager():
    model, x = VectorProducts(), torch.randn(16)
    got, fallbacks = _compile_and_run(model, x)
    for out, want in zip(got, model(x), strict=True):
        torch.testing.assert_close(out, want, atol=1e-4, rtol=1e-5)
    assert fallbacks == []
    (graph,) = stats.GRAPHS
    assert sum(p.fused["matmuls"] for p in graph.partitions) == 3


class ZeroedBiasThird(torch.nn.Module):
    """Swin V2's attention: the k third of a cloned qkv bias is zeroed in place, which
    functionalization hands over as `aten.zero` of the slice and a `slice_scatter`."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.qkv = torch.nn.Linear(8, 24)

    def forward(self, x):
        bias = self.qkv.bias.clone()
        bias[8:16].zero_()
        return torch.nn.functional.linear(x, self.qkv.weight, bias)


@torch.no_grad()
def test_zeroing_a_slice_in_place_is_lumirs_not_eager():
    model, x = ZeroedBiasThird(), torch.randn(2, 8)
    model.qkv.bias[8:16].fill_(float("nan"))  # zeroed whatever it held, NaN included
    got, fallbacks = _compile_and_run(model, x)
    torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)
    assert not got.isnan().any()
    assert fallbacks == []
    (graph,) = stats.GRAPHS
    assert len(graph.partitions) == 1


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_instance_norm_is_lumirs_not_eager(dtype):
    """Instance norm (RAFT's encoders) is a batch norm without running statistics,
    `_native_batch_norm_legit.no_stats`: statistics per sample and channel."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.InstanceNorm2d(8, affine=True),
        torch.nn.ReLU(),
        torch.nn.Conv2d(8, 4, 1),
    ).to(dtype)
    torch.nn.init.normal_(model[1].weight)
    x = torch.randn(2, 3, 8, 8, dtype=dtype)
    got, fallbacks = _compile_and_run(model, x)
    want = model(x)
    tolerance = 1e-5 if dtype == torch.float32 else 2e-2  # bf16: a rounding or two
    torch.testing.assert_close(got, want, atol=tolerance, rtol=tolerance)
    assert fallbacks == []
    (graph,) = stats.GRAPHS
    assert len(graph.partitions) == 1


@torch.no_grad()
def test_a_graph_that_fails_to_trace_with_lumirs_decompositions_runs_in_eager(monkeypatch):
    """aot_autograd traces the graph with lumir's decompositions before lumir sees it;
    a decomposition that fails there (as torch's batch-norm one did, mutating in a
    functional graph) must cost one warning, not the model."""
    from lumir.backend import compiler

    def exploding(x):
        raise RuntimeError("decomposition exploded")

    monkeypatch.setattr(
        compiler, "lumir_decompositions", lambda: {torch.ops.aten.relu.default: exploding}
    )
    model, x = LgammaBetweenLinears(), torch.randn(4, 16)
    got, fallbacks = _compile_and_run(lambda t: torch.relu(model.first(t)) * 2, x)
    torch.testing.assert_close(got, torch.relu(model.first(x)) * 2)
    assert len(fallbacks) == 1
    message = str(fallbacks[0].message)
    assert "decomposition exploded" in message and "runs entirely in eager" in message


@torch.no_grad()
def test_a_view_that_an_eager_as_strided_reads_through_stays_in_eager():
    """`as_strided` of a view addresses the view's storage (from its offset), which a
    partition's contiguous result does not have: the view must be eager's own, or the
    result is silently wrong (it was, by 3.5 here, and by 1e-3 in Longformer)."""

    def shifted_windows(x):
        view = (x + 1)[:, 1:]
        return torch.as_strided(view, (3, 4), (1, 3)) * 2

    x = torch.randn(4, 5)
    got, fallbacks = _compile_and_run(shifted_windows, x)
    assert torch.equal(got, shifted_windows(x))
    assert len(fallbacks) == 1
    message = str(fallbacks[0].message)
    assert "aten.as_strided.default in eager reads its storage" in message
    assert len(stats.GRAPHS[0].partitions) == 2  # the add, and the scaling after it


@pytest.mark.parametrize(
    "pick",
    [
        lambda x: (x + 1).chunk(2, dim=1)[1],
        lambda x: (x * 2).split([1, 3], dim=1)[1],
        lambda x: (x - 1).unbind(1)[2],
    ],
    ids=["chunk", "split", "unbind"],
)
@torch.no_grad()
def test_an_eager_storage_read_of_one_output_of_a_split_stays_in_eager(pick):
    """A getitem goes where the split it picks from goes (the partitioner puts it back),
    so the split runs in eager with it; asking the partitioner again without the getitem
    alone never ended (the compile hung)."""

    def windows_of_a_piece(x):
        return pick(x).unfold(0, 2, 2) * 2

    x = torch.randn(6, 4)
    got, fallbacks = _compile_and_run(windows_of_a_piece, x)
    assert torch.equal(got, windows_of_a_piece(x))
    assert len(fallbacks) == 1
    assert "in eager reads an output's storage" in str(fallbacks[0].message)


@torch.no_grad()
def test_partitions_that_keep_a_storage_read_inside_run_in_eager(monkeypatch):
    """If asking the partitioner again leaves a storage read inside (no progress), the
    partitions that hold it run in eager rather than loop or read the wrong storage."""
    from lumir.backend import compiler

    first_partitioned = []

    def always_the_same(gm, partitioned):  # as if the partitioner put the node back
        first_partitioned[:] = first_partitioned or list(partitioned)[:1]
        return dict.fromkeys(first_partitioned, "test")

    monkeypatch.setattr(compiler, "storage_views", always_the_same)
    model = LgammaBetweenLinears()
    x = torch.randn(4, 16)
    got, fallbacks = _compile_and_run(model, x)
    torch.testing.assert_close(got, model(x))
    assert "could not keep in eager alone" in str(fallbacks[0].message)


@torch.no_grad()
def test_an_input_eager_refuses_raises_eagers_error_and_keeps_lumir_on(monkeypatch):
    """An embedding index out of range fails in lumir's program and in eager alike: the
    caller gets eager's IndexError, no lumir warning, and the next good call still runs
    lumir's program (the sizes are not sent to eager for good)."""
    torch.manual_seed(0)
    embedding, linear = torch.nn.Embedding(10, 8), torch.nn.Linear(8, 4)

    def model(ids):
        return linear(embedding(ids))

    runs = []
    real_call = calls.CallPlan.__call__
    monkeypatch.setattr(
        calls.CallPlan, "__call__", lambda plan, args: runs.append(1) or real_call(plan, args)
    )
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="lumir")
    good, bad = torch.tensor([[1, 2, 3]]), torch.tensor([[1, 12, 3]])
    torch.testing.assert_close(compiled(good), model(good))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(IndexError, match="index out of range"):
            compiled(bad)
        before = len(runs)
        torch.testing.assert_close(compiled(good), model(good))
    assert not [w for w in caught if issubclass(w.category, LumirRuntimeFallbackWarning)]
    assert len(runs) == before + 1, "the good call after the bad one did not run lumir's program"


class CountingLinear(torch.nn.Module):
    """A linear layer that counts its calls in a buffer (`n.add_(1)`, bound by address
    and written in place by the program, lumir.backend.in_place)."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.register_buffer("n", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.n.add_(1)
        return self.linear(x) * self.n


def _counting_pair():
    """Two `CountingLinear`s with the same weights, the second compiled by lumir, and
    an input."""
    torch.manual_seed(0)
    eager = CountingLinear()
    model = CountingLinear()
    model.load_state_dict(eager.state_dict())
    torch._dynamo.reset()
    return eager, model, torch.compile(model, backend="lumir"), torch.randn(2, 8)


def test_a_failure_after_an_in_place_update_is_not_run_again_in_eager(monkeypatch):
    """A program that fails after its launches wrote an argument in place (here: every
    launch ran, then the call failed, as an allocation of a fresh output can) must not
    fall back by running the graph in eager: eager would read the already updated
    counter and torch would write back a second increment (before: the count ran one
    ahead of eager's from then on, silently). The call raises a diagnostic naming the
    update; the sizes run in eager from the next call, which counts as eager does."""
    from lumir.runtime.program import Program

    eager, model, compiled, x = _counting_pair()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), eager(x))
    real_execute = Program._execute

    def fail_after_the_launches(program):
        real_execute(program)
        raise RuntimeError("out of memory (simulated)")

    monkeypatch.setattr(Program, "_execute", fail_after_the_launches)
    with torch.no_grad():
        eager(x)
        with pytest.raises(RuntimeError, match="in place") as raised:
            compiled(x)
        assert "out of memory (simulated)" in str(raised.value)
        assert model.n.item() == eager.n.item()
        monkeypatch.setattr(Program, "_execute", real_execute)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LumirRuntimeFallbackWarning)
            torch.testing.assert_close(compiled(x), eager(x))
    assert model.n.item() == eager.n.item() == 3


def test_a_kernel_that_fails_to_compile_at_load_sends_its_sizes_to_eager_first(monkeypatch):
    """A Triton kernel that fails to compile ahead fails the program's load
    (`KernelCompileError`), before anything ran: the call runs in eager with one
    warning naming it, the in-place counter counts once (no `LumirRuntimeError`, which
    a failure at the kernel's first launch, after the update, gives), and the sizes stay
    in eager. The CPU program compiles no Triton kernel, so the load's compile step
    stands in for one that fails."""
    from lumir.runtime import loader
    from lumir.runtime.triton_launch import KernelCompileError

    def fail_to_compile(warm_ups):
        raise KernelCompileError("Triton could not compile gemv_kernel: RuntimeError: simulated")

    monkeypatch.setattr(loader, "compile_ahead", fail_to_compile)
    eager, model, compiled, x = _counting_pair()
    with torch.no_grad():
        with pytest.warns(LumirRuntimeFallbackWarning, match="KernelCompileError.*gemv_kernel"):
            torch.testing.assert_close(compiled(x), eager(x))
        torch.testing.assert_close(compiled(x), eager(x))
    assert model.n.item() == eager.n.item() == 2


def test_a_failure_without_a_message_still_falls_back(monkeypatch):
    """The warning quotes the error's first line; an error with no message has none,
    and indexing its lines raised IndexError out of the fallback, costing the call."""
    from lumir.runtime.program import Program

    torch.manual_seed(0)
    model = torch.nn.Linear(8, 8)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="lumir")
    x = torch.randn(2, 8)

    def fail(program):
        raise RuntimeError()

    monkeypatch.setattr(Program, "_execute", fail)
    warned = pytest.warns(LumirRuntimeFallbackWarning, match=r"RuntimeError: \(no message\)")
    with torch.no_grad(), warned:
        torch.testing.assert_close(compiled(x), model(x))


@torch.no_grad()
def test_attention_with_a_mask_and_is_causal_alone_runs_in_eager():
    """`hl.sdpa` takes a mask or is_causal; the CPU kernel takes is_causal positionally,
    and such a node must be refused at import (only it in eager, named), not fail the
    whole partition's compile at verification."""
    torch.manual_seed(0)
    qkv, out = torch.nn.Linear(32, 96), torch.nn.Linear(32, 32)

    def attend(x, mask):
        q, k, v = qkv(x).view(2, 6, 3, 4, 8).permute(2, 0, 3, 1, 4)
        a = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, is_causal=True
        )
        return out(a.transpose(1, 2).reshape(2, 6, 32))

    x, mask = torch.randn(2, 6, 32), torch.ones(6, 6, dtype=torch.bool)
    mask[:, 0] = False
    got, fallbacks = _compile_and_run(attend, x, mask)
    torch.testing.assert_close(got, attend(x, mask), atol=1e-5, rtol=1e-5)
    (message,) = [str(f.message) for f in fallbacks]
    assert "a mask together with is_causal" in message
    assert "failed to compile" not in message
    graph = stats.GRAPHS[0]
    assert graph.failures == [] and len(graph.partitions) == 2  # both linears


def test_attention_a_backward_needs_runs_in_eager_with_its_result_alone():
    """In a training graph the attention also returns the statistics its backward reads,
    so it runs in eager; the getitem that picks its result must stay in eager with it,
    not open a partition that cannot import it (which sent the whole layer to eager)."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    x, memory = torch.randn(2, 5, 16), torch.randn(2, 4, 16)
    compiled_layer = copy.deepcopy(layer)
    got, fallbacks = _compile_and_run(compiled_layer, x, memory)
    want = layer(x, memory)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    got.sum().backward()
    want.sum().backward()
    for (name, a), b in zip(layer.named_parameters(), compiled_layer.parameters(), strict=True):
        torch.testing.assert_close(b.grad, a.grad, atol=1e-5, rtol=1e-4, msg=name)
    assert "failed to compile" not in " ".join(str(f.message) for f in fallbacks)
    forward = stats.GRAPHS[0]
    assert forward.failures == []
    eager = [name for name in forward.fallback_ops if not name.startswith("aten._scaled_dot")]
    assert eager == ["getitem"] * len(eager) and eager  # the attention's outputs, nothing else
