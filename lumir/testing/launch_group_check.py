"""Check the grouped-launch kernels against torch's own launches, on CPU, under TRITON_INTERPRET=1.

A `cublaslt_rt.launch_group` runs on CUDA as one Triton launch
(`lumir.runtime.launch_group`) and on the CPU as its members one by one, so without this
check CI would never run the kernels. Triton's interpreter runs them on CPU tensors;
the variable must be set before triton is first imported, so the check runs in a child
process: `python -m lumir.testing.launch_group_check` runs each case below as one
grouped launch and as each member's torch call (`index_copy_`, `torch.add(out=)`) on
copies of the same seeded tensors, and prints one JSON line per case: its name and
whether every member's output is bit for bit torch's. The exit status is 0 when every
case is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import torch

from lumir.runtime.launch_group import Member, grouped_launch
from lumir.testing.interpreter_child import run_check


@dataclass(frozen=True)
class Case:
    """One grouped launch: `kernel` over members made by `make` (fresh tensors each call,
    the same for one seed), writing along `dim` for `hl.index_copy`."""

    name: str
    kernel: str
    make: Callable[[torch.Generator], list[Member]]
    dim: int = 0


def _values(shape: tuple[int, ...], dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    if dtype.is_floating_point:
        return torch.randn(shape, generator=generator).to(dtype)
    info = torch.iinfo(dtype)
    low, high = max(info.min, -1000), min(info.max, 1000)
    return torch.randint(low, high, shape, generator=generator, dtype=torch.int64).to(dtype)


def _cache_writes(
    shapes: list[tuple[int, ...]], dtypes: list[torch.dtype], dim: int, index: list[int]
) -> Callable[[torch.Generator], list[Member]]:
    def make(generator: torch.Generator) -> list[Member]:
        positions = torch.tensor(index, dtype=torch.int64)
        members = []
        for shape, dtype in zip(shapes, dtypes, strict=True):
            cache = _values(shape, dtype, generator)
            axis = dim % len(shape)
            source_shape = (*shape[:axis], len(index), *shape[axis + 1 :])
            source = _values(source_shape, dtype, generator)
            members.append(Member(cache, (cache, positions, source)))
        return members

    return make


def _adds(generator: torch.Generator) -> list[Member]:
    counter = _values((), torch.int64, generator)
    one = torch.ones((), dtype=torch.int64)
    index = torch.zeros(1, dtype=torch.int64)
    vector = _values((37,), torch.int32, generator)
    wrap = torch.tensor([127, -128, 5], dtype=torch.int8)
    return [
        Member(counter, (counter, one)),  # a cache counter advanced in place
        Member(index, (torch.zeros(1, dtype=torch.int64), counter.clone())),  # arange + counter
        Member(vector, (vector, _values((37,), torch.int32, generator))),
        Member(wrap.clone(), (wrap, torch.tensor(1, dtype=torch.int8))),  # wraps, as torch does
    ]


CASES = (
    Case(
        "decode k/v",
        "hl.index_copy",
        _cache_writes([(1, 2, 9, 4), (1, 2, 9, 4)], [torch.bfloat16] * 2, 2, [5]),
        dim=2,
    ),
    Case(
        "prefill, repeated position, other shapes and types",
        "hl.index_copy",
        _cache_writes([(2, 7, 3), (3, 7, 5)], [torch.float16, torch.float32], -2, [1, 4, 1]),
        dim=-2,
    ),
    Case(
        "several programs per member",
        "hl.index_copy",
        _cache_writes([(4, 6, 300), (1, 6, 2)], [torch.float32] * 2, 1, [0, 5]),
        dim=1,
    ),
    Case("integer adds", "hl.add", _adds),
)


def _by_torch(kernel: str, members: list[Member], dim: int) -> None:
    for member in members:
        if kernel == "hl.index_copy":
            _, index, source = member.inputs
            member.output.index_copy_(dim, index, source)
        else:
            torch.add(*member.inputs, out=member.output)


def check(case: Case, seed: int) -> bool:
    """Whether the grouped launch writes every member's output bit for bit as torch."""
    grouped = case.make(torch.Generator().manual_seed(seed))
    alone = case.make(torch.Generator().manual_seed(seed))
    grouped_launch(case.kernel, grouped, case.dim)()
    _by_torch(case.kernel, alone, case.dim)
    return all(
        torch.equal(
            got.output.reshape(-1).view(torch.uint8), want.output.reshape(-1).view(torch.uint8)
        )
        for got, want in zip(grouped, alone, strict=True)
    )


def run_in_interpreter(timeout: float = 300.0) -> subprocess.CompletedProcess[str]:
    """Run this check in a child process with TRITON_INTERPRET=1."""
    return run_check("lumir.testing.launch_group_check", timeout=timeout)


def main() -> int:
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("launch_group_check: set TRITON_INTERPRET=1 (no GPU is used)", file=sys.stderr)
        return 2
    ok = True
    for case in CASES:
        identical = all(check(case, seed) for seed in (0, 1))
        print(json.dumps({"case": case.name, "bit_identical": identical}))
        ok &= identical
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
