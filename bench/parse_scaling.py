"""How parse time grows with the number of ops: it should be linear.

    python3 bench/parse_scaling.py            # 5k, 20k and 40k ops
    python3 bench/parse_scaling.py 1000 2000  # other sizes

Each program is one function of N chained `hl.relu`/`hl.add` ops, parsed by lumir's
located parser. The table gives seconds per size and microseconds per op; a per-op
cost that stays flat as N grows is linear parsing (locating each op used to count the
newlines from the start of the file, which made it quadratic).
"""

from __future__ import annotations

import sys
import time

from lumir.parsing import parse_module_text

DEFAULT_SIZES = (5_000, 20_000, 40_000)


def chain_program(ops: int) -> str:
    """A function of `ops` elementwise ops, each using the previous result."""
    lines = ["func.func @chain(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {"]
    previous = "%x"
    for index in range(ops):
        name = f"%v{index}"
        if index % 2:
            lines.append(
                f"  {name} = hl.add {previous}, %x : "
                "(tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>"
            )
        else:
            lines.append(f"  {name} = hl.relu {previous} : tensor<4x4xf32> -> tensor<4x4xf32>")
        previous = name
    lines += [f"  func.return {previous} : tensor<4x4xf32>", "}", ""]
    return "\n".join(lines)


def parse_seconds(ops: int) -> float:
    text = chain_program(ops)
    start = time.perf_counter()
    parse_module_text(text, "chain.mlir")
    return time.perf_counter() - start


def main(argv: list[str]) -> None:
    sizes = [int(arg) for arg in argv] or list(DEFAULT_SIZES)
    print(f"{'ops':>8} {'seconds':>9} {'us/op':>8}")
    for ops in sizes:
        seconds = parse_seconds(ops)
        print(f"{ops:>8} {seconds:>9.2f} {seconds / ops * 1e6:>8.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
