"""Triton source text for a fused body: kernel programs over the rows of the row domain.

A fused body is a row program (`lumir.dialects.hl.row_program`): every value is a row
of lanes (at most `hidden` columns) or one scalar per row (last dimension 1), broadcast
along leading dimensions where its shape has 1s. The kernel loads each input's row (or
scalar) into f32, computes op by op in f32, rounding after every op whose result type
is bf16 or f16 (what torch does per op), reduces with `tl.sum` (or, for `hl.amax`, a
maximum that NaN wins, `nan_max_kernel`) over the masked lanes of a `BLOCK` = next power
of two >= hidden, and stores each result in its own element type (a narrower row under
`cols < width`).

How rows and columns map to programs is `lumir.runtime.fused_tiling`'s launch shape,
a function of the row domain alone. A body with a reduction gets one program per row:
`row` is the program's row, `cols` its `BLOCK` lanes and a reduction is over axis 0 (the
text every fused kernel had before tiling). Any other body gets `[ROWS, BLOCK]` tiles:
`row` is a `[ROWS, 1]` column of row indices, `cols` a `[1, BLOCK]` row of column
indices (offset by the second program id when a row is cut into column tiles), and
every expression below is the same text, broadcast over the tile. Where the last tile
runs past the last row, loads and stores whose address depends on the row are masked
with `inrow` as well; a scalar-per-row result is stored by the first column tile only.

Row movement is only where a load reads: a transposed input is loaded with permuted
row strides; every value is emitted once per column shift `k` the model says it is
read at (an input loaded at `cols + k`, masked to its columns), a slice is its operand
at `k + start` (no code), a cat is a `tl.where` on the column among its pieces at
`k - offset`. Values are emitted in body order, inputs first, so the text is the same
for the same body.

The text depends only on the body (shapes, types, ops, literals), never on addresses
or dict order, so it is the key under which `lumir.runtime.fused_kernels` caches the
compiled kernel. Nothing here imports triton: generating is plain string work, which CI
checks without a GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from lumir.dialects import hl
from lumir.dialects.hl.base import int_list
from lumir.dialects.hl.row_program import (
    FUSABLE_REDUCTIONS,
    cat_offsets,
    is_elementwise,
    row_program,
    slice_start,
    width,
)
from lumir.runtime.buffers import constant_tensor
from lumir.runtime.fused_tiling import ROW_WARPS, LaunchShape, launch_shape, one_row_launch

KERNEL_NAME = "lumir_fused"

_TL_TYPES = {"f32": "tl.float32", "bf16": "tl.bfloat16", "f16": "tl.float16"}

_ROW_OPS = (*FUSABLE_REDUCTIONS, "hl.softmax")
_NAN_MAX_IMPORT = "from lumir.runtime.nan_max_kernel import max_keeping_nan"
"""Ops that read a whole row: a body holding one runs one row per program."""


def _imports(helpers: set[str]) -> list[str]:
    """The import lines of a generated kernel's file: triton, the PDL wait, and the
    helpers its bodies call, sorted (the text must not depend on set order)."""
    return [
        "import triton",
        "import triton.language as tl",
        "",
        "from lumir.runtime.pdl_kernel import wait_for_previous_launch",
        *sorted(helpers),
    ]


class CodegenError(ValueError):
    """The body uses something the generator does not emit (the verifier should stop it)."""


@dataclass(frozen=True)
class FusedKernelSource:
    """A generated kernel: its text and how to launch it."""

    text: str
    """Python source defining `@triton.jit def lumir_fused(in0, ..., out0, ..., [ROWS,]
    BLOCK)`."""
    launch: LaunchShape
    """Its grid, constexpr arguments and warps."""


def _shape(value: SSAValue) -> tuple[int, ...]:
    typ = value.type
    assert isinstance(typ, TensorType)
    return tuple(typ.get_shape())


def _element(value: SSAValue) -> str:
    typ = value.type
    assert isinstance(typ, TensorType)
    return typ.element_type.name


def _dense_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))


def _row_offset(
    shape: tuple[int, ...], lead: tuple[int, ...], strides: tuple[int, ...] | None = None
) -> str:
    """The element offset of row `row`'s part of a tensor of `shape` with `strides`.

    `strides` default to the dense ones of `shape`; a transposed input passes its own,
    permuted. A dimension of size 1 against a wider domain dimension is broadcast: it
    adds nothing (stride 0)."""
    pad = len(lead) + 1 - len(shape)
    padded = (1,) * pad + shape
    steps = (0,) * pad + (strides if strides is not None else _dense_strides(shape))
    terms = []
    for index, size in enumerate(lead):
        if padded[index] == 1 or size == 1:
            continue
        inner = math.prod(lead[index + 1 :])
        position = "row" if inner == 1 else f"(row // {inner})"
        if index > 0 and math.prod(lead[:index]) > 1:
            position = f"({position} % {size})"
        terms.append(position if steps[index] == 1 else f"{position} * {steps[index]}")
    return " + ".join(terms) if terms else "0"


def _transposed_strides(op: Operation) -> tuple[int, ...]:
    """The strides of a transpose's result in its dense input: dim i steps input dim p[i]."""
    dense = _dense_strides(_shape(op.operands[0]))
    permutation = int_list(op.properties["permutation"])  # type: ignore[arg-type]
    return tuple(dense[p] for p in permutation)


def _columns(shift: int) -> str:
    """The column index expression of lanes read at `shift`."""
    if shift == 0:
        return "cols"
    return f"(cols + {shift})" if shift > 0 else f"(cols - {-shift})"


def _literal(op: hl.ConstantOp) -> str:
    value = float(constant_tensor(op.value).reshape(-1)[0].item())
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)


def _pow(base: str, exponent: float) -> str:
    """`base` to a literal `exponent`, as the reference's `torch.pow` of two tensors
    computes it: C's `pow`, also at the special values. So `x ** 0` is 1 for a NaN or an
    infinite x too; the square root (and its reciprocal) of -inf is +inf (+0), of -0 is
    +0 (+inf); a negative base (-0 included) to an odd integer is negative, to an even
    one positive, to any other exponent NaN, while -inf to it is +inf (+0 for a negative
    exponent); and +-1 to an infinite exponent is 1. Small integer exponents multiply
    (exact signs, one rounding per factor); other exponents go through
    `exp2(e * log2(|base|))`."""
    if exponent == 0:
        return f"(tl.zeros_like({base}) + 1.0)"
    if exponent in (0.5, -0.5):
        root = "tl.sqrt" if exponent > 0 else "tl.rsqrt"
        at_minus_inf = 'float("inf")' if exponent > 0 else "0.0"
        # `+ 0.0` turns -0 into +0: pow(-0, 0.5) is +0 where sqrt(-0) is -0
        return f'tl.where({base} == float("-inf"), {at_minus_inf}, {root}({base} + 0.0))'
    if math.isnan(exponent):
        return f'tl.where({base} == 1.0, 1.0, float("nan"))'
    integer = math.isfinite(exponent) and exponent == int(exponent)
    if integer and abs(exponent) <= 4:
        n = int(exponent)
        product = " * ".join([base] * abs(n))
        return f"({product})" if n > 0 else f"(1.0 / ({product}))"
    literal = repr(exponent) if math.isfinite(exponent) else f'float("{exponent}")'
    magnitude = f"tl.exp2(tl.log2(tl.abs({base})) * {literal})"
    if not math.isfinite(exponent):
        return f"tl.where(tl.abs({base}) == 1.0, 1.0, {magnitude})"
    if integer and int(exponent) % 2 == 1:  # the base's sign (its sign bit: -0 too)
        return f"tl.where({base}.to(tl.int32, bitcast=True) < 0, -{magnitude}, {magnitude})"
    if integer:
        return magnitude
    return f'tl.where(({base} < 0.0) & ({base} > float("-inf")), float("nan"), {magnitude})'


def _tanh(x: str, square: str) -> str:
    """tanh of `x` (`square` names x * x), as Cephes' `tanhf` computes it, to about 2 f32
    ulps everywhere: an odd polynomial below 0.625, `1 - 2 / (exp(2|x|) + 1)` with x's
    sign above (±1 at ±inf, NaN for NaN, -0 for -0). The form it replaces,
    `2 sigmoid(2x) - 1`, cancels near 0: its error was about 6e-8 absolute, so tanh(1e-6)
    came out 7% high and anything below 3e-8 as 0, and `x / tanh(x)` of a small bf16 x
    was inf where torch gives 1 (found by `lumir.testing.codegen_fuzz`)."""
    poly = f"((-5.70498872745e-3 * {square} + 2.06390887954e-2) * {square} - 5.37397155531e-2)"
    poly = f"(({poly} * {square} + 1.33314422036e-1) * {square} - 3.33332819422e-1)"
    large = f"(1.0 - 2.0 / (tl.exp(2.0 * tl.abs({x})) + 1.0))"
    return (
        f"tl.where(tl.abs({x}) < 0.625, {x} * (1.0 + {square} * {poly}), "
        f"tl.where({x} < 0.0, -{large}, {large}))"
    )


class _Generator:
    def __init__(self, block: Block, tile: bool):
        terminator = block.last_op
        if not isinstance(terminator, hl.YieldOp):
            raise CodegenError("a fused body ends with hl.yield")
        self.block = block
        self.terminator = terminator
        self.ops = [op for op in block.ops if op is not terminator]
        try:
            program = row_program(self.ops, list(block.args), list(terminator.values))
        except ValueError as error:
            raise CodegenError(str(error)) from None
        self.lead = program.lead
        self.hidden = program.hidden
        self.shifts = program.shifts
        rows = math.prod(self.lead)
        reduces = any(op.name in _ROW_OPS for op in self.ops)
        self.launch = (
            launch_shape(rows, self.hidden, reduces) if tile else one_row_launch(rows, self.hidden)
        )
        self.names: dict[tuple[SSAValue, int], str] = {}
        self.literals: dict[SSAValue, float] = {}
        self.lines: list[str] = []
        self.imports: set[str] = set()
        """Helper imports the body's expressions need, beyond the form's own."""
        self.first_column = "tl.program_id(1) == 0"
        """Whether the program holds its rows' first column tile (a kernel's second grid
        axis; a group member's function computes it from its program number)."""

    def _lanes(self, value: SSAValue) -> bool:
        """Whether `value` is a row of lanes (else one scalar per row, broadcast)."""
        return width(value) > 1 or self.hidden == 1

    def _mask(self, value: SSAValue, shift: int) -> str:
        """The lanes at which `value` read at `shift` has a column."""
        columns = width(value)
        if shift == 0:
            return "mask" if columns == self.hidden else f"cols < {columns}"
        at = _columns(shift)
        upper = f"({at} < {columns})"
        return upper if shift > 0 else f"({at} >= 0) & {upper}"

    def _name(self, value: SSAValue, shift: int) -> str:
        return self.names[(value, shift if width(value) > 1 else 0)]

    def _define(self, value: SSAValue, shift: int, expr: str, round_: bool = True) -> None:
        name = f"v{len(self.names)}"
        self.names[(value, shift)] = name
        element = _element(value)
        if round_ and element != "f32":  # round as torch does after each op of a narrow type
            expr = f"({expr}).to({_TL_TYPES[element]}).to(tl.float32)"
        self.lines.append(f"    {name} = {expr}")

    def _head(self, params: list[str]) -> list[str]:
        """The imports, the signature and the row, column and mask lines of the form."""
        imports = [*_imports(self.imports), "", "", "@triton.jit"]
        # A programmatic dependent launch (lumir.runtime.pdl) waits for the previous
        # kernel before its first load, and only then lets the next launch start.
        wait = ["    wait_for_previous_launch(PDL)"]
        pdl = "PDL: tl.constexpr = False"
        if not self.launch.tiled:
            return [
                *imports,
                f"def {KERNEL_NAME}({', '.join(params)}, BLOCK: tl.constexpr, {pdl}):",
                *wait,
                "    row = tl.program_id(0).to(tl.int64)",
                "    cols = tl.arange(0, BLOCK)",
                f"    mask = cols < {self.hidden}",
            ]
        columns = "tl.arange(0, BLOCK)[None, :]"
        if self.launch.column_tiles > 1:
            columns = f"tl.program_id(1) * BLOCK + {columns}"
        lines = [
            *imports,
            f"def {KERNEL_NAME}({', '.join(params)}, ROWS: tl.constexpr, BLOCK: tl.constexpr, "
            f"{pdl}):",
            *wait,
            "    row = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)[:, None]",
            f"    cols = {columns}",
            f"    mask = cols < {self.hidden}",
        ]
        if self.launch.ragged:
            lines.append(f"    inrow = row < {self.launch.rows}")
        return lines

    def _guard(self, mask: str | None, offset: str) -> str | None:
        """`mask`, and the row guard where the last tile is ragged and the address depends
        on the row (a load at a row-independent offset reads a valid address anyway)."""
        if not self.launch.ragged or offset == "0":
            return mask
        if mask is None:
            return "inrow"
        return f"{mask} & inrow" if mask.isidentifier() else f"({mask}) & inrow"

    def generate(self) -> FusedKernelSource:
        params = self._body()
        head = self._head(params)  # after the body: it imports what the body calls
        text = "\n".join([*head, *self.lines, ""])
        return FusedKernelSource(text, self.launch)

    def _body(self) -> list[str]:
        """Emit the body's lines (loads, ops, stores) into `lines`; returns the pointer
        parameters they name (`in<i>`, then `out<i>`)."""
        outputs = list(self.terminator.values)
        params = self._compute() + [f"out{i}" for i in range(len(outputs))]
        for index, value in enumerate(outputs):
            self._store(index, value)
        return params

    def _compute(self) -> list[str]:
        """Emit the body's loads and ops into `lines`; returns the input parameters they
        name (`in<i>`)."""
        args = list(self.block.args)
        self.inputs = {arg: f"in{index}" for index, arg in enumerate(args)}
        for arg in args:
            for shift in self.shifts.get(arg, ()):
                self._load(arg, arg, shift)
        for op in self.ops:
            for shift in self.shifts.get(op.results[0], ()):
                self._emit(op, shift)
        return list(self.inputs.values())

    def row_function(self, name: str) -> list[str]:
        """A one-row body as `@triton.jit def name(in..., BLOCK)` that returns its one
        result's lanes (f32, rounded to the result's type as a store would round them)
        instead of storing them: a GEMV group's prologue, which every program of the
        group's kernel computes for itself (`generate_gemv_prologue`)."""
        (value,) = self.terminator.values
        params = self._compute()
        head = [
            "@triton.jit",
            f"def {name}({', '.join([*params, 'BLOCK: tl.constexpr'])}):",
            "    cols = tl.arange(0, BLOCK)",
            f"    mask = cols < {self.hidden}",
        ]
        return [*head, *self.lines, f"    return {self._name(value, 0)}"]

    def member_function(self, name: str) -> tuple[list[str], int]:
        """The body as `@triton.jit def name(in..., out..., program, ROWS, BLOCK)`: the
        kernel's text for the program numbered `program` of this body's own launch
        (both grid axes folded into one number, row tiles outer), without the wait for
        the previous launch (the group's kernel waits once). Returns the lines and the
        number of programs the body's own launch has."""
        tiles = self.launch.column_tiles
        if tiles > 1:
            self.first_column = f"program % {tiles} == 0"
        params = self._body()
        signature = (
            f"def {name}({', '.join(params)}, program, ROWS: tl.constexpr, BLOCK: tl.constexpr):"
        )
        if not self.launch.tiled:
            head = ["    row = program.to(tl.int64)", "    cols = tl.arange(0, BLOCK)"]
        else:
            tile = "program" if tiles == 1 else f"(program // {tiles})"
            columns = "tl.arange(0, BLOCK)[None, :]"
            if tiles > 1:
                columns = f"(program % {tiles}) * BLOCK + {columns}"
            head = [
                f"    row = {tile}.to(tl.int64) * ROWS + tl.arange(0, ROWS)[:, None]",
                f"    cols = {columns}",
            ]
        head.append(f"    mask = cols < {self.hidden}")
        if self.launch.tiled and self.launch.ragged:
            head.append(f"    inrow = row < {self.launch.rows}")
        return ["@triton.jit", signature, *head, *self.lines], math.prod(self.launch.grid)

    def _load(
        self,
        value: SSAValue,
        source: SSAValue,
        shift: int,
        strides: tuple[int, ...] | None = None,
    ) -> None:
        """Load `value` at `shift` from kernel input `source` (its own or transposed rows)."""
        offset = _row_offset(_shape(value), self.lead, strides)
        pointer = self.inputs[source]
        if self._lanes(value):
            at, mask = _columns(shift), self._guard(self._mask(value, shift), offset)
            load = f"tl.load({pointer} + {offset} + {at}, mask={mask}, other=0.0)"
        else:
            guard = self._guard(None, offset)
            masked = "" if guard is None else f", mask={guard}, other=0.0"
            load = f"tl.load({pointer} + {offset}{masked})"
        self._define(value, shift, f"{load}.to(tl.float32)", round_=False)

    def _store(self, index: int, value: SSAValue) -> None:
        offset = _row_offset(_shape(value), self.lead)
        element = _TL_TYPES[_element(value)]
        source = self._name(value, 0)
        if self._lanes(value):
            mask = self._guard(self._mask(value, 0), offset)
            self.lines.append(
                f"    tl.store(out{index} + {offset} + cols, {source}.to({element}), mask={mask})"
            )
            return
        guard = self._guard(None, offset)
        masked = "" if guard is None else f", mask={guard}"
        store = f"tl.store(out{index} + {offset}, {source}.to({element}){masked})"
        if self.launch.column_tiles > 1:  # every column tile holds the row's scalar
            self.lines += [f"    if {self.first_column}:", f"        {store}"]
        else:
            self.lines.append(f"    {store}")

    def _emit(self, op: Operation, shift: int) -> None:
        result = op.results[0]
        if isinstance(op, hl.ConstantOp):
            self.literals[result] = float(constant_tensor(op.value).reshape(-1)[0])
            self.names[(result, shift)] = _literal(op)
            return
        if isinstance(op, hl.TransposeOp):
            self._load(result, op.operands[0], shift, _transposed_strides(op))
            return
        if isinstance(op, hl.SliceOp):  # an alias: the operand at a later column
            self.names[(result, shift)] = self._name(op.operands[0], shift + slice_start(op))
            return
        if isinstance(op, hl.CatOp):
            self._define(result, shift, self._cat(op, shift), round_=False)
            return
        reduces = op.name in ("hl.sum", "hl.mean", "hl.amax", "hl.softmax")
        operands = [self._name(v, 0 if reduces else shift) for v in op.operands]
        expr = self._expr(op, operands)
        if op.name in ("hl.sum", "hl.mean", "hl.amax") and self._lanes(result):
            expr = f"tl.zeros([BLOCK], dtype=tl.float32) + ({expr})"  # hidden == 1
        self._define(result, shift, expr)

    def _cat(self, op: Operation, shift: int) -> str:
        """Piece i (read at its own columns) where the column is in piece i's range."""
        at = _columns(shift)
        offsets = cat_offsets(op)
        pieces = [self._name(v, shift - o) for v, o in zip(op.operands, offsets, strict=True)]
        expr = pieces[-1]
        for piece, end in zip(reversed(pieces[:-1]), reversed(offsets[1:]), strict=True):
            expr = f"tl.where({at} < {end}, {piece}, {expr})"
        return expr

    def _expr(self, op: Operation, x: list[str]) -> str:
        binary = {"hl.add": "+", "hl.sub": "-", "hl.mul": "*", "hl.div": "/"}
        name = op.name
        if name in binary:
            return f"{x[0]} {binary[name]} {x[1]}"
        if name in ("hl.maximum", "hl.minimum"):  # NaN wins, as in torch.maximum
            return f"tl.{name[3:]}({x[0]}, {x[1]}, propagate_nan=tl.PropagateNan.ALL)"
        if name == "hl.pow":
            exponent = self.literals.get(op.operands[1])
            if exponent is None:
                raise CodegenError("hl.pow in a fused kernel needs a literal exponent")
            return _pow(x[0], exponent)
        unary = {
            "hl.neg": "-{0}",
            "hl.rsqrt": "tl.rsqrt({0})",
            "hl.sqrt": "tl.sqrt({0})",
            "hl.exp": "tl.exp({0})",
            "hl.log": "tl.log({0})",
            "hl.abs": "tl.abs({0})",
            "hl.relu": "tl.maximum({0}, 0.0, propagate_nan=tl.PropagateNan.ALL)",
            "hl.silu": "{0} * tl.sigmoid({0})",
            "hl.sigmoid": "tl.sigmoid({0})",
            "hl.cast": "{0}",
        }
        if name in unary:
            return unary[name].format(x[0])
        if name == "hl.tanh":
            square = f"t{len(self.names)}"
            self.lines.append(f"    {square} = {x[0]} * {x[0]}")
            return _tanh(x[0], square)
        if name == "hl.sum":
            return f"tl.sum(tl.where(mask, {x[0]}, 0.0), axis=0)"
        if name == "hl.mean":
            return f"tl.sum(tl.where(mask, {x[0]}, 0.0), axis=0) / {float(self.hidden)!r}"
        if name == "hl.amax":  # NaN wins, as in torch.amax (tl.max would skip it)
            self.imports.add(_NAN_MAX_IMPORT)
            return f'tl.reduce(tl.where(mask, {x[0]}, float("-inf")), 0, max_keeping_nan)'
        if name == "hl.softmax":
            peak = f'tl.max(tl.where(mask, {x[0]}, float("-inf")), axis=0)'
            e = f"e{len(self.names)}"
            self.lines.append(f"    {e} = tl.where(mask, tl.exp({x[0]} - {peak}), 0.0)")
            return f"{e} / tl.sum({e}, axis=0)"
        raise CodegenError(f"no Triton code for '{name}' in a fused kernel")


@dataclass(frozen=True)
class EpilogueMember:
    """What the text of a GEMV epilogue kernel says about one member of the group."""

    reads_c: bool
    has_bias: bool
    d_element: str
    """D's element type (`bf16`, `f16`, `f32`): the member's sum is rounded to it, as the
    member's own launch stores it, before the body reads it."""


_PROLOGUE = "prologue"
"""The name of a GEMV group's prologue function in its kernel's text."""


def _member_params(index: int, with_d: bool) -> str:
    """The parameters of GEMV member `index` in a group kernel's signature."""
    d = f"d{index}, m{index}, " if with_d else ""
    stride_d = f", stride_d{index}" if with_d else ""
    return (
        f"a{index}, c{index}, bias{index}, {d}stride_am{index}, stride_ak{index}, "
        f"stride_c{index}, stride_bias{index}{stride_d}, alpha{index}, beta{index}"
    )


def _member_sum(index: int, member: EpilogueMember, block: str, m: str, pdl: str | None) -> str:
    """The call that sums member `index`'s rows of row block `block`: over the vector in
    memory (`gemv_rows`, `pdl` its wait) or, where `pdl` is None, over the prologue's
    vector `h` in registers (`gemv_rows_of_vector`)."""
    flags = f"{member.reads_c}, {member.has_bias}, BLOCK_M, BLOCK_K"
    strides = f"stride_am{index}, stride_ak{index}"
    if pdl is None:
        return (
            f"gemv_rows_of_vector(a{index}, h, c{index}, bias{index}, {block}, {m}, k, "
            f"{strides}, stride_c{index}, stride_bias{index}, alpha{index}, beta{index}, "
            f"{flags})"
        )
    return (
        f"gemv_rows(a{index}, x, c{index}, bias{index}, {block}, {m}, k, {strides}, "
        f"stride_x, stride_c{index}, stride_bias{index}, alpha{index}, beta{index}, "
        f"{flags}, {pdl}, False)"
    )


class _EpilogueGenerator(_Generator):
    """The body of a group's epilogue over the GEMV rows a program computes: lane i is
    output row `rows[i]` of every member (the body is elementwise, so a lane needs no
    other lane), and an input of the body is the rounded sum of the member whose D it
    reads. With `prologue` (its function's lines and input count) the members sum
    against the prologue's vector in registers instead of one in memory."""

    def __init__(
        self,
        block: Block,
        members: tuple[EpilogueMember, ...],
        sources: list[int],
        prologue: tuple[list[str], int] | None = None,
    ):
        super().__init__(block, tile=False)
        self.members = members
        self.sources = sources
        self.prologue = prologue

    def text(self) -> str:
        member_params = [_member_params(i, with_d=False) for i in range(len(self.members))]
        outputs = list(self.terminator.values)
        head = ["x", "k", "stride_x", "m"]
        functions: list[str] = []
        if self.prologue is not None:
            functions, inputs = self.prologue
            head = [*(f"p_in{i}" for i in range(inputs)), "k", "m"]
        params = [*head, *member_params, *(f"out{i}" for i in range(len(outputs)))]
        lines = [
            *_gemv_imports(self.imports, prologue=self.prologue is not None),
            *functions,
            "",
            "",
            *_gemv_signature(params),
        ]
        if self.prologue is not None:
            lines += _prologue_lines(self.prologue[1])
        lines += [
            "    block = tl.program_id(0)",
            "    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)",
        ]
        for i, member in enumerate(self.members):
            # Only the first waits for the previous launch (lumir.runtime.pdl); with a
            # prologue, the prologue waited.
            pdl = None if self.prologue is not None else ("PDL" if i == 0 else "False")
            lines.append(f"    d{i} = {_member_sum(i, member, 'block', 'm', pdl)}")
            if member.d_element != "f32":
                element = _TL_TYPES[member.d_element]
                lines.append(f"    d{i} = d{i}.to({element}).to(tl.float32)")
        for arg, source in zip(self.block.args, self.sources, strict=True):
            self.names[(arg, 0)] = f"d{source}"
        for op in self.ops:
            self._emit(op, 0)
        lines += self.lines
        for index, value in enumerate(outputs):
            element = _TL_TYPES[_element(value)]
            lines.append(
                f"    tl.store(out{index} + rows, {self._name(value, 0)}.to({element}), "
                "mask=rows < m)"
            )
        return "\n".join([*lines, ""])


def _gemv_imports(helpers: set[str], prologue: bool) -> list[str]:
    """The import lines of a GEMV group kernel: triton, the GEMV row sums, the PDL wait
    where a prologue waits itself, and the helpers the bodies call, sorted."""
    lines = ["import triton", "import triton.language as tl", ""]
    if prologue:
        lines += [
            "from lumir.runtime.gemv_kernel import gemv_rows_of_vector, store_rows",
            "from lumir.runtime.pdl_kernel import wait_for_previous_launch",
        ]
    else:
        lines.append("from lumir.runtime.gemv_kernel import gemv_rows")
    return [*lines, *sorted(helpers)]


def _gemv_signature(params: list[str]) -> list[str]:
    """The decorator and signature line of a GEMV group kernel with `params`."""
    return [
        "@triton.jit",
        f"def {KERNEL_NAME}({', '.join(params)}, BLOCK_M: tl.constexpr, "
        "BLOCK_K: tl.constexpr, PDL: tl.constexpr = False):",
    ]


def _prologue_lines(inputs: int) -> list[str]:
    """A group kernel's first lines with a prologue: wait for the previous launch, then
    compute the prologue's row as `h`, zero past k (a lane past the row must add
    nothing to a sum, even where the body gives it a value there)."""
    arguments = ", ".join([*(f"p_in{i}" for i in range(inputs)), "BLOCK_K"])
    return [
        "    wait_for_previous_launch(PDL)",
        "    cols = tl.arange(0, BLOCK_K)",
        f"    h = tl.where(cols < k, {_PROLOGUE}({arguments}), 0.0)",
    ]


def generate_gemv_epilogue(
    block: Block, members: tuple[EpilogueMember, ...], sources: list[int]
) -> str:
    """The Triton source of one kernel running a `cublaslt_rt.matmul_group` with its
    epilogue (`lumir.runtime.gemv_epilogue`): each program sums its BLOCK_M rows of
    every member with `gemv_kernel.gemv_rows` (the code of the member's own launch),
    rounds each to its D's type, and computes the elementwise body `block` on them,
    body argument i reading member `sources[i]`; only the body's results are stored.
    Like `generate`, the text depends only on the body and the members' flags."""
    if not is_elementwise(block.ops):
        raise CodegenError("a GEMV epilogue's body is elementwise")
    if len(sources) != len(block.args):
        raise CodegenError(f"{len(block.args)} body arguments, {len(sources)} sources")
    return _EpilogueGenerator(block, members, sources).text()


def generate_gemv_prologue(
    prologue: Block,
    members: tuple[EpilogueMember, ...],
    epilogue: Block | None = None,
    sources: list[int] | None = None,
) -> str:
    """The Triton source of one kernel running a `cublaslt_rt.matmul_group` with its
    prologue (`lumir.runtime.gemv_prologue`): every program computes the prologue's
    one-row body in registers (`_Generator.row_function`, op by op with the fused
    kernel's rounding), then sums its BLOCK_M rows against it with
    `gemv_kernel.gemv_rows_of_vector` (the order of the member's own launch, whose one
    block holds the row). Without an epilogue, member i owns the programs after member
    i-1's, one per row block of its own D, and stores its rows; each member's branch
    computes `h` itself (a program runs one branch, so the work is the same): with one
    `h` before the branches, Triton 3.6's layout pass (`TritonGPURemoveLayoutConversions`)
    fails on an H100 for pointers it knows aligned ("operand #0 does not dominate this
    use"), where 3.9 compiles it. With an epilogue (`epilogue`,
    body argument i reading member `sources[i]`), every program sums every member's
    rows and computes the epilogue on them, as `generate_gemv_epilogue` does. Like
    `generate`, the text depends only on the bodies and the members' flags."""
    if len(prologue.last_op.operands) != 1:  # type: ignore[union-attr]
        raise CodegenError("a GEMV prologue's body has one result, the members' B")
    generator = _Generator(prologue, tile=False)
    if math.prod(generator.lead) != 1:
        raise CodegenError("a GEMV prologue's body computes one row")
    function = ["", "", *generator.row_function(_PROLOGUE)]
    inputs = len(prologue.args)
    if epilogue is not None:
        if not is_elementwise(epilogue.ops):
            raise CodegenError("a GEMV epilogue's body is elementwise")
        if sources is None or len(sources) != len(epilogue.args):
            raise CodegenError("an epilogue needs one source member per body argument")
        body = _EpilogueGenerator(epilogue, members, sources, (function, inputs))
        body.imports |= generator.imports
        return body.text()
    params = [*(f"p_in{i}" for i in range(inputs)), "k"]
    params += [_member_params(i, with_d=True) for i in range(len(members))]
    wait, *row = _prologue_lines(inputs)
    lines = [
        *_gemv_imports(generator.imports, prologue=True),
        *function,
        "",
        "",
        *_gemv_signature(params),
        wait,
        "    program = tl.program_id(0)",
    ]
    # Member i owns programs [end<i-1>, end<i>), one per row block of its own D.
    for i in range(len(members) - 1):
        start = "0" if i == 0 else f"end{i - 1}"
        lines.append(f"    end{i} = {start} + tl.cdiv(m{i}, BLOCK_M)")
    for i, member in enumerate(members):
        if i == 0:
            lines += ["    if program < end0:", "        block = program"]
        else:
            test = f"elif program < end{i}:" if i < len(members) - 1 else "else:"
            lines += [f"    {test}", f"        block = program - end{i - 1}"]
        lines += [
            *(f"    {line}" for line in row),
            f"        result = {_member_sum(i, member, 'block', f'm{i}', None)}",
            f"        store_rows(d{i}, stride_d{i}, block, m{i}, result, BLOCK_M)",
        ]
    return "\n".join([*lines, ""])


@dataclass(frozen=True)
class FusedGroupSource:
    """A generated kernel running several fused bodies as one launch."""

    text: str
    """Python source defining `@triton.jit def lumir_fused(m0_in0, ..., m0_out0, ...,
    m1_in0, ..., PDL)` and one function per member."""
    programs: int
    """The one-dimensional grid: the members' programs, one after the other."""
    num_warps: int
    """Warps of every program: 4 where a member reduces over its rows (what its
    numerics were checked with, `fused_tiling.ROW_WARPS`), else the members' most."""


def generate_group(blocks: list[Block]) -> FusedGroupSource:
    """The Triton kernel of a `cublaslt_rt.fused_group`: member i's programs follow
    member i-1's, and each runs `member<i>`, the text its own kernel would run for its
    program (`_Generator.member_function`), so every member writes the bits its own
    launch writes. The wait for the previous launch (PDL) comes once, first. Like
    `generate`, the text depends only on the bodies."""
    functions: list[str] = []
    imports: set[str] = set()
    params: list[str] = []
    calls: list[str] = []
    start = 0
    warps: list[int] = []
    reduces = False
    for index, block in enumerate(blocks):
        generator = _Generator(block, tile=True)
        lines, programs = generator.member_function(f"member{index}")
        functions += ["", "", *lines]
        imports |= generator.imports
        launch = generator.launch
        warps.append(launch.num_warps)
        reduces = reduces or not launch.tiled
        own = [f"in{i}" for i in range(len(block.args))]
        own += [f"out{i}" for i in range(len(generator.terminator.values))]
        params += [f"m{index}_{name}" for name in own]
        program = "program" if start == 0 else f"program - {start}"
        call = (
            f"member{index}({', '.join(f'm{index}_{name}' for name in own)}, {program}, "
            f"{launch.rows_per_program}, {launch.block})"
        )
        start += programs
        if index == 0:
            calls += [f"    if program < {start}:", f"        {call}"]
        elif index < len(blocks) - 1:
            calls += [f"    elif program < {start}:", f"        {call}"]
        else:
            calls += ["    else:", f"        {call}"]
    lines = [
        *_imports(imports),
        *functions,
        "",
        "",
        "@triton.jit",
        f"def {KERNEL_NAME}({', '.join(params)}, PDL: tl.constexpr = False):",
        "    wait_for_previous_launch(PDL)",
        "    program = tl.program_id(0)",
        *calls,
        "",
    ]
    num_warps = ROW_WARPS if reduces else max(warps)
    return FusedGroupSource("\n".join(lines), start, num_warps)


def generate(block: Block, tile: bool = True) -> FusedKernelSource:
    """The Triton kernel computing a fused body (`hl.fused` or `cublaslt_rt.fused_launch`).

    `tile=False` gives every body one program per row (`fused_tiling.one_row_launch`),
    the kernels as they were before tiling: `bench/fused_kernels_bench.py` times both,
    and the interpreter check requires both to compute the same bits."""
    return _Generator(block, tile).generate()


__all__ = [
    "KERNEL_NAME",
    "CodegenError",
    "EpilogueMember",
    "FusedGroupSource",
    "FusedKernelSource",
    "generate",
    "generate_gemv_epilogue",
    "generate_gemv_prologue",
    "generate_group",
]
