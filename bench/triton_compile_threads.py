"""Whether Triton compiles kernels side by side in threads (what `compile_ahead` relies on).

    PYTHONPATH=$PWD python3 -m bench.triton_compile_threads [--kernels 8]

Compiles `--kernels` distinct specialisations of a small matmul kernel (a constexpr
`SALT` makes each one new) with an empty Triton cache (a new temporary directory unless
`TRITON_CACHE_DIR` is set), first one after another with
`warmup`, then all at once under Triton's `AsyncCompileMode` on a thread pool, and
prints both wall times. lumir.runtime.triton_launch compiles a program's kernels the
second way. CUDA only (Triton compiles for the device it finds).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="lumir-triton-"))

import torch
import triton
import triton.language as tl


@triton.jit
def _matmul(a, b, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SALT: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * BN + rn[None, :], (acc * (SALT + 1)).to(tl.bfloat16))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.triton_compile_threads")
    parser.add_argument("--kernels", type=int, default=8)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("bench.triton_compile_threads: needs a CUDA device")
    try:
        from triton.runtime._async_compile import AsyncCompileMode
    except ImportError:
        raise SystemExit(f"Triton {triton.__version__} has no AsyncCompileMode") from None

    buffer = torch.empty(256, 256, device="cuda", dtype=torch.bfloat16)

    def warm(salt: int) -> None:
        _matmul.warmup(buffer, buffer, buffer, 256, grid=(1, 1), BM=64, BN=64, BK=32, SALT=salt)

    warm(0)  # the driver and the first compile's imports, outside both timings
    start = time.perf_counter()
    for salt in range(1, args.kernels + 1):
        warm(salt)
    serial = time.perf_counter() - start
    start = time.perf_counter()
    with ThreadPoolExecutor(args.kernels) as pool, AsyncCompileMode(pool):
        for salt in range(args.kernels + 1, 2 * args.kernels + 1):
            warm(salt)
    threaded = time.perf_counter() - start
    print(
        f"Triton {triton.__version__}, {args.kernels} kernels: one after another "
        f"{serial:.2f} s, {args.kernels} threads {threaded:.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
