"""`masked_scatter` compiles in lumir and gives eager's result; a source too short for the
mask raises as in eager.

Vision-language models (LLaVA, PaliGemma, Qwen2-VL, Gemma 3) put their image features
into the text embeddings with `inputs_embeds.masked_scatter(image_mask, features)`;
before, it ran in eager and split the graph. Its result is a gather and a `where`:
the k-th true position of the mask takes the source's k-th element
(lumir.frontend.decompositions._masked_scatter).
"""

from __future__ import annotations

import pytest
import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from lumir.testing.bits import assert_eagers_bits as _check

GENERATOR = torch.Generator().manual_seed(11)


@torch.no_grad()
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_a_broadcast_mask_takes_the_source_in_order(dtype: torch.dtype) -> None:
    x = torch.randn(2, 3, 4, generator=GENERATOR).mul(10).to(dtype)
    mask = torch.tensor([True, False, True, True])
    source = torch.randn(30, generator=GENERATOR).mul(10).to(dtype)
    _check(lambda x, m, s: (x + 1).masked_scatter(m, s * 2), x, mask, source)


@torch.no_grad()
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_image_features_into_text_embeddings_as_llava_does(dynamic: bool) -> None:
    """Each image token's embedding row is replaced by the next feature row; under
    dynamic shapes at two lengths."""
    table = torch.randn(256, 16, generator=GENERATOR)

    def merge(ids: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        embeds = torch.nn.functional.embedding(ids, table)
        mask = (ids == 250).unsqueeze(-1).expand_as(embeds)
        return embeds.masked_scatter(mask, features.to(embeds.dtype))

    for length in (9, 12):
        ids = torch.randint(0, 250, (2, length), generator=GENERATOR)
        ids[:, 1:6] = 250
        features = torch.randn(10, 16, generator=GENERATOR)
        _check(merge, ids, features, dynamic=dynamic)


@torch.no_grad()
def test_the_result_is_contiguous_as_eagers_for_a_permuted_input() -> None:
    """ATen clones the input contiguous before it scatters; a `.view` after it works."""
    x = torch.randn(2, 3, 4, generator=GENERATOR).permute(2, 0, 1)
    mask = torch.rand(4, 2, 3, generator=GENERATOR) > 0.5
    source = torch.randn(24, generator=GENERATOR)
    _check(lambda x, m, s: x.masked_scatter(m, s).view(-1), x, mask, source)


@torch.no_grad()
def test_a_source_shorter_than_the_mask_raises_as_in_eager() -> None:
    """The error is the decomposed graph's in eager (an index out of range), as for an
    index_put; the sizes stay compiled."""
    compiled = torch.compile(lambda x, m, s: x.masked_scatter(m, s), backend="lumir")
    torch._dynamo.reset()
    x, mask = torch.zeros(2, 4), torch.tensor([[True, False, True, True]] * 2)
    with pytest.raises((IndexError, RuntimeError)):
        compiled(x, mask, torch.arange(5.0))
    torch.testing.assert_close(
        compiled(x, mask, torch.arange(6.0)), x.masked_scatter(mask, torch.arange(6.0))
    )


@torch.no_grad()
def test_an_empty_source_under_an_all_false_mask_leaves_the_input() -> None:
    """Eager reads nothing from the source then; the op stays in eager (named)."""
    x, mask = torch.randn(2, 4, generator=GENERATOR), torch.zeros(2, 4, dtype=torch.bool)
    got = torch.compile(lambda x, m, s: x.masked_scatter(m, s) * 2, backend="lumir")(
        x, mask, torch.zeros(0)
    )
    torch.testing.assert_close(got, x * 2)
