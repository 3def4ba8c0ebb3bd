"""`lumir.dialects.hl.infer` against ATen, and the builders and verifiers that share it.

The importer turns ATen ops into `hl` ops with these functions, so each one must give
the shape torch gives (checked on `meta` tensors, which carry shapes without data) and
refuse what torch refuses.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import StringAttr, TensorType, bf16, f32, i1, i64
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from lumir.dialects import hl
from lumir.dialects.hl import infer

dims = st.integers(min_value=1, max_value=4)
shapes = st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=4).map(tuple)


def meta(shape: tuple[int, ...], dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.empty(shape, device="meta", dtype=dtype)


def tensor(shape: tuple[int, ...], element=f32) -> TensorType:
    return TensorType(element, list(shape))


def torch_shape(fn) -> tuple[int, ...] | None:
    """The shape torch computes, or None where torch refuses the shapes."""
    try:
        return tuple(fn().shape)
    except (RuntimeError, IndexError, ValueError):
        return None


def inferred_shape(fn) -> tuple[int, ...] | None:
    try:
        return tuple(fn().get_shape())
    except infer.TypeInferenceError:
        return None


@settings(max_examples=150, deadline=None)
@given(shapes, shapes)
def test_elementwise_broadcast_matches_torch(a, b):
    expected = torch_shape(lambda: torch.add(meta(a), meta(b)))
    assert inferred_shape(lambda: infer.elementwise_type(tensor(a), tensor(b))) == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(dims, min_size=2, max_size=4), st.lists(dims, min_size=2, max_size=4))
def test_matmul_matches_torch(a, b):
    a, b = tuple(a), tuple(b)
    expected = torch_shape(lambda: torch.matmul(meta(a), meta(b)))
    assert inferred_shape(lambda: infer.matmul_type(tensor(a), tensor(b))) == expected


@settings(max_examples=150, deadline=None)
@given(
    st.lists(dims, min_size=1, max_size=4).map(tuple),
    st.lists(st.integers(-4, 3), max_size=3),
    st.booleans(),
)
def test_reduction_matches_torch(shape, reduce, keepdim):
    expected = torch_shape(lambda: torch.sum(meta(shape), dim=reduce or None, keepdim=keepdim))
    got = inferred_shape(lambda: infer.reduction_type(tensor(shape), reduce, keepdim))
    assert got == expected


@settings(max_examples=150, deadline=None)
@given(
    st.lists(dims, min_size=1, max_size=4).map(tuple),
    st.one_of(st.none(), st.integers(-5, 4)),
    st.booleans(),
)
def test_argmax_matches_torch(shape, dim, keepdim):
    """One dimension or none (the flattened input), keepdim or not: torch's shapes."""
    expected = torch_shape(lambda: torch.argmax(meta(shape), dim=dim, keepdim=keepdim))
    dims = [] if dim is None else [dim]
    got = inferred_shape(lambda: infer.arg_reduction_type(tensor(shape), dims, keepdim))
    assert got == expected
    if got is not None:
        assert infer.arg_reduction_type(tensor(shape), dims, keepdim).element_type == i64


@settings(max_examples=150, deadline=None)
@given(
    st.lists(dims, min_size=1, max_size=3).map(tuple),
    st.integers(-3, 2),
    st.integers(-6, 6),
    st.integers(-6, 6),
    st.integers(1, 3),
)
def test_slice_matches_torch(shape, dim, start, end, step):
    def sliced():
        index = [slice(None)] * len(shape)
        index[dim] = slice(start, end, step)
        return meta(shape)[tuple(index)]

    expected = torch_shape(sliced)
    got = inferred_shape(lambda: infer.slice_type(tensor(shape), dim, start, end, step))
    assert got == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(dims, min_size=1, max_size=4).map(tuple), st.randoms(use_true_random=False))
def test_transpose_matches_torch(shape, random):
    permutation = list(range(len(shape)))
    random.shuffle(permutation)
    expected = meta(shape).permute(permutation).shape
    assert infer.transpose_type(tensor(shape), permutation).get_shape() == tuple(expected)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(dims, min_size=1, max_size=3).map(tuple), min_size=1, max_size=3), dims)
def test_cat_matches_torch(inputs, dim):
    dim = dim - 2
    expected = torch_shape(lambda: torch.cat([meta(s) for s in inputs], dim))
    got = inferred_shape(lambda: infer.cat_type([tensor(s) for s in inputs], dim))
    assert got == expected


def test_sdpa_and_embedding_match_torch():
    q, k, v = (2, 1, 8, 16), (2, 4, 10, 16), (1, 4, 10, 32)
    expected = torch.nn.functional.scaled_dot_product_attention(meta(q), meta(k), meta(v))
    assert infer.sdpa_type(tensor(q), tensor(k), tensor(v)).get_shape() == expected.shape
    rows = torch.nn.functional.embedding(meta((3, 5), torch.int64), meta((16, 8)))
    assert infer.embedding_type(tensor((16, 8)), tensor((3, 5), i64)).get_shape() == rows.shape


def test_inference_refuses_dynamic_shapes():
    with pytest.raises(infer.DynamicShapeError, match=r"hl ops need static shapes"):
        infer.elementwise_type(TensorType(f32, [-1, 8]))


def values(*types: TensorType) -> list:
    return list(Block(arg_types=types).args)


def test_builders_infer_and_refuse_like_the_verifier():
    x, y, w = values(tensor((4, 8)), tensor((1, 8)), tensor((8, 3)))
    add = hl.AddOp(x, y)
    assert add.result.type == tensor((4, 8))
    add.verify()
    assert hl.MatmulOp(x, w).result.type == tensor((4, 3))
    assert hl.SumOp(x, [-1], True).result.type == tensor((4, 1))
    with pytest.raises(infer.TypeInferenceError, match=r"cannot multiply \[4, 8\] by \[4, 8\]"):
        hl.MatmulOp(x, x)


def test_verifier_names_the_inferred_type():
    x, y = values(tensor((4, 8)), tensor((4, 8)))
    wrong = hl.AddOp(x, y, tensor((4, 1)))
    with pytest.raises(VerifyException, match=r"does not match the inferred type tensor<4x8xf32>"):
        wrong.verify()


def test_operands_share_an_element_type_through_irdl():
    x, y = values(tensor((4,)), tensor((4,), bf16))
    with pytest.raises(
        VerifyException, match=r"operand element types differ: rhs is bf16, not f32"
    ):
        hl.MulOp(x, y, tensor((4,))).verify()


@pytest.mark.parametrize(
    ("choices", "build"),
    [
        (hl.GeluApproximation, lambda x, value: hl.GeluOp(x, value)),
        (
            hl.ComparePredicate,
            lambda x, value: hl.CompareOp(
                operands=[x, x],
                result_types=[tensor((4,), i1)],
                properties={"predicate": StringAttr(value)},
            ),
        ),
    ],
)
def test_string_properties_accept_exactly_their_enum(choices, build):
    (x,) = values(tensor((4,)))
    for choice in choices:
        build(x, choice.value).verify()
    with pytest.raises(VerifyException, match=r"must be one of \[.*\], got 'bogus'"):
        build(x, "bogus").verify()
