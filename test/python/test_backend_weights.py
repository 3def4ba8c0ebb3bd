"""Weights are bound to the compiled program by storage, not copied per call."""

from __future__ import annotations

import warnings

import torch

from lumir.backend import stats
from lumir.backend.partition import LumirRuntimeFallbackWarning


class TwoLinears(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = torch.nn.Linear(16, 32)
        self.second = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


def _programs():
    return [p for g in stats.GRAPHS for p in g.partitions]


@torch.no_grad()
def test_parameters_are_bound_and_in_place_updates_are_seen():
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    compiled = torch.compile(model, backend="lumir")
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    (partition,) = _programs()
    model.first.weight.mul_(0.5)  # in place: same storage, the program sees it
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    assert partition.loads == 1


@torch.no_grad()
def test_weights_and_biases_are_read_in_place():
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    torch.compile(model, backend="lumir")(x)
    (partition,) = _programs()
    assert partition.bound_inputs == 4  # two weights, two biases; only x is copied


@torch.no_grad()
def test_replaced_parameter_rebinds_without_fusing_again():
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    compiled = torch.compile(model, backend="lumir")
    compiled(x)
    model.second.weight = torch.nn.Parameter(torch.randn(8, 32))
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    (partition,) = _programs()
    assert partition.fuse_runs == 1  # not fused again
    assert partition.loads == 2  # loaded again against the new storage


@torch.no_grad()
def test_weight_rebound_through_data_gives_eager_results_without_fusing_again():
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    compiled = torch.compile(model, backend="lumir")
    before = compiled(x)
    model.first.weight.data = torch.randn(32, 16)  # new storage, same Parameter object
    after = compiled(x)
    torch.testing.assert_close(after, model(x), atol=1e-5, rtol=1e-5)
    assert not torch.allclose(before, after)
    (partition,) = _programs()
    assert partition.fuse_runs == 1  # re-planned against the new storage, not re-fused
    assert partition.loads == 2
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    assert partition.loads == 2  # the new binding's plan is the hot path again


@torch.no_grad()
def test_outputs_survive_the_next_call():
    torch._dynamo.reset()
    stats.reset()
    model = TwoLinears()
    compiled = torch.compile(model, backend="lumir")
    x, y = torch.randn(4, 16), torch.randn(4, 16)
    first = compiled(x)
    kept = first.clone()
    second = compiled(y)
    assert torch.equal(first, kept)  # the program's buffers were copied out, not aliased
    torch.testing.assert_close(second, model(y), atol=1e-5, rtol=1e-5)


class _PointersEqualLikeTorch:
    """torch._C._tensors_data_ptrs_at_indices_equal's contract (a list of tensors only),
    counting its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, tensors, data_ptrs, indices):
        if not all(isinstance(t, torch.Tensor) for t in tensors):
            raise TypeError("incompatible function arguments")
        self.calls += 1
        return all(tensors[i].data_ptr() == data_ptrs[i] for i in indices)


def _raises(*_):
    raise TypeError("incompatible function arguments")


@torch.no_grad()
def test_one_call_pointer_check_is_used_and_sees_a_rebound_weight(monkeypatch):
    check = _PointersEqualLikeTorch()
    monkeypatch.setattr("lumir.backend.calls._POINTERS_EQUAL", check)
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    compiled = torch.compile(model, backend="lumir")
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    before = check.calls
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    assert check.calls == before + 1  # the hot path checks pointers with one call
    model.first.weight = torch.nn.Parameter(torch.randn(32, 16))
    torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    (partition,) = _programs()
    assert partition.loads == 2


@torch.no_grad()
def test_a_pointer_check_that_rejects_the_arguments_is_not_used(monkeypatch):
    # The C check is private API; one whose signature changed must cost nothing but
    # speed (the loop), never send a call to eager (pytest turns that warning into an
    # error, see pyproject.toml).
    monkeypatch.setattr("lumir.backend.calls._POINTERS_EQUAL", _raises)
    torch._dynamo.reset()
    stats.reset()
    model, x = TwoLinears(), torch.randn(4, 16)
    compiled = torch.compile(model, backend="lumir")
    for _ in range(2):
        torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
    (partition,) = _programs()
    assert partition.loads == 1


@torch.no_grad()
def test_an_input_mutated_in_a_fresh_tensor_every_call_stops_being_bound():
    """A mutated input is bound by address (a cache lives across calls); one that is a
    new tensor on every call is copied in after the first move, not reloaded per call."""
    torch._dynamo.reset()
    stats.reset()
    weight = torch.randn(8, 8)

    def step(state):
        state.index_copy_(0, torch.tensor([1]), torch.ones(1, 8))
        return state @ weight

    compiled = torch.compile(step, backend="lumir")
    for seed in range(5):
        state = torch.randn(4, 8, generator=torch.Generator().manual_seed(seed))
        expected_state = state.clone()
        expected = step(expected_state)
        torch.testing.assert_close(compiled(state), expected, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(state, expected_state)  # the mutation reached the caller
    (partition,) = _programs()
    assert partition.loads <= 2


@torch.no_grad()
def test_an_input_updated_in_place_is_handed_back_as_the_callers_tensor():
    """An input contiguous but for its size-1 strides ((1, 16) with strides (1, 1)) is
    bound and updated in place; the updated value handed to torch's write-back must be
    that tensor, not the program's (16, 1)-strided tensor over the same memory, which
    torch refuses to copy onto it ("refer to a single memory location")."""

    def negate_then_eager(x):
        x.neg_()
        return x.lgamma()  # no import rule: the graph goes on in eager

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(negate_then_eager, backend="lumir")
    for call in range(2):  # the second call's new tensor is copied in, not bound
        x = torch.randn(16, 1).t()
        expected_x = x.clone()
        expected = negate_then_eager(expected_x)
        torch.testing.assert_close(compiled(x), expected)
        torch.testing.assert_close(x, expected_x)
        if call == 0:
            assert _programs()[0].in_place_updates == 1


@torch.no_grad()
def test_an_input_updated_in_place_with_a_stride_on_its_size_1_dimension_is_bound():
    """`x[::2]` of a 2-element tensor is contiguous with stride 2 on its one dimension:
    binding it for the in-place update made a byte view of it, which torch refuses for
    a stride other than 1, and the call ran in eager with a runtime-fallback warning."""

    def relu_then_scale(x, y):
        x.relu_()
        return x * y

    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(relu_then_scale, backend="lumir")
    x, y = torch.tensor([-1.0, 2.0])[::2], torch.randn(3, 1)
    expected_x = x.clone()
    expected = relu_then_scale(expected_x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirRuntimeFallbackWarning)
        torch.testing.assert_close(compiled(x, y), expected)
    torch.testing.assert_close(x, expected_x)
    assert _programs()[0].bound_inputs == 1  # bound, not copied in
