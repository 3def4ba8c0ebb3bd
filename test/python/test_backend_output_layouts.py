"""Outputs come back in eager's layout: its strides, and the aliasing between outputs.

A model that returns `y.t()`, a strided slice or several views of one intermediate
gets, from eager torch, tensors whose strides and shared storage the caller can
observe (`.stride()`, a `.view()` only that layout allows, an in-place update seen
through another output). lumir's partitions place such outputs in that layout
(lumir.backend.output_layouts); these tests compare with eager on each.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lumir.backend  # noqa: F401  (registers "lumir")
from lumir.backend import LumirFallbackWarning, stats
from lumir.backend.output_layouts import _written, plan_layouts
from lumir.backend.partition import LumirRuntimeFallbackWarning
from lumir.testing.devices import CPU_AND_CUDA

DEVICES = CPU_AND_CUDA

VIEWS = {
    "transpose": lambda a, w: (a @ w).t(),
    "transpose_after_relu": lambda a, w: torch.relu(a @ w).t(),
    "batch_transpose": lambda a, w: (a.unsqueeze(0).expand(3, -1, -1) @ w).transpose(0, 1),
    "permute": lambda a, w: (a @ w).view(4, 2, 4).permute(2, 0, 1),
    "step_slice": lambda a, w: (a @ w)[:, ::2],
    "column_slice": lambda a, w: (a @ w)[:, 1:3],
    "expand": lambda a, w: (a @ w)[:, :1].expand(4, 8),
    "contiguous_beside_transposed": lambda a, w: (a @ w, (a @ w + 1).t()),
}


def _compile(fn, *args):
    torch._dynamo.reset()
    stats.GRAPHS.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", LumirFallbackWarning)
        out = torch.compile(fn, backend="lumir")(*args)
    assert stats.GRAPHS and all(g.partitions for g in stats.GRAPHS), "nothing compiled"
    return out


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_strides_are_eagers(name, device):
    a = torch.randn(4, 16, device=device)
    w = torch.randn(16, 8, device=device)
    fn = VIEWS[name]
    for got, want in zip(_as_tuple(_compile(fn, a, w)), _as_tuple(fn(a, w)), strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.stride() == want.stride()
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_views_of_one_intermediate_alias_each_other(device):
    """An update through one output shows through the others, as in eager."""

    def views(a, w):
        y = a @ w
        return y, y.t(), y[1:3]

    a = torch.randn(4, 16, device=device)
    w = torch.randn(16, 8, device=device)
    got, want = _compile(views, a, w), views(a, w)
    for tensors in (got, want):
        tensors[0].add_(1.0)
    for g, e in zip(got, want, strict=True):
        assert g.stride() == e.stride()
        torch.testing.assert_close(g, e)
    assert got[1].data_ptr() == got[0].data_ptr()
    assert got[2].data_ptr() == got[0][1].data_ptr()


def test_a_view_only_the_eager_layout_allows():
    """`transpose` then `view` works on eager's transposed output; a row-major copy
    of it would raise."""

    def head_major(a, w):
        return (a @ w).view(4, 2, 4).transpose(0, 1)  # [2, 4, 4], heads first

    a, w = torch.randn(4, 16), torch.randn(16, 8)
    got = _compile(head_major, a, w)
    torch.testing.assert_close(
        got.transpose(0, 1).view(4, 8), head_major(a, w).transpose(0, 1).view(4, 8)
    )


def test_dynamic_lengths_keep_eager_strides():
    def transposed(a, w):
        return torch.relu(a @ w).t()

    torch._dynamo.reset()
    compiled = torch.compile(transposed, backend="lumir", dynamic=True)
    w = torch.randn(16, 8)
    for rows in (3, 5, 9):
        a = torch.randn(rows, 16)
        got, want = compiled(a, w), transposed(a, w)
        assert got.stride() == want.stride() == (1, 8)
        torch.testing.assert_close(got, want)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    order=st.permutations([0, 1, 2]),
    dim=st.integers(0, 2),
    start=st.integers(0, 2),
    step=st.integers(1, 3),
    twice=st.booleans(),
)
def test_any_permuted_and_sliced_product(order, dim, start, step, twice):
    """A permutation of a batched product, sliced with a step along any dimension, and
    (`twice`) returned beside the product itself: eager's strides and aliasing."""

    def product_view(a, w):
        y = a @ w
        index = [slice(None)] * 3
        index[dim] = slice(start, None, step)
        view = y.permute(*order)[tuple(index)]
        return (y, view) if twice else view

    a, w = torch.randn(3, 5, 16), torch.randn(16, 6)
    got, want = _as_tuple(_compile(product_view, a, w)), _as_tuple(product_view(a, w))
    for g, e in zip(got, want, strict=True):
        assert g.shape == e.shape and g.stride() == e.stride()
        torch.testing.assert_close(g, e)
    if twice:
        got[0].add_(1.0)
        want[0].add_(1.0)
        torch.testing.assert_close(got[1], want[1])


def test_windows_that_overlap_are_not_written_by_a_copy():
    """An `unfold`-like window (elements shared between rows) cannot be copied into;
    a repeated dimension (stride 0) is written through its first index."""
    assert _written((3, 3), (1, 1)) is False
    assert _written((4, 5), (1, 4)) is None
    assert _written((5, 4), (1, 0)) == (slice(None), slice(0, 1))


def test_row_major_outputs_of_their_own_are_left_to_the_plain_copy():
    y = torch.empty(4, 8, device="meta")
    other = torch.empty(4, 8, device="meta")
    plain = [(0, 0, y), (1, 1, other[1:3])]
    assert plan_layouts(plain, {}) == ()
    (group,) = plan_layouts([(0, 0, y), (1, 1, y.t())], {})
    assert [w.stride for w in group.windows] == [(8, 1), (1, 8)]
    assert group.extent == 32


def test_placed_outputs_take_in_place_updates_with_gradients_on():
    """With autograd on, an output that is an autograd view cannot be updated in place;
    placed outputs are tensors on a shared storage, not views, as eager's base is."""
    torch.manual_seed(0)
    linear = torch.nn.Linear(8, 4)

    def both(x):
        y = linear(x)
        return y, y.t()

    x = torch.randn(5, 8)
    gradients = []
    for fn in (both, torch.compile(both, backend="lumir")):
        torch._dynamo.reset()
        y, yt = fn(x)
        y.mul_(2)
        (y.sum() + yt.sum()).backward()
        gradients.append(linear.weight.grad.clone())
        linear.weight.grad = None
    torch.testing.assert_close(gradients[1], gradients[0])


SAVED_FOR_BACKWARD = {
    "exp": lambda x: x.exp(),
    "sigmoid_of_a_product": lambda x: torch.sigmoid(x @ x.t()),
    "softmax_and_a_row": lambda x: (lambda p: (p, p[1]))((x * 3).softmax(-1)),
}


@pytest.mark.parametrize("name", sorted(SAVED_FOR_BACKWARD))
def test_an_output_the_backward_saves_is_versioned_with_it(name):
    """With gradients on, the forward graph returns an output the backward also saves
    (`exp`'s result) as two outputs of one storage. Placed as two tensors of their own,
    they had two version counters: updating the caller's output in place went unseen,
    and the backward read the updated values (a wrong gradient, silently) where eager
    raises. One version counter per placed storage makes the update the error it is in
    eager. (An output that is a view of a saved one, `x.exp().t()`, aot_autograd
    returns through `_unsafe_view`, a version counter of its own: `aot_eager` misses
    that update too.)"""
    fn = SAVED_FOR_BACKWARD[name]
    for run in (fn, torch.compile(fn, backend="lumir")):
        torch._dynamo.reset()
        x = torch.randn(4, 4, requires_grad=True)
        outputs = _as_tuple(run(x))
        outputs[0].add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            sum(o.sum() for o in outputs).backward()


INPUT_VIEWS = {
    "flatten_then_row": lambda x: x.flatten(1, 2)[2],
    "row": lambda x: x[1],
    "last_columns": lambda x: x[..., 2:],
    "transposed": lambda x: x.transpose(0, 2),
    "diagonal": lambda x: x[0].diagonal(),
    "second_half_of_the_width": lambda x: x[..., x.shape[2] // 2 :],
    "flat_after_one_width": lambda x: x.reshape(-1)[x.shape[2] :],
    "expanded": lambda x: x.unsqueeze(-1).expand(*x.shape, 2),
    "unflattened": lambda x: x.unflatten(0, (1, -1)),
    "view_beside_a_product": lambda x: (x[1:], x.flatten(1) @ x.flatten(1).t()),
}


def _viewed_input(kind: str, width: int, device: str) -> torch.Tensor:
    """A [3, 3, width] input: its own storage, every other row of a larger one (strided),
    or rows 1 on of one (at a storage offset)."""
    rows = {"whole": 3, "every_other_row": 6, "after_a_row": 4}[kind]
    base = torch.arange(rows * 3 * width, dtype=torch.float32, device=device)
    base = base.reshape(rows, 3, width)
    return {"whole": base, "every_other_row": base[::2], "after_a_row": base[1:]}[kind]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["whole", "every_other_row", "after_a_row"])
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("name", sorted(INPUT_VIEWS))
def test_a_view_of_an_input_is_that_view_of_the_callers_tensor(name, dynamic, kind, device):
    """An output that is a view of an input is that view, at eager's storage offset,
    with a dynamic size in the view chain too: aot_autograd then rebuilds it from the
    input at the offset of the tensor the backend returned (a copy at offset 0 gave the
    input's first elements). A strided or offset input has symbolic strides and offset
    under dynamic shapes, read off the argument at each call. Writes to the input show
    through the output, as in eager."""
    fn = INPUT_VIEWS[name]
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="lumir")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LumirFallbackWarning)  # a view alone may stay in eager
        for width in (5, 7, 4):
            x = _viewed_input(kind, width, device)
            if dynamic:
                torch._dynamo.mark_dynamic(x, 2)
            got, want = _as_tuple(compiled(x)), _as_tuple(fn(x))
            for g, w in zip(got, want, strict=True):
                torch.testing.assert_close(g, w)
                assert g.stride() == w.stride()
            view, expected = got[0], want[0]
            if expected.untyped_storage().data_ptr() == x.untyped_storage().data_ptr():
                assert view.storage_offset() == expected.storage_offset()
            x.add_(1)
            torch.testing.assert_close(view, expected)  # both see the write, or neither


SHARED_VIEWS = {
    "row_of_a_product": lambda x, w: (lambda y: (y, y[-1]))(x @ w),
    "row_beside_eager_math": lambda x, w: (lambda y: (y, y[-1]))((x @ w) / x.shape[0] ** 0.5),
    "transposed_and_row": lambda x, w: (lambda y: (y.t(), y[1:]))(x @ w),
}


@pytest.mark.parametrize("name", sorted(SHARED_VIEWS))
def test_views_of_one_intermediate_alias_each_other_under_dynamic_shapes(name):
    """Under dynamic shapes tracing gives a view (`y[-1]`) a storage of its own; the
    outputs still share one storage, as eager's do, found through the view chain."""
    fn = SHARED_VIEWS[name]
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="lumir")
    w = torch.randn(4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LumirFallbackWarning)  # the square root in eager
        for rows in (6, 7, 9):
            x = torch.randn(rows, 4)
            torch._dynamo.mark_dynamic(x, 0)
            (base, view), (want_base, want_view) = compiled(x, w), fn(x, w)
            torch.testing.assert_close((base, view), (want_base, want_view))
            assert base.stride() == want_base.stride() and view.stride() == want_view.stride()
            assert base.untyped_storage().data_ptr() == view.untyped_storage().data_ptr()
            base.fill_(3.0)
            assert bool((view == 3.0).all())


def _transposed():
    return torch.randn(1, 8, 5).transpose(1, 2)


ROLLS = {
    "size-1-dim": (lambda x: torch.roll(x, 1, 0) + 0.1, _transposed),
    "no-shift": (lambda x: torch.roll(x, 0, 1) + 0.1, _transposed),
    "whole-turn-channels-last": (
        lambda x: torch.roll(x, 4, 2) * 2,
        lambda: torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last),
    ),
    "shift-channels-last": (
        lambda x: torch.roll(x, 1, 2) * 2,
        lambda: torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last),
    ),
}


@pytest.mark.parametrize("name", sorted(ROLLS))
def test_a_roll_has_eagers_layout(name):
    """A roll that moves nothing is a contiguous copy in ATen, whatever the input's
    layout (it came back in the transposed input's strides); one that moves something
    has the layout of ATen's `cat`."""
    fn, make = ROLLS[name]
    x = make()
    got, want = _compile(fn, x), fn(x)
    assert got.stride() == want.stride()
    torch.testing.assert_close(got, want, atol=0, rtol=0)


@pytest.mark.parametrize("name", ["channels-last", "transposed"])
def test_logsigmoid_on_the_cpu_is_contiguous_as_atens(name):
    """ATen's CPU log_sigmoid allocates a contiguous result whatever the input's
    layout; torch's elementwise decomposition kept a channels-last or transposed
    input's strides."""
    x = torch.randn(2, 4, 3, 5).contiguous(memory_format=torch.channels_last)
    x = x if name == "channels-last" else torch.randn(5, 7).t()
    fn = torch.nn.functional.logsigmoid
    got, want = _compile(fn, x), fn(x)
    assert got.stride() == want.stride()
    torch.testing.assert_close(got, want)


UNUSUAL_LAYOUTS = {
    "transposed": lambda: torch.randn(5, 7).t(),
    "channels-last": lambda: torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),
    "every-other-column": lambda: torch.randn(5, 14)[:, ::2],
}
"""Inputs whose layout an op that allocates its result afresh does not keep."""

RRELUS = {
    "F.rrelu": lambda x: torch.nn.functional.rrelu(x) * 2,
    "torch.rrelu": lambda x: torch.rrelu(x, 0.1, 0.3),
    "nn.RReLU": torch.nn.RReLU().eval(),
    "inplace": lambda x: torch.nn.functional.rrelu(x * 1, inplace=True),
    "rrelu_": lambda x: torch.rrelu_(x * 1),
}


@pytest.mark.parametrize("layout", sorted(UNUSUAL_LAYOUTS))
@pytest.mark.parametrize("training", [False, True], ids=["eval", "training"])
@pytest.mark.parametrize("name", sorted(RRELUS))
def test_rrelu_has_eagers_layout(name, training, layout):
    """ATen's rrelu allocates a contiguous result whatever the input's layout, in eval
    and in training; the traced op kept a transposed or channels-last input's strides.
    An in-place rrelu keeps its tensor's. In eval mode it compiles (a leaky ReLU of
    the mean slope); in training its random slopes run in eager, drawn as eager draws
    them."""
    x = UNUSUAL_LAYOUTS[layout]()
    fn = RRELUS[name]
    if training and name == "nn.RReLU":
        fn = torch.nn.RReLU().train()
    elif training:
        fn = {
            "F.rrelu": lambda x: torch.nn.functional.rrelu(x, training=True) * 2,
            "torch.rrelu": lambda x: torch.rrelu(x, 0.1, 0.3, True),
            "inplace": lambda x: torch.nn.functional.rrelu(x * 1, training=True, inplace=True),
            "rrelu_": lambda x: torch.rrelu_(x * 1, training=True),
        }[name]
    torch.manual_seed(0)
    want = fn(x)
    torch.manual_seed(0)
    if training:
        torch._dynamo.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LumirFallbackWarning)
            got = torch.compile(fn, backend="lumir")(x)
    else:
        got = _compile(fn, x)
    assert got.stride() == want.stride()
    torch.testing.assert_close(got, want, atol=0, rtol=0)


@pytest.mark.parametrize("op", ["copysign", "xlogy"])
def test_a_view_of_an_eager_result_laid_out_unlike_its_trace_reads_the_right_elements(op):
    """torch's fake `copysign` / `xlogy` of a contiguous and a transposed tensor is laid
    out as the transposed one, the real one contiguous. The op runs in eager and the
    partition after it returns a view (`.mT`) of its result: handed back as that window
    of the call's argument at the traced strides, it read other elements (off by 0.9).
    The call now sees the layout differ and hands back the program's result."""
    a = torch.randn(17, 4, 2)
    b = (torch.rand(4, 17, 2) + 0.1).transpose(0, 1)  # positive: xlogy's log is defined

    def fn(a, b):
        return getattr(torch, op)((a * 0.25).abs() + 0.5, b).mT

    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(fn, backend="lumir")(a, b)
    reasons = " ".join(
        str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)
    )
    assert f"aten.{op}" in reasons, "the op must run in eager for this test: pick another"
    torch.testing.assert_close(got, fn(a, b), atol=0, rtol=0)


def test_a_view_of_a_placed_split_piece_counts_from_the_pieces_offset():
    """A partition places the pieces of a split in one storage that starts at their
    first element; the partition after an eager op returns a view of one piece. The
    view's traced storage offset counts from eager's base (2 here), past the end of the
    placed storage: the call failed and ran in eager, with a runtime-fallback warning."""

    def fn(x, y):
        _, _, piece, last = (x * 2).split(1, 2)
        return torch.copysign(last, y) * 2, piece.transpose(0, 1).unsqueeze(-1).expand(2, 1, 1, 2)

    x, y = torch.randn(1, 2, 4), torch.randn(1, 2, 1)
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(fn, backend="lumir")(x, y)
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert "aten.copysign" in " ".join(fallbacks), "the op must run in eager for this test"
    failed = [str(w.message) for w in caught if w.category is LumirRuntimeFallbackWarning]
    assert not failed, failed
    for g, e in zip(got, fn(x, y), strict=True):
        assert g.stride() == e.stride()
        torch.testing.assert_close(g, e, atol=0, rtol=0)


POWERS_OF_A_NUMBER = {
    "2.0 ** x": lambda x: 2.0**x,
    "torch.pow(2, x)": lambda x: torch.pow(2, x),
    "x.__rpow__(3.0)": lambda x: x.__rpow__(3.0),
    "1.0 ** x": lambda x: 1.0**x,
    "(0.5 ** x) + 1": lambda x: (0.5**x) + 1,
    "x ** 2.0 keeps x's layout": lambda x: x**2.0,
}


@pytest.mark.parametrize("layout", sorted(UNUSUAL_LAYOUTS))
@pytest.mark.parametrize("name", sorted(POWERS_OF_A_NUMBER))
def test_a_power_of_a_number_has_eagers_layout(name, layout):
    """ATen's pow.Scalar (a number to the power of a tensor) allocates a contiguous
    result whatever the exponent's layout, where the traced op (and so lumir's output,
    and every op after it) kept a transposed exponent's strides. A tensor to a power
    keeps its layout in both. Found by the torch-level fuzzer (seed 1, program 7)."""
    x = UNUSUAL_LAYOUTS[layout]()
    fn = POWERS_OF_A_NUMBER[name]
    got, want = _compile(fn, x), fn(x)
    assert got.stride() == want.stride()
    torch.testing.assert_close(got, want)  # ATen's vectorised pow may differ by an ulp
