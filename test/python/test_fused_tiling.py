"""How generated fused kernels are launched (`lumir.runtime.fused_tiling`), and that a
tiled launch computes what one program per row computes.

A body without a row reduction runs as [ROWS, BLOCK] tiles: narrow rows packed into one
program, wide rows cut into column tiles, the last tile masked where it runs past the
last row. Each interpreted body below reaches one of those paths, which the test asserts
on its launch first (so it cannot pass by running another path); under
TRITON_INTERPRET=1, `fused_check` then requires the kernel to match the reference and
to write the same bytes as the same body launched one row per program. A body with a
reduction keeps the one-row kernel (test_fused_kernels.py pins its text).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.workloads import LLAMA_SHAPES, llama_layer_hl
from lumir.runtime.fused_tiling import (
    TILE_ELEMENTS,
    LaunchShape,
    launch_shape,
    next_power_of_two,
    one_row_launch,
)
from lumir.runtime.triton_codegen import generate
from lumir.testing.fused_check import (
    fused_bodies,
    run_in_interpreter,
    triton_interpreter_available,
)
from lumir.testing.programs import compile_text, fuse_kernels_only

REPO = Path(__file__).resolve().parents[2]

skip_no_triton = pytest.mark.skipif(
    triton_interpreter_available() is not None,
    reason=f"Triton interpreter check: {triton_interpreter_available()}",
)


def _launches(text: str) -> list[LaunchShape]:
    """The launch of every fused body of the compiled (or fused) module `text`."""
    return [generate(block).launch for block in fused_bodies(text)]


# --- the rule --------------------------------------------------------------------------

# (rows, hidden) -> (ROWS, BLOCK, grid, warps) for bodies without a reduction.
EXPECTED = {
    (32768, 64): (32, 64, (1024, 1), 4),  # rotary q at 1024 tokens: 32 head rows a program
    (8192, 64): (32, 64, (256, 1), 4),  # rotary k
    (1024, 8192): (1, 2048, (1024, 4), 4),  # SiLU·mul: four column tiles per row
    (1, 8192): (1, 2048, (1, 4), 4),  # SiLU·mul of one token
    (32, 64): (32, 64, (1, 1), 4),  # rotary q of one token: one program
    (8, 64): (8, 64, (1, 1), 1),  # rotary k of one token: 512 lanes, one warp
    (100, 64): (32, 64, (4, 1), 4),  # the last tile holds 4 rows of 32
    (7, 300): (4, 512, (2, 1), 4),
    (5, 5000): (1, 2048, (5, 3), 4),  # the last column tile is partial
    (3, 1): (4, 1, (1, 1), 1),  # one lane per row
}


@pytest.mark.parametrize(("rows", "hidden"), sorted(EXPECTED))
def test_elementwise_bodies_get_the_tile_the_rule_gives(rows: int, hidden: int) -> None:
    launch = launch_shape(rows, hidden, reduces=False)
    per_program, block, grid, warps = EXPECTED[rows, hidden]
    assert launch.tiled
    assert (launch.rows_per_program, launch.block, launch.grid) == (per_program, block, grid)
    assert launch.num_warps == warps
    assert launch.constants == {"ROWS": per_program, "BLOCK": block}


@pytest.mark.parametrize("rows", [1, 3, 100, 4096, 1 << 20])
@pytest.mark.parametrize("hidden", [1, 17, 64, 2048, 2049, 8192, 100000])
def test_every_tile_covers_the_domain_within_the_tile_budget(rows: int, hidden: int) -> None:
    launch = launch_shape(rows, hidden, reduces=False)
    row_tiles, column_tiles = launch.grid
    # every row and column is in exactly one program's tile; no program is all padding
    assert row_tiles * launch.rows_per_program >= rows > (row_tiles - 1) * launch.rows_per_program
    assert column_tiles * launch.block >= hidden > (column_tiles - 1) * launch.block
    assert launch.rows_per_program * launch.block <= TILE_ELEMENTS
    assert launch.ragged == (rows % launch.rows_per_program != 0)
    for size in (launch.rows_per_program, launch.block, launch.num_warps):
        assert size == next_power_of_two(size)  # tl.arange and num_warps need powers of two


@pytest.mark.parametrize(("rows", "hidden"), [(1024, 2048), (1, 2048), (6, 64), (3, 100000)])
def test_a_body_with_a_reduction_keeps_one_row_per_program(rows: int, hidden: int) -> None:
    launch = launch_shape(rows, hidden, reduces=True)
    assert launch == one_row_launch(rows, hidden)
    assert not launch.tiled and launch.grid == (rows,) and launch.num_warps == 4
    assert launch.block == next_power_of_two(hidden) and launch.constants == {"BLOCK": launch.block}


def _llama_launches(seq: int) -> list[tuple[object, ...]]:
    text = compile_text(llama_layer_hl(seq, LLAMA_SHAPES["1b"]), True)
    return [
        (launch.tiled, launch.grid, launch.constants, launch.num_warps)
        for launch in _launches(text)
    ]


# A Llama-1B layer's fused kernels in program order: RMSNorm, rotary q, rotary k,
# RMSNorm, SiLU·mul. The norms keep their launch; the rest are tiled. At 1024 tokens
# the MLP runs in two chunks of 512 rows (chunk-rows), so SiLU·mul is two launches.
LLAMA_1B = {
    1: [
        (False, (1,), {"BLOCK": 2048}, 4),
        (True, (1, 1), {"ROWS": 32, "BLOCK": 64}, 4),
        (True, (1, 1), {"ROWS": 8, "BLOCK": 64}, 1),
        (False, (1,), {"BLOCK": 2048}, 4),
        (True, (1, 4), {"ROWS": 1, "BLOCK": 2048}, 4),
    ],
    1024: [
        (False, (1024,), {"BLOCK": 2048}, 4),
        (True, (1024, 1), {"ROWS": 32, "BLOCK": 64}, 4),
        (True, (256, 1), {"ROWS": 32, "BLOCK": 64}, 4),
        (False, (1024,), {"BLOCK": 2048}, 4),
        (True, (512, 4), {"ROWS": 1, "BLOCK": 2048}, 4),
        (True, (512, 4), {"ROWS": 1, "BLOCK": 2048}, 4),
    ],
}


@pytest.mark.parametrize("seq", sorted(LLAMA_1B))
def test_llama_1b_layer_launches(seq: int) -> None:
    assert _llama_launches(seq) == LLAMA_1B[seq]


def test_launches_and_texts_are_the_same_in_every_process() -> None:
    """The launch shape is part of what a kernel computes: it must not depend on the
    process (hash seeds order dicts and sets)."""
    script = (
        "import json, hashlib\n"
        "from bench.workloads import LLAMA_SHAPES, llama_layer_hl\n"
        "from lumir.runtime.triton_codegen import generate\n"
        "from lumir.testing.fused_check import first_fused_body\n"
        "from lumir.testing.programs import compile_text\n"
        "text = compile_text(llama_layer_hl(128, LLAMA_SHAPES['1b']), True)\n"
        "out = []\n"
        "for i in range(5):\n"
        "    s = generate(first_fused_body(text, i))\n"
        "    l = s.launch\n"
        "    out.append([hashlib.sha256(s.text.encode()).hexdigest(), list(l.grid),\n"
        "                l.constants, l.num_warps])\n"
        "print(json.dumps(out))\n"
    )
    reports = set()
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
            env=env, check=True,
        )  # fmt: skip
        reports.add(done.stdout.strip().splitlines()[-1])
    assert len(reports) == 1
    assert len(json.loads(reports.pop())) == 5


# --- the text --------------------------------------------------------------------------


def _t(*dims: int, element: str = "bf16") -> str:
    return f"tensor<{'x'.join(str(d) for d in dims)}x{element}>"


def _silu_mul(rows: int, width: int) -> str:
    t = _t(rows, width)
    return f"""
func.func @silu_mul(%x: {t}, %y: {t}) -> {t} {{
  %a = hl.silu %x : {t} -> {t}
  %m = hl.mul %a, %y : ({t}, {t}) -> {t}
  func.return %m : {t}
}}
"""


def _mid(rows: int, width: int) -> str:
    """x * w + c, then exp: a row-independent vector (%w) and scalar (%c) read beside
    row-dependent loads (f32: the interpreter and torch do the same operations)."""
    x, w, c = _t(rows, width, element="f32"), _t(width, element="f32"), _t(1, element="f32")
    return f"""
func.func @mid(%x: {x}, %w: {w}, %c: {c}) -> {x} {{
  %a = hl.mul %x, %w : ({x}, {w}) -> {x}
  %b = hl.add %a, %c : ({x}, {c}) -> {x}
  %y = hl.exp %b : {x} -> {x}
  func.return %y : {x}
}}
"""


def _wide_scalar(rows: int, width: int) -> str:
    """Rows of `width` lanes times a vector and a per-row exp(scalar), which is also a
    result (one lane per row)."""
    x, w, s = _t(rows, width, element="f32"), _t(width, element="f32"), _t(rows, 1, element="f32")
    return f"""
func.func @wide(%x: {x}, %w: {w}, %s: {s}) -> ({x}, {s}) {{
  %e = hl.exp %s : {s} -> {s}
  %a = hl.mul %x, %w : ({x}, {w}) -> {x}
  %b = hl.mul %a, %e : ({x}, {s}) -> {x}
  func.return %b, %e : {x}, {s}
}}
"""


TILED = {
    # name: (text, rows per program, column tiles, ragged)
    "narrow_ragged": (_silu_mul(100, 64), 32, 1, True),
    "wide": (_silu_mul(3, 8192), 1, 4, False),
    # rows of 300 lanes, 4 to a program of 512-lane rows, the last program holding 3
    "mid_ragged": (_mid(7, 300), 4, 1, True),
    # three column tiles, the last partial; only the first stores the per-row scalar
    "wide_scalar": (_wide_scalar(5, 5000), 1, 3, False),
    # 4 rows of 512 lanes a program: the per-row scalar's load and store are row-masked
    "scalar_ragged": (_wide_scalar(5, 300), 4, 1, True),
}


@skip_no_triton
@pytest.mark.parametrize("name", sorted(TILED))
def test_tiled_kernel_matches_the_reference_and_the_one_row_kernel(name: str, tmp_path) -> None:
    text, per_program, column_tiles, ragged = TILED[name]
    fused = fuse_kernels_only(text)
    (launch,) = _launches(fused)
    assert launch.tiled
    assert (launch.rows_per_program, launch.column_tiles) == (per_program, column_tiles)
    assert launch.ragged == ragged
    path = tmp_path / "fused.mlir"
    path.write_text(fused)
    # bf16 (SiLU·mul): one rounding where the interpreter's sigmoid differs from torch's
    # in the last f32 bit; f32: the same operations.
    rtol = 2.0**-6 if "bf16" in text else 1e-5
    report = run_in_interpreter(path, atol=1e-6, rtol=rtol)
    assert report["forms_equal"], report["launch"]
    assert report["returncode"] == 0, (report["max_rel_diff"], report["source"])
