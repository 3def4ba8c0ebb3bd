"""How a generated fused kernel is launched: rows and columns per program, warps, grid.

`launch_shape` is a pure function of the body's row domain (how many rows, how wide the
widest row is) and of whether the body reduces over its row: every process generates
the same kernel text and launches it the same way. No timing and no device query
chooses anything here.

Two forms of kernel (`lumir.runtime.triton_codegen` emits the text of each):

- **One row per program** (`tiled = False`): a program holds one whole row in `BLOCK`
  (next power of two >= the width) lanes, with 4 warps, Triton's default. A body that
  reduces over its row (sum, mean, amax, softmax) always runs so. Triton adds a row's
  lanes within each thread, then across the 32 threads of a warp, then across warps, so
  the order of the f32 additions, and with it the last bits of a mean and of every
  value computed from it, is set by how many warps share the row and how many lanes each
  thread holds. A reduction therefore keeps the launch its numerics were checked with:
  same text, same `BLOCK`, same 4 warps.
- **A tile of rows and columns** (`tiled = True`), for a body with no reduction: each
  lane is computed from its own column (and the columns its slices and cats name)
  alone, with the same ops and roundings in any layout, so how lanes are split among
  programs changes no bit of a result. A program computes a `[ROWS, BLOCK]` tile of
  `TILE_ELEMENTS` lanes: narrow rows are packed `ROWS` to a program, wide rows are cut
  into column tiles of `BLOCK` = `TILE_ELEMENTS` (a second grid axis), and the warps
  are as many as give each thread `LANES_PER_THREAD` lanes, at most `TILE_WARPS`.

Why these numbers (Llama-1B at 1024 tokens, H200, bf16): one row per program gave a
rotary head row (64 lanes) 32768 programs of 128 threads, half of them without a lane,
each moving 128 bytes and loading 2 bytes per thread (Triton vectorises only when a
thread holds several adjacent lanes): too few bytes in flight per SM to cover memory
latency. A SiLU·mul row of 8192 lanes put 64 lanes of every value in each of 128
threads, in 1024 programs. A tile of 2048 lanes on 4 warps (Triton's default) gives
every thread 16 adjacent lanes per value, two 16-byte loads of bf16: the rotary packs 32
head rows per program (1024 programs for q), SiLU·mul cuts a row into 4 column tiles
(4096 programs). Compiled for sm_90 (Triton 3.9) the tiled rotary takes 34 registers and
SiLU·mul 32, with no spills. The sizes are a first choice from this reasoning, not a
sweep: `bench/fused_kernels_bench.py --compare` measures them against the one-row
kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

TILE_ELEMENTS = 2048
"""Lanes one program of a tiled kernel computes (ROWS x BLOCK, at most)."""

LANES_PER_THREAD = 16
"""Lanes of each value a thread of a tiled kernel holds, when the tile is large enough:
two 16-byte vector loads of bf16 (one of f32 per 4 lanes)."""

TILE_WARPS = 4
"""The most warps of a tiled program (TILE_ELEMENTS / (32 * LANES_PER_THREAD))."""

ROW_WARPS = 4
"""The warps of a one-row program: Triton's default, the launch reductions were checked
with. Passed explicitly so a change of Triton's default cannot move their numerics."""


def next_power_of_two(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    return 1 << max(0, (n - 1).bit_length())


@dataclass(frozen=True)
class LaunchShape:
    """The launch of one generated kernel: its text's form and the grid over it."""

    tiled: bool
    """The text's form: a [ROWS, BLOCK] tile per program, or one whole row."""
    rows: int
    """Rows of the row domain (the product of its leading dimensions)."""
    hidden: int
    """The widest row's width."""
    rows_per_program: int
    """ROWS (1 in the one-row form)."""
    block: int
    """BLOCK: lanes per row in one program (next power of two >= hidden in the one-row
    form; at most TILE_ELEMENTS in a tile)."""
    num_warps: int

    @property
    def column_tiles(self) -> int:
        """Programs along one row (1 unless a tile cuts a wide row)."""
        return -(-self.hidden // self.block) if self.tiled else 1

    @property
    def ragged(self) -> bool:
        """Whether the last program's tile runs past the last row (its loads and stores
        of those rows are masked)."""
        return self.rows % self.rows_per_program != 0

    @property
    def grid(self) -> tuple[int, ...]:
        """The launch grid: (row tiles,) one-row; (row tiles, column tiles) tiled."""
        if not self.tiled:
            return (self.rows,)
        return (-(-self.rows // self.rows_per_program), self.column_tiles)

    @property
    def constants(self) -> dict[str, int]:
        """The kernel's constexpr arguments."""
        if not self.tiled:
            return {"BLOCK": self.block}
        return {"ROWS": self.rows_per_program, "BLOCK": self.block}


def one_row_launch(rows: int, hidden: int) -> LaunchShape:
    """One program per row, the whole row in one block of lanes, 4 warps (the launch every
    fused kernel had before tiling; reductions keep it)."""
    return LaunchShape(False, rows, hidden, 1, next_power_of_two(hidden), ROW_WARPS)


def launch_shape(rows: int, hidden: int, reduces: bool) -> LaunchShape:
    """The launch of a body over `rows` rows of at most `hidden` lanes; `reduces`: whether
    it has a row reduction or softmax (then one row per program, see the module)."""
    if reduces:
        return one_row_launch(rows, hidden)
    block = min(next_power_of_two(hidden), TILE_ELEMENTS)
    rows_per_program = min(TILE_ELEMENTS // block, next_power_of_two(rows))
    lanes = rows_per_program * block
    warps = min(TILE_WARPS, max(1, lanes // (32 * LANES_PER_THREAD)))
    return LaunchShape(True, rows, hidden, rows_per_program, block, warps)


__all__ = [
    "LANES_PER_THREAD",
    "ROW_WARPS",
    "TILE_ELEMENTS",
    "TILE_WARPS",
    "LaunchShape",
    "launch_shape",
    "next_power_of_two",
    "one_row_launch",
]
