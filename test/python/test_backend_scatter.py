"""`scatter` of a tensor or a number (no reduction) compiles in lumir and gives eager's
result; an index out of range raises eager's error.

GroupViT's hard softmax writes 1.0 at each row's argmax (`zeros_like(x).scatter_(dim,
index, 1.0)`), DeepSeek-V3's router marks its chosen groups so, and Reformer undoes its
sort with `scatter`; before, each ran in eager and split the graph. lumir writes it as
the `index_put` it is (lumir.frontend.decompositions._scatter), which imports as one
`hl.index_copy`.
"""

from __future__ import annotations

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.testing.bits import assert_eagers_bits as _check

GENERATOR = torch.Generator().manual_seed(3)


def _unique_index(shape: tuple[int, ...], dim: int, size: int) -> torch.Tensor:
    """Positions along `dim` without duplicates within a line (which slot wins among
    duplicates is unspecified in torch), in [0, size)."""
    lines = torch.rand(*shape[:dim], size, *shape[dim + 1 :], generator=GENERATOR)
    return lines.argsort(dim=dim).narrow(dim, 0, shape[dim])


CASES = {
    # name: (x shape, dim, index shape)
    "rows": ((4, 6), 1, (4, 2)),
    "columns": ((5, 3), 0, (2, 3)),
    "last-dim-3d": ((2, 3, 7), -1, (2, 3, 1)),
    "middle-dim": ((2, 6, 4), 1, (2, 3, 4)),
    "index-smaller-elsewhere": ((4, 6, 5), 1, (3, 2, 4)),
}


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_scatter_of_a_tensor_and_of_a_number_is_eagers(name: str, dtype: torch.dtype) -> None:
    shape, dim, index_shape = CASES[name]
    x = torch.randn(shape, generator=GENERATOR).mul(10).to(dtype)
    index = _unique_index(index_shape, dim % len(shape), shape[dim])
    src = torch.randn([s + 1 for s in index_shape], generator=GENERATOR).mul(10).to(dtype)
    _check(lambda x, i, s: torch.scatter(x * 2, dim, i, s), x, index, src)
    _check(lambda x, i: (x + 1).scatter(dim, i, 7), x, index)


@torch.no_grad()
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_the_hard_softmax_of_groupvit_compiles_whole(dynamic: bool) -> None:
    """`y_hard - y_soft.detach() + y_soft` with y_hard one-hot at the argmax; under
    dynamic shapes at two lengths."""

    def hard_softmax(logits: torch.Tensor) -> torch.Tensor:
        soft = logits.softmax(-1)
        index = soft.max(-1, keepdim=True)[1]
        hard = torch.zeros_like(logits).scatter_(-1, index, 1.0)
        return hard - soft.detach() + soft

    for length in (5, 7):
        _check(hard_softmax, torch.randn(2, length, 8, generator=GENERATOR), dynamic=dynamic)


@torch.no_grad()
def test_the_last_of_duplicate_positions_wins_as_in_eager() -> None:
    index = torch.tensor([[1, 1, 1], [0, 2, 0]])
    src = torch.arange(6.0).view(2, 3)
    _check(lambda x, i, s: x.scatter(1, i, s), torch.zeros(2, 4), index, src)


@torch.no_grad()
@pytest.mark.parametrize("position", [4, -1])
def test_an_index_out_of_range_raises_as_in_eager(position: int) -> None:
    """ATen refuses a negative position too (no counting from the end). The error is
    the decomposed graph's in eager: `index_put`'s IndexError where scatter raises a
    RuntimeError, "out of bounds" both; the sizes stay compiled."""
    compiled = torch.compile(lambda x, i: x.scatter(1, i, 1.0), backend="lumir")
    torch._dynamo.reset()
    index = torch.tensor([[0], [position]])
    with pytest.raises((IndexError, RuntimeError), match="out of bounds"):
        compiled(torch.zeros(2, 4), index)
    torch.testing.assert_close(
        compiled(torch.zeros(2, 4), torch.tensor([[3], [0]])),
        torch.zeros(2, 4).scatter(1, torch.tensor([[3], [0]]), 1.0),
    )


@torch.no_grad()
def test_the_result_is_contiguous_as_eagers_for_a_transposed_input() -> None:
    """ATen allocates scatter's result contiguous; a `.view` after it then works, as in
    eager (index_put keeps x's strides: the trace failed there)."""
    x = torch.randn(6, 4, generator=GENERATOR).t()
    index = _unique_index((4, 2), 1, 6)
    _check(lambda x, i: x.scatter(1, i, 2.0).view(-1), x, index)
