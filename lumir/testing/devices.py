"""The `device` parameter of tests that run on the CPU and, where one is visible, a GPU.

`ON_CUDA` carries the `cuda` mark (`pytest -m cuda` selects the GPU half, as the device
machine's check does) and is skipped where torch sees no GPU, as in CI.
"""

from __future__ import annotations

import pytest
import torch

ON_CUDA = pytest.param(
    "cuda",
    marks=[
        pytest.mark.cuda,
        pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
    ],
)

CPU_AND_CUDA = ["cpu", ON_CUDA]
