"""The ATen importer, one test per family of table rows, against torch itself.

Each case traces a function to core ATen (`make_fx`, fake tensors, as aot_autograd
does), imports it, runs the `hl` module on the reference interpreter and compares with
the function run by torch.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

from lumir.frontend import (
    UnsupportedNodeError,
    import_graph,
    lumir_decompositions,
    unsupported_reason,
)
from lumir.runtime import interpret


def _trace(fn, *inputs):
    return make_fx(fn, lumir_decompositions(), tracing_mode="fake")(*inputs)


def _check(fn, *inputs, atol=1e-6):
    gm = _trace(fn, *inputs)
    imported = import_graph(gm, {})
    imported.module.verify()
    got = interpret(imported.module, [inputs[i] for i in imported.arguments])
    expected = fn(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for out, spec, want in zip(got, imported.outputs, expected, strict=True):
        assert spec.result is not None
        assert out.dtype == want.dtype
        torch.testing.assert_close(out, want, atol=atol, rtol=1e-5, equal_nan=True)
    return imported


def _all_supported(gm) -> bool:
    return all(unsupported_reason(n) is None for n in gm.graph.nodes if n.op == "call_function")


def _ops(imported) -> list[str]:
    return [op.name for op in imported.module.walk() if op.dialect_name() == "hl"]


def test_elementwise_promotes_scalars_and_mixed_dtypes():
    x = torch.randn(3, 4)
    y = torch.randn(4, dtype=torch.bfloat16)
    imported = _check(lambda a, b: (a * 2.0 + 1 - b) / 3.0, x, y)
    assert "hl.cast" in _ops(imported)  # the bf16 operand is promoted to f32 like ATen


@pytest.mark.parametrize(
    "dtypes",
    [
        (torch.float16, torch.bfloat16),
        (torch.int64, torch.float32),
        (torch.bool, torch.int64),
        (torch.bfloat16, torch.float32, torch.float16),
    ],
)
def test_cat_promotes_inputs_of_different_dtypes_like_aten(dtypes):
    parts = [(torch.randn(2, width) * 4).to(dtype) for width, dtype in enumerate(dtypes, 1)]
    empty = torch.zeros(0, dtype=dtypes[0])  # dropped, but still counts in the promotion
    _check(lambda *xs: torch.cat(xs, dim=-1), *parts, atol=0)
    _check(lambda e, x: torch.cat([e, x]), empty, parts[-1].flatten(), atol=0)


def test_half_scalar_arithmetic_rounds_once_like_aten():
    x = torch.randn(8, dtype=torch.bfloat16)
    imported = _check(lambda a: a * 0.1, x, atol=0)
    assert _ops(imported).count("hl.cast") == 2  # computed in f32, rounded once


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(
    "fn",
    [
        lambda x, s: x * s,
        lambda x, s: x / s,
        lambda x, s: s * x,
        lambda x, s: s / x,
        lambda x, s: (x + s) - s,
    ],
    ids=["x*s", "x/s", "s*x", "s/x", "x+s-s"],
)
def test_a_0d_f32_tensor_with_a_half_tensor_rounds_as_aten_does(fn, dtype):
    """ATen's CPU mul and div read a 0-d f32 second operand at f32 (a Python float that
    dynamic=True lifts is one); a first operand, and add/sub, are rounded to the half
    type first. The imported graph gives the same bits in each case."""
    x = torch.randn(64, 32, generator=torch.Generator().manual_seed(0)).to(dtype)
    s = torch.tensor(0.3)
    gm = _trace(fn, x, s)
    imported = import_graph(gm, {})
    (got,) = interpret(imported.module, [(x, s)[i] for i in imported.arguments])
    assert torch.equal(got, fn(x, s))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("scalar", [0.1, 1 / 3, 257.0, 257, -1.3])
def test_pow_reads_its_scalar_in_the_half_dtype_as_aten_does(scalar, dtype):
    """ATen's pow rounds a scalar exponent (or base) to the tensor's dtype before it
    computes in f32, on CPU and CUDA: bf16 `x ** 257.0` is `x ** 256`. Reading the
    scalar exactly instead was 1434 elements of 8192 off eager here."""
    x = (torch.rand(512, generator=torch.Generator().manual_seed(0)) * 3 + 0.25).to(dtype)
    for fn in (lambda a: a**scalar, lambda a: abs(scalar) ** (a - 1.5)):
        imported = import_graph(_trace(fn, x), {})
        (got,) = interpret(imported.module, [x])
        assert torch.equal(got, fn(x))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_add_and_sub_scale_their_second_operand_by_alpha(dtype):
    """`a + alpha * b`: in f32 for a half result, rounded once (what ATen's CUDA kernel
    computes; its CPU kernel rounds a float alpha to the half type first)."""
    generator = torch.Generator().manual_seed(0)
    a, b = ((torch.randn(64, 32, generator=generator) * 4).to(dtype) for _ in range(2))
    alpha = 3 if dtype == torch.int64 else 0.3
    for fn in (
        lambda x, y: torch.add(x, y, alpha=alpha),
        lambda x, y: torch.sub(x, y, alpha=alpha),
        lambda x, y: torch.rsub(x, 2, alpha=alpha),
    ):
        gm = _trace(fn, a, b)
        assert _all_supported(gm)
        imported = import_graph(gm, {})
        (got,) = interpret(imported.module, [(a, b)[i] for i in imported.arguments])
        if dtype == torch.bfloat16:  # one rounding of the exact value: half an ulp
            exact = fn(a.double(), b.double())
            torch.testing.assert_close(got.double(), exact, rtol=2**-8, atol=1e-6)
        else:  # f32's own tolerances; exact for ints
            torch.testing.assert_close(got, fn(a.double(), b.double()).to(dtype))


def test_an_alpha_on_bools_stays_in_eager():
    gm = _trace(lambda x, y: torch.add(x, y, alpha=True), *(torch.rand(4) > 0.5 for _ in "ab"))
    (add,) = gm.graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor)
    assert unsupported_reason(add) is None  # alpha=True is alpha=1
    gm = _trace(lambda x, y: torch.add(x, y, alpha=2), torch.rand(4) > 0.5, torch.arange(4))
    (add,) = gm.graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor)
    assert unsupported_reason(add) is None  # an int result


@pytest.mark.parametrize("op", [torch.logical_and, torch.logical_or, torch.logical_xor])
def test_logical_ops_read_nonzero_and_nan_as_true(op):
    """Masks built with logical_and/or/xor, of floats (NaN is true), ints and bools,
    broadcast against each other; the result is a bool."""
    x = torch.tensor([[0.0, 1.0, float("nan"), -2.0, 0.0]])
    y = torch.tensor([[1.0], [0.0]])
    _check(op, x, y, atol=0)
    _check(op, torch.arange(-2, 3).reshape(5, 1), torch.rand(4) > 0.5, atol=0)


def test_lerp_threshold_celu_frac_logaddexp_and_addcdiv_are_imported_whole():
    """Each through torch's decomposition; in bf16 they compute in f32 and round once."""
    generator = torch.Generator().manual_seed(0)
    x, y = (torch.randn(8, 16, generator=generator) * 3 for _ in "xy")
    cases = [
        lambda a, b: torch.lerp(a, b, 0.3) + torch.lerp(a, b, torch.sigmoid(b)),
        lambda a, b: F.threshold(a, 0.1, 20.0) + F.celu(b, alpha=0.7),
        lambda a, b: torch.frac(a) + torch.logaddexp(a, b),
        lambda a, b: torch.addcdiv(a, a, b.abs() + 1),
    ]
    for fn in cases:
        gm = _trace(fn, x, y)
        assert _all_supported(gm)
        _check(fn, x, y, atol=1e-5)
        _check(fn, x.bfloat16(), y.bfloat16(), atol=0.02)
    infinities = torch.tensor([float("inf"), -float("inf"), float("nan"), 1.0])
    _check(torch.logaddexp, infinities, infinities.flip(0).nan_to_num(0.0), atol=0)


def test_unary_activations_and_gelu():
    x = torch.randn(2, 5)
    _check(lambda a: torch.rsqrt(a * a + 1) + F.silu(a) + torch.tanh(a) + F.gelu(a), x)
    _check(lambda a: torch.reciprocal(a) * a.to(torch.bfloat16).reciprocal(), x)
    _check(torch.reciprocal, torch.arange(1, 7))  # integers: a float result, as in ATen


def test_erf_log1p_expm1_and_the_activations_made_of_them():
    """log1p and expm1 stay exact where 1 + x rounds; softplus, ELU, SELU and mish
    decompose into them (torch's decompositions), an exact GELU is written with erf."""
    tiny = torch.tensor([1e-10, -3e-9, 2e-7, 0.5, -0.25])
    imported = _check(lambda a: torch.log1p(a) + torch.expm1(a), tiny, atol=0)
    assert {"hl.log1p", "hl.expm1"} <= set(_ops(imported))
    x = torch.linspace(-30, 30, 61)
    _check(lambda a: F.softplus(a) + F.softplus(a, beta=2.0, threshold=5.0), x)
    _check(lambda a: F.elu(a) + F.selu(a) + F.mish(a), x)
    _check(lambda a: 0.5 * a * (1 + torch.erf(a / 2**0.5)), x)
    # In bf16 the decompositions compute in f32 and round once, as ATen's kernels do.
    half = (torch.randn(4000, generator=torch.Generator().manual_seed(0)) * 8).bfloat16()
    _check(lambda a: F.softplus(a) + F.elu(a) + F.mish(a), half, atol=0)


def test_log_abs_minimum_and_full_like():
    """T5's relative-position buckets: log of a ratio, abs, minimum, full_like."""
    x = torch.randn(3, 4)
    _check(lambda a: torch.minimum(torch.log(a.abs() + 1), torch.full_like(a, 0.5)), x)
    _check(lambda a: torch.minimum(a, -a) + torch.full_like(a, 2, dtype=torch.int64), x)


def test_fill_with_a_number_or_a_0d_tensor_is_a_splat():
    """BEiT fills its relative-position table with `fill.Tensor`: the value cast to the
    tensor's dtype and broadcast to its shape."""
    x = torch.randn(3, 4)
    _check(lambda a: torch.ops.aten.fill.Tensor(a, a[0, 0] * 2) + a, x, atol=0)
    _check(lambda a: torch.ops.aten.fill.Scalar(a, 3) * a, x, atol=0)
    _check(lambda a: torch.ops.aten.fill.Tensor((a * 4).long(), a[1, 1] * 4), x, atol=0)


def test_gather_along_any_dimension():
    x = torch.randn(3, 5, 4)
    index = torch.randint(0, 5, (3, 7, 2))
    imported = _check(lambda a, i: torch.gather(a, 1, i), x, index, atol=0)
    assert "hl.index" in _ops(imported)
    _check(lambda a, i: torch.gather(a, -1, i), x, torch.randint(0, 4, (2, 5, 6)), atol=0)


def test_index_select_along_any_dimension():
    """index_select is gather with one index for a whole dimension (XGLM's positions)."""
    x = torch.randn(3, 5, 4)

    def select(dim):
        return lambda a, i: torch.index_select(a, dim, i)

    for dim, size in ((0, 3), (1, 5), (-1, 4)):
        index = torch.randint(0, size, (6,))
        imported = _check(select(dim), x, index, atol=0)
        assert _ops(imported).count("hl.index") == 1
        _check(select(dim), x, index.int(), atol=0)
    _check(select(1), x, torch.tensor(2), atol=0)  # a 0-d index keeps the dimension


def test_ranges_with_whole_float_bounds_are_imported_and_others_are_not():
    """XLNet counts positions down with `torch.arange(klen, -qlen, -1.0)`."""
    x = torch.randn(12)
    imported = _check(lambda a: a + torch.arange(6, -6, -1.0), x, atol=0)
    assert "hl.arange" in _ops(imported)
    gm = _trace(lambda a: a[:4] + torch.arange(0.0, 2.0, 0.5), x)
    (arange,) = (n for n in gm.graph.nodes if "arange" in str(n.target))
    assert unsupported_reason(arange) == "a float bound 0.5"


def test_clamps_and_hard_activations_keep_nan_and_import_whole():
    """torch's clamp decomposition: `where(isnan(x) | x >= lo, x, lo)`, so NaN stays NaN;
    with tensor bounds, `maximum` then `minimum`, which keep NaN as well."""
    x = torch.tensor([[-3.0, -0.5, 0.0, float("nan")], [0.5, 2.0, float("inf"), -float("inf")]])
    for fn in (
        lambda a: a.clamp(-1, 1),
        lambda a: a.clamp(min=0.25),
        lambda a: a.clamp_max(0.5),
        lambda a: F.hardswish(a),
        lambda a: F.hardsigmoid(a),
        lambda a: F.relu6(a),
    ):
        imported = _check(fn, x, atol=1e-6)
        assert "hl.compare" in _ops(imported)
    # tensor bounds are ATen's maximum then minimum (kernel_decompositions), NaN kept too
    imported = _check(lambda a: a.clamp(a[0], a[1]), x, atol=1e-6)
    assert {"hl.maximum", "hl.minimum"} <= set(_ops(imported))
    _check(lambda a: a.clamp(0, 2), torch.arange(-3, 4), atol=0)  # integers stay integers
    _check(lambda a: a.clamp(-0.3, 0.7), x.to(torch.bfloat16), atol=0)
    half = (torch.randn(4000, generator=torch.Generator().manual_seed(0)) * 8).bfloat16()
    _check(lambda a: F.hardswish(a) + a.clamp(-1.3, 2.7), half, atol=0)


def test_log_softmax_logsumexp_norms_and_whole_reductions():
    x = torch.randn(3, 6)
    x[1] = -float("inf")  # logsumexp of a row of -inf is -inf, not NaN
    _check(lambda a: a.logsumexp(-1), x)
    y = torch.randn(3, 6)
    _check(lambda a: a.log_softmax(-1) + a.log_softmax(0), y)
    _check(lambda a: F.normalize(a, dim=-1) + torch.linalg.vector_norm(a, 1, -1, True), y)
    _check(lambda a: a.sum() + a.mean() + a.abs().amax(), y)
    _check(lambda a: (a > 0).sum(), y, atol=0)  # a count of bools is an int64
    _check(lambda a: a.tril() + a.triu(2) + a.tril(-1), y, atol=0)
    _check(lambda a: F.group_norm(a.view(3, 2, 3), 2), y, atol=1e-5)


STATISTICS = {
    "layer_norm": lambda a: F.layer_norm(a, a.shape[-1:], eps=1e-6),
    "group_norm": lambda a: F.group_norm(a.view(2, 2, -1), 2, eps=1e-6),
    "var_mean": lambda a: torch.var_mean(a, -1),
    "var": lambda a: a.var(-1, correction=0),
    "std_mean": lambda a: torch.std_mean(a, -1),
}


@pytest.mark.parametrize("value", [-2.0794415, 0.1, 1 / 3, 1e4 + 1 / 7])
@pytest.mark.parametrize("width", [3, 8, 33])
@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_statistics_of_a_row_of_one_value_are_exact(name, width, value):
    """A row whose every element is one value has that mean and variance 0 exactly, as
    ATen's Welford reductions give them: a LayerNorm of it is 0, not an ulp of the mean
    times 1/sqrt(eps) (2.4e-4 at eps 1e-6, with the mean divided from the sum once)."""
    x = torch.full((2, width * 2), value)
    gm = _trace(STATISTICS[name], x)
    imported = import_graph(gm, {})
    got = interpret(imported.module, [x for _ in imported.arguments])
    expected = STATISTICS[name](x)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for out, want in zip(got, expected, strict=True):
        assert torch.equal(out, want), (out, want)


@pytest.mark.parametrize(
    "statistic",
    [
        lambda a: a.var(1),
        lambda a: a.std(1, correction=2),
        lambda a: torch.var_mean(a, 1),
        lambda a: torch.std_mean(a, 1, correction=3),
    ],
)
@pytest.mark.parametrize("rows", [0, 1, 2])
def test_a_variance_over_no_more_elements_than_its_correction_is_nan(statistic, rows):
    """ATen divides by max(0, N - correction), so 0 / 0 = NaN; dividing by a negative
    N - correction gave -0.0 (an empty row) or a negative variance instead."""
    _check(statistic, torch.randn(3, rows, 4))


@pytest.mark.parametrize(
    "reduce",
    [
        lambda a: (a > 0).any(),
        lambda a: a.all(),
        lambda a: a.any(dim=0),
        lambda a: a.all(dim=0, keepdim=True),
        lambda a: torch.any(a, dim=(0, 1)),
    ],
)
def test_any_and_all_of_no_elements_are_false_and_true(reduce):
    """As in ATen; the maximum or minimum they were reduced with has no value there
    (the kernel refused an empty reduction, and the call went to eager)."""
    _check(reduce, torch.randn(0, 3), atol=0)


def test_argmax_and_argmin_pick_the_first_extreme_and_nan():
    """Ties give the first position and a NaN is the extreme, as in ATen; no dimension
    means a position in the flattened input."""
    x = torch.tensor([[1.0, 3.0, 3.0, -2.0], [0.5, float("nan"), 7.0, -2.0], [4.0, 4.0, 4.0, 4.0]])
    for fn in (
        lambda a: a.argmax(-1),
        lambda a: a.argmin(0, keepdim=True),
        lambda a: a.argmax(),
        lambda a: torch.argmin(a, keepdim=True),
    ):
        imported = _check(fn, x, atol=0)
        assert {"hl.argmax", "hl.argmin"} & set(_ops(imported))
    # A sequence-classification head's last real token (an int32 row of positions).
    ids = torch.tensor([[5, 6, 7, 0, 0], [1, 2, 3, 4, 5]])
    _check(lambda i: (torch.arange(5, dtype=torch.int32) * (i != 0).int()).argmax(-1), ids)


def test_max_and_min_along_a_dimension_give_values_and_first_indices():
    x = torch.tensor([[1.0, 3.0, 3.0, -2.0], [0.5, float("nan"), 7.0, -2.0], [4.0, 4.0, 4.0, 4.0]])
    imported = _check(lambda a: torch.max(a, -1), x, atol=0)
    # the values are the elements at the indices (a -0.0 of a tie of zeros stays -0.0)
    assert {"hl.argmax", "hl.index"} <= set(_ops(imported))
    assert "hl.amax" not in _ops(imported)
    _check(lambda a: torch.min(a, 0, keepdim=True), x, atol=0)
    imported = _check(lambda a: a.max(1).values * 2 + a.amin(0).sum(), x, atol=0)
    assert _ops(imported).count("hl.argmax") == 1
    imported = _check(lambda a: a.min(-1).indices, x, atol=0)
    assert "hl.index" not in _ops(imported)  # values nobody reads are not gathered


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.flip(x, (-1,)),
        lambda x: torch.flip(x, (0, 2)),
        lambda x: torch.roll(x, 3, -1),
        lambda x: torch.roll(x, (1, -5, 9), (0, 1, 2)),
        lambda x: torch.roll(x, 7),
        lambda x: torch.roll(x, 0, 1),
        lambda x: torch.rot90(x, 1, (1, 2)),
        lambda x: torch.rot90(x, -1, (0, 2)),
    ],
    ids=[
        "flip-last",
        "flip-two",
        "roll",
        "roll-three",
        "roll-flat",
        "roll-0",
        "rot90",
        "rot90-neg",
    ],
)
def test_flips_rolls_and_rotations_move_every_element_as_torch_does(fn):
    x = torch.randn(2, 3, 5)
    imported = _check(fn, x, atol=0)
    assert not any(name.startswith("hl.fused") for name in _ops(imported))


def _conv(x_shape, w_shape, bias=True, **options):
    """A convolution of random x and weight (and bias) as `F.conv1d` / `F.conv2d`."""
    return _conv_any(x_shape, w_shape, bias, **options)


@pytest.mark.parametrize(
    "case",
    [
        ((2, 3, 16, 16), (16, 3, 4, 4), True, {"stride": 4}),
        ((2, 3, 18, 11), (16, 3, 4, 2), True, {"stride": (4, 2)}),  # a ragged last patch
        ((1, 3, 8, 8), (8, 3, 2, 2), False, {"stride": 2}),
        ((2, 8, 5, 7), (4, 8, 1, 1), True, {}),
        ((2, 4, 12), (6, 4, 3), True, {"stride": 3}),
        ((2, 4, 9), (6, 4, 1), True, {}),
    ],
    ids=["patch", "ragged", "no-bias", "1x1", "conv1d-patch", "conv1d-1"],
)
def test_a_convolution_striding_by_its_kernel_is_a_matrix_product(case):
    x_shape, w_shape, bias, options = case
    fn, arguments = _conv(x_shape, w_shape, bias, **options)
    imported = _check(fn, *arguments, atol=1e-5)
    assert "hl.matmul" in _ops(imported)


def _conv_any(x_shape, w_shape, bias=True, dtype=torch.float32, **options):
    """`_conv` for 1-d, 2-d and 3-d inputs, in `dtype`."""
    torch.manual_seed(0)
    conv = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}[len(x_shape)]
    arguments = [torch.randn(x_shape), torch.randn(w_shape)]
    if bias:
        arguments.append(torch.randn(w_shape[0]))
    return (lambda *a: conv(*a, **options)), [a.to(dtype) for a in arguments]


WINDOWED = {
    "padded": ((1, 3, 8, 8), (8, 3, 3, 3), {"padding": 1}),
    "overlapping": ((1, 3, 8, 8), (8, 3, 2, 2), {"stride": 1}),
    "grouped": ((1, 4, 8), (4, 2, 1), {"groups": 2}),
    "dilated": ((1, 4, 8), (4, 4, 2), {"stride": 2, "dilation": 2}),
    "depthwise-causal": ((2, 6, 9), (6, 1, 4), {"groups": 6, "padding": 3}),
    "depthwise-multiplier": ((2, 6, 9), (12, 1, 4), {"groups": 6, "padding": 3}),
    "depthwise-7x7": ((2, 8, 7, 9), (8, 1, 7, 7), {"groups": 8, "padding": 3}),
    "stem-7x7-stride-2": ((2, 3, 15, 13), (8, 3, 7, 7), {"stride": 2, "padding": 3}),
    "grouped-mixed": (
        (2, 8, 11, 10),
        (12, 2, 3, 3),
        {"groups": 4, "padding": (1, 2), "stride": (2, 1), "dilation": (1, 2)},
    ),
    "same": ((1, 4, 9, 8), (6, 4, 4, 3), {"padding": "same"}),
    "valid-strided-depthwise": (
        (1, 4, 9, 9),
        (4, 1, 3, 3),
        {"stride": 2, "padding": "valid", "groups": 4},
    ),
    "conv3d": ((1, 2, 5, 6, 7), (4, 2, 3, 2, 3), {"padding": 1, "stride": (1, 2, 1)}),
    "conv3d-patch": ((1, 2, 8, 8, 8), (4, 2, 2, 2, 2), {"stride": 2}),
}


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
@pytest.mark.parametrize("case", sorted(WINDOWED))
def test_every_convolution_is_imported_as_windows_and_a_product(case, bias):
    """Padding, overlapping and dilated windows, groups and depthwise kernels: the
    windows gathered with strided slices, then a product (or, depthwise, a sum)."""
    x_shape, w_shape, options = WINDOWED[case]
    fn, arguments = _conv_any(x_shape, w_shape, bias, **options)
    imported = _check(fn, *arguments, atol=2e-5)
    assert {"hl.matmul", "hl.sum"} & set(_ops(imported))


@pytest.mark.parametrize("case", ["stem-7x7-stride-2", "depthwise-causal", "grouped-mixed"])
def test_a_half_precision_convolution_stays_within_a_rounding_of_torchs(case):
    x_shape, w_shape, options = WINDOWED[case]
    fn, arguments = _conv_any(x_shape, w_shape, dtype=torch.bfloat16, **options)
    gm = _trace(fn, *arguments)
    imported = import_graph(gm, {})
    (got,) = interpret(imported.module, [arguments[i] for i in imported.arguments])
    want = fn(*arguments)
    exact = fn(*[a.double() for a in arguments])
    assert got.dtype == torch.bfloat16
    # as close to the f64 convolution as torch's own bf16 convolution is, within a ulp
    ulp = exact.abs().clamp_min(1.0) * 2**-7
    assert ((got.double() - exact).abs() <= (want.double() - exact).abs() + ulp).all()


TRANSPOSED = {
    "stride-2": ((1, 4, 5, 5), (4, 6, 3, 3), {"stride": 2}),
    "mixed": (
        (2, 4, 5, 6),
        (4, 3, 3, 2),
        {
            "stride": (2, 3),
            "padding": (1, 0),
            "output_padding": (1, 2),
            "groups": 2,
            "dilation": (1, 2),
        },
    ),
    "1d-padded": ((2, 4, 7), (4, 5, 4), {"stride": 2, "padding": 1}),
    "1d-stride-1": ((2, 4, 7), (4, 5, 4), {"stride": 1, "padding": 3}),
    "1d-depthwise": ((2, 4, 7), (4, 1, 4), {"stride": 2, "padding": 1, "groups": 4}),
    "3d": ((1, 2, 3, 4, 3), (2, 3, 2, 2, 2), {"stride": 2}),
    "padding-past-kernel": ((2, 4, 7), (4, 5, 2), {"stride": 2, "padding": 2, "output_padding": 1}),
}


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
@pytest.mark.parametrize("case", sorted(TRANSPOSED))
def test_a_transposed_convolution_is_the_convolution_of_its_spread_input(case, bias):
    x_shape, w_shape, options = TRANSPOSED[case]
    torch.manual_seed(0)
    conv = {3: F.conv_transpose1d, 4: F.conv_transpose2d, 5: F.conv_transpose3d}[len(x_shape)]
    arguments = [torch.randn(x_shape), torch.randn(w_shape)]
    if bias:
        arguments.append(torch.randn(w_shape[1] * options.get("groups", 1)))
    imported = _check(lambda *a: conv(*a, **options), *arguments, atol=2e-5)
    assert {"hl.matmul", "hl.sum"} & set(_ops(imported))


def _pool_input(dtype=torch.float32):
    """A [2, 3, 9, 10] input with NaN (one and two in a window) and a -inf corner."""
    torch.manual_seed(0)
    x = torch.randn(2, 3, 9, 10)
    x[0, 0, 0, 0] = float("nan")
    x[0, 1, :4, :4] = float("-inf")
    x[1, 2, 2, 2] = x[1, 2, 3, 3] = float("nan")
    return x.to(dtype)


MAX_POOLS = {
    "3-2-1": lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True),
    "2": lambda t: F.max_pool2d(t, 2, return_indices=True),
    "ceil": lambda t: F.max_pool2d(t, 3, 2, 0, ceil_mode=True, return_indices=True),
    "ceil-padded": lambda t: F.max_pool2d(t, 2, 2, 1, ceil_mode=True, return_indices=True),
    "dilated": lambda t: F.max_pool2d(t, 3, 1, 1, dilation=2, return_indices=True),
    "unbatched": lambda t: F.max_pool2d(t[0], 3, 2, 1, return_indices=True),
    "window-past-the-input": lambda t: F.max_pool2d(t[:, :, :2, :1], 5, 1, 2, return_indices=True),
    "1d": lambda t: F.max_pool1d(t.flatten(2), 4, 3, 1, return_indices=True),
    "3d": lambda t: F.max_pool3d(t.unsqueeze(1), 2, return_indices=True),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("case", sorted(MAX_POOLS))
def test_max_pool_takes_torchs_values_and_indices_with_nan_and_infinities(case, dtype):
    """NaN wins (the last one in its window gives the index), a window of -inf gives its
    first input position, padding never wins: the bits and indices ATen's kernel has."""
    fn, x = MAX_POOLS[case], _pool_input(dtype)
    imported = import_graph(_trace(fn, x), {})
    got = interpret(imported.module, [x])
    for g, w in zip(got, fn(x), strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert torch.equal(g.nan_to_num(0.0), w.nan_to_num(0.0))
        assert torch.equal(g.isnan(), w.isnan())


AVG_POOLS = {
    "2": lambda t: F.avg_pool2d(t, 2),
    "3-1-1": lambda t: F.avg_pool2d(t, 3, 1, 1),
    "exclude-padding": lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
    "divisor": lambda t: F.avg_pool2d(t, 3, 2, 1, divisor_override=5),
    "ceil-no-partial": lambda t: F.avg_pool2d(t[:, :, :8, :8], 2, 2, 0, ceil_mode=True),
    "1d": lambda t: F.avg_pool1d(t.flatten(2), 4, 3, 1),
    "3d": lambda t: F.avg_pool3d(t.unsqueeze(1), 2),
    "unbatched": lambda t: F.avg_pool2d(t[0], 3, 2, 1),
    "window-past-the-input": lambda t: F.avg_pool2d(t[:, :, :2, :1], 5, 1, 2),
    "window-past-the-input-ceil": lambda t: F.avg_pool2d(
        t[:, :, :4, :3], 5, 3, 2, ceil_mode=True, count_include_pad=False
    ),
}


@pytest.mark.parametrize("case", sorted(AVG_POOLS))
def test_avg_pool_divides_each_window_as_torch_does(case):
    x = _pool_input().nan_to_num(0.0, 0.0, 0.0)
    _check(AVG_POOLS[case], x, atol=1e-6)


def test_a_pool_window_larger_than_its_input_gathers_only_what_meets_the_input():
    """EfficientNet pools its last 1 x 1 map with `AvgPool2d(2560, ceil_mode=True)`:
    6.5 million kernel offsets, all but one reading only padding. The decomposition
    gathers that one (it took minutes, and would have padded to 2560 x 2560, before)."""
    x = torch.randn(2, 16, 1, 1)
    for fn in (
        lambda t: F.avg_pool2d(t, 2560, ceil_mode=True),
        lambda t: F.max_pool2d(t, 2560, ceil_mode=True),
    ):
        imported = _check(fn, x, atol=0)
        assert _ops(imported).count("hl.slice") <= 2


def test_a_pool_or_convolution_of_more_window_offsets_than_the_limit_stays_in_eager():
    """An average over a whole 40 x 40 map as one window is 1600 offsets, each a slice
    in the program: over `MAX_WINDOW_OFFSETS`, ATen's own kernel runs it."""
    pooled = _trace(lambda t: F.avg_pool2d(t, 40), torch.randn(1, 2, 40, 40))
    convolved = _trace(
        lambda t, w: F.conv2d(t, w, padding=16),
        torch.randn(1, 2, 40, 40),
        torch.randn(2, 2, 33, 33),
    )
    for gm, target in (
        (pooled, torch.ops.aten.avg_pool2d.default),
        (convolved, torch.ops.aten.convolution.default),
    ):
        (node,) = gm.graph.find_nodes(op="call_function", target=target)
        assert unsupported_reason(node) is not None
    _check(lambda t: F.avg_pool2d(t, 32), torch.randn(1, 2, 32, 32), atol=1e-6)  # 1024: imported


@pytest.mark.parametrize("divisor", [None, 3], ids=["counted", "override"])
@pytest.mark.parametrize("count_include_pad", [True, False], ids=["with-padding", "input-only"])
@pytest.mark.parametrize(
    "window", [(2, 2, 0), (3, 2, 1), (2, 3, 1), ((3, 2), (2, 1), (1, 0)), (4, 3, 2)]
)
def test_avg_pool_divides_a_partial_ceil_window_by_what_it_covers(
    window, count_include_pad, divisor
):
    """A `ceil_mode` window cut by the padded input's end: ATen divides by its positions
    inside the padded input (or inside the input, without `count_include_pad`)."""
    kernel, stride, padding = window
    x = _pool_input().nan_to_num(0.0, 0.0, 0.0)
    _check(
        lambda t: F.avg_pool2d(
            t, kernel, stride, padding, True, count_include_pad, divisor_override=divisor
        ),
        x,
        atol=1e-6,
    )


GATHERS = {
    "nearest": lambda t: F.interpolate(t, scale_factor=2, mode="nearest"),
    "nearest-1d": lambda t: F.interpolate(t.flatten(2), size=37, mode="nearest"),
    "bilinear": lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"),
    "bilinear-corners": lambda t: F.interpolate(
        t, size=(5, 13), mode="bilinear", align_corners=True
    ),
    "reflect": lambda t: F.pad(t, (1, 2, 3, 1), mode="reflect"),
    "replicate": lambda t: F.pad(t, (1, 2, 3, 1), mode="replicate"),
    "unfold": lambda t: F.unfold(t, 3, padding=1, stride=2),
    "pixel-shuffle": lambda t: F.pixel_shuffle(t.repeat(1, 4, 1, 1), 2),
    "glu": lambda t: F.glu(t, 1),
    "rows-of-columns": lambda t: t[:, :, torch.arange(4).reshape(2, 2) * 2, torch.arange(2) + 1],
}


@pytest.mark.parametrize("case", sorted(GATHERS))
def test_gathers_that_take_leading_dimensions_whole_are_imported(case):
    """Index tensors after whole dimensions (`x[:, :, rows, columns]`): upsampling,
    reflection and replication padding, unfold, reach lumir as one `hl.index`."""
    x = _pool_input().nan_to_num(0.0, 0.0, 0.0)[:, :2]
    imported = _check(GATHERS[case], x, atol=1e-6)
    assert not any(name.startswith("hl.fused") for name in _ops(imported))


def test_an_index_tensor_after_a_skipped_dimension_stays_in_eager():
    """torch puts the indexed dimensions first when a None separates index tensors."""
    x = torch.randn(3, 4, 5)
    gm = _trace(lambda t: t[torch.arange(2) * 2, :, torch.arange(2) + 1], x)
    (node,) = [n for n in gm.graph.nodes if n.target == torch.ops.aten.index.Tensor]
    assert "between index tensors" in str(unsupported_reason(node))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize(
    "op", [torch.floor, torch.ceil, torch.round, torch.trunc, torch.sign, torch.atan, torch.tan]
)
def test_rounding_sign_and_trig_give_torchs_bits_with_halves_and_specials(op, dtype):
    """Halves round to even, NaN's sign is 0, infinities and -0.0 as torch has them."""
    specials = [-2.5, -0.5, 0.5, 1.5, 2.5, -0.0, float("nan"), float("inf"), float("-inf")]
    x = torch.cat([torch.tensor(specials), torch.randn(55) * 4]).reshape(8, 8).to(dtype)
    gm = _trace(op, x)
    imported = import_graph(gm, {})
    (got,) = interpret(imported.module, [x])
    want = op(x)
    assert torch.equal(
        got.view(torch.int16 if dtype == torch.bfloat16 else torch.int32),
        want.view(torch.int16 if dtype == torch.bfloat16 else torch.int32),
    )


def test_nan_to_num_replaces_nan_and_both_infinities():
    x = torch.tensor([[1.0, float("nan"), float("inf")], [float("-inf"), -2.0, 0.0]])
    for dtype in (torch.float32, torch.bfloat16):
        _check(lambda a: torch.nan_to_num(a), x.to(dtype), atol=0)
        _check(lambda a: torch.nan_to_num(a, nan=0.5, posinf=9.0, neginf=-9.0), x.to(dtype), atol=0)


def test_logical_not_and_bitwise_not_of_a_mask():
    """DeBERTa inverts its attention mask with `~mask`; NaN is true, as in ATen."""
    x = torch.tensor([[0.0, 1.5, float("nan")], [-0.0, -2.0, 0.25]])
    _check(lambda a: torch.logical_not(a), x, atol=0)
    _check(lambda a: torch.logical_not(a), torch.tensor([0, 3, -1]), atol=0)
    imported = _check(lambda a: (~(a > 0)).to(a.dtype) * a, x.nan_to_num(), atol=0)
    assert "hl.compare" in _ops(imported)
    gm = _trace(lambda a: ~a, torch.tensor([1, 2], dtype=torch.int32))
    (invert,) = (n for n in gm.graph.nodes if n.target == torch.ops.aten.bitwise_not.default)
    assert "not a bool tensor" in unsupported_reason(invert)
    gm = _trace(lambda a: (a > 0) | 1, torch.tensor([1.0, -2.0]))  # an int64 result
    (integer_or,) = (n for n in gm.graph.nodes if n.target == torch.ops.aten.bitwise_or.Scalar)
    assert "not a bool tensor or a bool" in unsupported_reason(integer_or)
    _check(lambda a: (a > 1) | (a < -1), torch.randn(8), atol=0)
    _check(lambda a: torch.isnan(a), x, atol=0)


def test_safe_softmax_is_zero_on_fully_masked_rows():
    x = torch.randn(3, 6)
    x[1] = float("-inf")  # a fully masked row: 0, where plain softmax gives NaN
    _check(lambda a: torch.ops.aten._safe_softmax(a, -1), x)
    _check(lambda a: torch.ops.aten._safe_softmax(a.to(torch.bfloat16), 1), x, atol=2**-8)


def test_reductions_softmax_and_casts():
    x = torch.randn(2, 3, 4)
    _check(lambda a: (a.pow(2).mean(-1, keepdim=True), a.sum([0, 2]), a.amax(1)), x)
    _check(lambda a: torch.softmax(a.to(torch.bfloat16), -1).to(torch.float32), x)


def test_views_become_shape_ops():
    x = torch.randn(2, 3, 4)
    imported = _check(
        lambda a: (
            a.view(6, 4).t(),
            a.permute(2, 0, 1),
            a.unsqueeze(1).expand(2, 5, 3, 4),
            a[:, 1:, ::2],
            a.select(1, 2),
        ),
        x,
    )
    ops = set(_ops(imported))
    assert {"hl.reshape", "hl.transpose", "hl.expand", "hl.slice"} <= ops


def test_layer_norm_and_its_statistics_import_without_prims_left():
    """torch's layer-norm decomposition is written with prims (var, sum, div,
    broadcast_in_dim); every one of them imports, in f32 and through bf16."""
    x, w, b = torch.randn(2, 3, 16), torch.randn(16), torch.randn(16)
    imported = _check(lambda a, c, d: F.layer_norm(a, (16,), c, d, 1e-5), x, w, b, atol=1e-5)
    assert {"hl.mean", "hl.sum"} <= set(_ops(imported))
    _check(lambda a: F.layer_norm(a, (3, 16)), x, atol=1e-5)  # two normalised dims
    _check(lambda a: torch.var_mean(a, [0, 2], correction=1), x, atol=1e-5)
    _check(lambda a: (torch.var(a, -1), torch.std(a, 1, keepdim=True)), x, atol=1e-5)
    half = x.to(torch.bfloat16), w.to(torch.bfloat16), b.to(torch.bfloat16)
    _check(lambda a, c, d: F.layer_norm(a, (16,), c, d), *half, atol=2**-7)
    _check(lambda a: torch.ops.prims.convert_element_type(a, torch.bfloat16), x, atol=0)


def test_a_variance_over_too_few_elements_is_nan_as_in_torch():
    x = torch.randn(3, 1)
    imported = import_graph(_trace(lambda a: torch.var(a, -1), x), {})
    (got,) = interpret(imported.module, [x])
    assert got.shape == (3,) and bool(torch.isnan(got).all())


def test_splits_become_one_slice_per_piece_read():
    x = torch.randn(2, 10, 6)
    imported = _check(
        lambda a: (
            *a.split(4, 1),
            *a.split_with_sizes([1, 5], -1),
            *a.chunk(3, 2),
            *a.unbind(0),
        ),
        x,
    )
    assert "hl.slice" in _ops(imported)
    unread = _check(lambda a: a.split(3, 1)[1] * 2, x)  # only the piece read is sliced
    _check(lambda a: (torch.stack([a, -a], -1), a.repeat(2, 1, 3)), x)  # torch decomposes
    assert _ops(unread).count("hl.slice") == 1


def test_matmuls_and_linear():
    x, w, b = torch.randn(2, 3, 8), torch.randn(5, 8), torch.randn(5)
    imported = _check(lambda a, c, d: F.linear(a, c, d), x, w, b)
    assert "hl.matmul" in _ops(imported)
    _check(lambda a, c: torch.bmm(a, c), torch.randn(2, 3, 4), torch.randn(2, 4, 5))


def test_vector_products_are_matmuls():
    """mv, dot, vdot and addmv are products too: each is one hl.matmul on a one-column
    matrix (torch's decompositions would make them a multiply and a sum). A real vdot
    is a dot (spectral norm's sigma)."""
    m, v, u, c = torch.randn(5, 8), torch.randn(8), torch.randn(8), torch.randn(5)
    for fn, inputs in (
        (torch.mv, (m, v)),
        (torch.dot, (v, u)),
        (torch.vdot, (v, u)),
        (lambda a, b, d: torch.addmv(a, b, d, beta=0.5, alpha=2.0), (c, m, v)),
    ):
        imported = _check(fn, *inputs, atol=1e-5)
        assert _ops(imported).count("hl.matmul") == 1
        assert "hl.sum" not in _ops(imported)
    nan = torch.full((5,), float("nan"))  # beta = 0 ignores the bias, NaN and all
    imported = _check(lambda a, b, d: torch.addmv(a, b, d, beta=0), nan, m, v)
    assert _ops(imported).count("hl.matmul") == 1


def test_int32_arithmetic_counts_and_casts_as_torch_does():
    """RoBERTa's position ids: a mask cast to int32, counted with cumsum (which torch
    widens to int64), cast back, offset, multiplied; Bloom's int32 ALiBi exponents."""
    ids = torch.tensor([[5, 7, 1, 1], [1, 9, 9, 3]])

    def positions(i):
        mask = i.ne(1).int()
        return (torch.cumsum(mask, dim=1).type_as(mask) + 2) * mask + 1

    _check(positions, ids)
    x = torch.randn(2, 4)
    _check(lambda a: torch.pow(0.5, torch.arange(1, 5, dtype=torch.int32)) * a, x)
    _check(lambda a, b: torch.where(a > b, a - b, b * 3).sum(0), *ids.int().unbind(0))


def test_an_integer_matrix_product_stays_in_eager():
    """cuBLASLt has no integer product; the row says so instead of failing later."""
    a = torch.randint(-5, 5, (4, 8), dtype=torch.int32)
    gm = _trace(lambda x, y: x @ y, a, a.T.contiguous())
    (mm,) = (n for n in gm.graph.nodes if n.target == torch.ops.aten.mm.default)
    assert "torch.int32 matrix product has no cuBLASLt lowering" in unsupported_reason(mm)


def test_comparisons_where_and_full():
    x = torch.randn(4, 4)
    _check(lambda a: torch.where(a > 0, a, torch.zeros(4, 4)) + (a == a).to(a.dtype), x)


def test_embedding_and_cat_dropping_empty_inputs():
    table, idx = torch.randn(10, 4), torch.tensor([[1, 2, 3]])
    empty = torch.zeros(1, 0, 4)
    imported = _check(lambda t, i, e: torch.cat([e, F.embedding(i, t)], 1), table, idx, empty)
    assert "hl.cat" not in _ops(imported)


def test_grouped_query_attention_is_one_sdpa():
    q = torch.randn(1, 4, 5, 8)
    k, v = torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)

    def attention(a, b, c):
        return F.scaled_dot_product_attention(a, b, c, is_causal=True, enable_gqa=True)

    imported = _check(attention, q, k, v, atol=0.0)
    assert _ops(imported) == ["hl.sdpa"]  # key and value are read grouped, not repeated
    (sdpa,) = (op for op in imported.module.walk() if op.name == "hl.sdpa")
    assert "enable_gqa" in sdpa.properties


def test_unsupported_nodes_say_why():
    gm = _trace(lambda a: torch.lgamma(a) + a.to(torch.int16).sum(), torch.randn(3))
    reasons = {
        str(n.target): unsupported_reason(n) for n in gm.graph.nodes if n.op == "call_function"
    }
    assert reasons["aten.lgamma.default"] == "no import rule"
    assert "torch.int16" in reasons["aten._to_copy.default"]
    with pytest.raises(UnsupportedNodeError, match=r"aten\.lgamma"):
        import_graph(gm, {})


SCATTERS = {
    "slice-scatter-middle": lambda t: torch.slice_scatter(t, t[:, :, 2:5] * 2, 2, 2, 5),
    "slice-scatter-head": lambda t: torch.slice_scatter(t, -t[:, :1], 1, 0, 1),
    "slice-scatter-tail": lambda t: torch.slice_scatter(t, t[..., :3] + 1, -1, -3),
    "copy-broadcast-cast": lambda t: torch.ops.aten.copy(t, t[0, 0, 0].to(torch.bfloat16)),
    "select-scatter-middle": lambda t: torch.select_scatter(t, t[:, 1] * 2, 1, 1),
    "select-scatter-last": lambda t: torch.select_scatter(t, t[..., 0] + 1, -1, -1),
}


@pytest.mark.parametrize("case", sorted(SCATTERS))
def test_slice_scatters_and_copies_are_cats_and_casts(case):
    """A `slice_scatter` is a `cat` of slices, a functional `copy` a cast and broadcast
    (circular padding, written with both, is in test_backend_windows.py)."""
    x = _pool_input().nan_to_num(0.0, 0.0, 0.0)[:, :2]
    imported = _check(SCATTERS[case], x, atol=0)
    assert not any(name.startswith("hl.fused") for name in _ops(imported))


def test_a_strided_slice_scatter_is_a_where_over_the_positions_it_writes():
    """The importer has no rule for a step above 1; lumir's decomposition
    (`_slice_scatter`) leaves no slice_scatter in the graph."""
    x = torch.randn(4, 6)
    fn = lambda t: torch.slice_scatter(t, t[:, ::2] * 2, 1, 0, 6, 2)  # noqa: E731
    gm = _trace(fn, x)
    assert not [n for n in gm.graph.nodes if n.target == torch.ops.aten.slice_scatter.default]
    assert {"hl.index", "hl.where"} <= set(_ops(_check(fn, x, atol=0)))


def test_as_strided_of_a_contiguous_tensor_reads_its_row_major_positions():
    """A restride (torch's decompositions' `as_strided` to the same layout) is a reshape;
    overlapping, broadcast (stride 0) and offset windows are one `hl.index`."""
    x = torch.randn(2, 3, 4)
    cases = [
        (lambda t: torch.as_strided(t + 1, (2, 12), (12, 1)), "hl.reshape"),
        (lambda t: torch.as_strided(t + 1, (3, 4, 2), (1, 3, 12)), "hl.index"),
        (lambda t: torch.as_strided(t + 1, (2, 2, 5), (6, 1, 2), 3), "hl.index"),
        (lambda t: torch.as_strided(t + 1, (2, 3, 4), (0, 4, 1)), "hl.index"),
        (lambda t: (t + 1).unfold(2, 2, 1), "hl.index"),
    ]
    for fn, op in cases:
        assert op in _ops(_check(fn, x, atol=0))


def test_as_strided_of_a_view_stays_in_eager():
    x = torch.randn(2, 3, 4)
    gm = _trace(lambda t: torch.as_strided(t[:, 1:], (2, 2), (1, 1)), x)
    (node,) = [n for n in gm.graph.nodes if n.target == torch.ops.aten.as_strided.default]
    assert "of a view" in str(unsupported_reason(node))


def test_whole_tensor_max_and_min_reduce_every_dimension():
    """`torch.max(t)` / `torch.min(t)` with no dim (XLM scales by one) are 0-d results."""
    x = _pool_input().nan_to_num(0.0, 0.0, 0.0)
    imported = _check(lambda t: t / torch.max(t) - torch.min(t), x, atol=0)
    assert {"hl.amax", "hl.amin"} <= set(_ops(imported))


INTEGER_DIVISIONS = {
    "floor-divide": lambda x, y: torch.floor_divide(x, y),
    "div-floor": lambda x, y: torch.div(x, y, rounding_mode="floor"),
    "div-trunc": lambda x, y: torch.div(x, y, rounding_mode="trunc"),
    "div-trunc-scalar": lambda x, y: torch.div(x, -4, rounding_mode="trunc"),
    "remainder": lambda x, y: torch.remainder(x, y),
    "remainder-scalar": lambda x, y: x % -4,
    "number-remainder": lambda x, y: torch.remainder(-7, y),
    "hash-buckets": lambda x, y: (x * 31 + 5) % 64,
    "i32": lambda x, y: torch.remainder(x.int(), y.int()) + x.int() // 3,
}


@pytest.mark.parametrize("case", sorted(INTEGER_DIVISIONS))
def test_integer_division_rounds_toward_negative_infinity_as_python(case):
    """Every sign of dividend and divisor, exact and inexact: torch's integers."""
    x = torch.arange(-12, 12).reshape(4, 6)
    y = torch.tensor([3, -3, 5, -5, 7, 1])
    imported = _check(INTEGER_DIVISIONS[case], x, y, atol=0)
    assert {"hl.floor_divide", "hl.remainder"} & set(_ops(imported))


def test_f32_floor_division_and_remainder_are_imported():
    x = torch.randn(4, 6) * 10
    imported = _check(lambda t: (t // 0.5, t % 0.7, 3.0 % t), x, atol=0)
    assert {"hl.floor_divide", "hl.remainder"} <= set(_ops(imported))


def test_half_floor_division_stays_in_eager_and_its_remainder_is_imported():
    """ATen's CPU kernel rounds a half floor division one way in its vectorised loop and
    another in its scalar one; its remainder is the same in both."""
    x = torch.randn(4, 6, dtype=torch.bfloat16)
    gm = _trace(lambda t: (t // 0.5, torch.div(t, 3, rounding_mode="trunc"), t % 0.5), x)
    reasons = [unsupported_reason(n) for n in gm.graph.nodes if n.op == "call_function"]
    assert [r for r in reasons if r] == [
        f"a {mode} division of torch.bfloat16, whose value in ATen's CPU kernel depends on "
        "the layout (its vectorised and scalar loops round differently)"
        for mode in ("floor", "trunc")
    ]


@pytest.mark.parametrize("size", [4, (5, 3), 1, (9, 10)])
def test_adaptive_average_pooling_to_any_size_is_imported(size):
    """Output sizes that do not divide the input: windows bounded by integer divisions."""
    x = _pool_input().nan_to_num(0.0, 0.0, 0.0)
    _check(lambda t: F.adaptive_avg_pool2d(t, size), x, atol=1e-6)


ANY_ALL = {
    "any": lambda t, m: torch.any(m),
    "all": lambda t, m: torch.all(m),
    "any-dim": lambda t, m: m.any(1),
    "all-keepdim": lambda t, m: m.all(-1, keepdim=True),
    "any-of-floats-with-nan": lambda t, m: t.any(),
    "all-of-floats": lambda t, m: t.all(2),
    "any-dims": lambda t, m: torch.any(m, dim=(0, 2)),
    "all-dims": lambda t, m: (t == 0).all(dim=(1, 2)),
}


@pytest.mark.parametrize("case", sorted(ANY_ALL))
def test_any_and_all_reduce_truth_as_torch_does(case):
    """Bool and float inputs (NaN is true, a slice of zeros false), whole or by dims."""
    x = torch.randn(3, 4, 5)
    x[0, 0, 0] = float("nan")
    x[1] = 0
    _check(ANY_ALL[case], x, x > 0.5, atol=0)
