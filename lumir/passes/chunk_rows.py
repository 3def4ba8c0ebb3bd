"""Run a large MLP in row chunks, so that its projections' temporaries never exist whole.

A Llama MLP is `down(SiLU(gate(x)) * up(x))`. Lowered, gate and up each write a
[tokens, intermediate] buffer, and the fused SiLU·mul reads both and (in place) writes
the activation the down projection reads. At 1024 tokens of a Llama-3.2-1B those are
16 MiB each, and the moment both exist (beside the residual and the normed input) is
the peak of the whole program's intermediates: the arena the buffer plan sizes, held
for as long as the program is loaded, and so part of the peak GPU memory of every call.

Every op of that group works on each token's row alone, so it can run a block of rows
at a time. This pass finds such a group, a `cublaslt_rt.fused_launch` with an
elementwise body whose inputs are `cublaslt_rt.matmul` results read nowhere else (or a
one-op product launch, `PROMOTABLE`, as a GELU-gated MLP leaves after gate's GEMM
computes the GELU). One
of those matmuls, whose D has the output's type (gate), writes straight into the
output, whole: the launch will rewrite it in place (SiLU(gate) * up over gate), so it
needs no bytes of its own either way. When the others' results (up) would be larger
than `max_bytes`, the rest runs chunk by chunk of rows: each of those matmuls on that
chunk's rows of its B (and C) into a chunk-sized buffer, then the launch on that
chunk's rows of its inputs and output. At 1024 tokens of the 1B model, two chunks of
512 rows keep 32 MiB live at the MLP instead of 40.

Each element is computed by the same operations on the same operands; only a chunked
GEMM's row count changes (cuBLASLt's heuristic may pick another kernel for it, as it
may for another sequence length). The cost is a launch per extra chunk per chunked op
(at 1024 tokens of the 1B model, two per layer), so groups whose temporaries fit in
`max_bytes` are left alone: a decode step or a short prompt is unchanged.

The rows are the outputs' leading dimensions flattened. Chunks are balanced, each at
most `max_bytes` of temporaries and a multiple of the fewest rows that start every chunk
on a 256-byte boundary of every buffer it cuts (what cuBLASLt's fastest kernels want of
a pointer), and there are at most `MAX_CHUNKS` of them: past that, chunks hold more than
`max_bytes` (still a `MAX_CHUNKS`-th of the group's temporaries). A matmul moves down to
the launch only when no op it crosses writes what it reads. New plans are named after
the plan they narrow (`@plan4_rows512`); a plan no call names any more is removed.
Nothing depends on set or dict order, so a module always chunks the same way; a second
run finds nothing left to chunk.

Run it on lowered IR before the buffer plan (`share-buffers`), as lumir-pipeline does:
the plan then packs the chunks' short-lived buffers into the bytes of one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, MemRefType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from lumir.cublaslt_enums import Order, Transpose
from lumir.diagnostics import Diagnostic, LumirDiagnosticError, copy_location
from lumir.dialects.cublaslt_rt import (
    AllocOp,
    FusedLaunchOp,
    LaunchOp,
    MatmulOp,
    PlanOp,
    ViewOp,
    buffer_bytes,
    byte_range,
    element_byte_width,
    hl_op_class,
    overlap,
    tensor_of,
)
from lumir.dialects.hl.fused import YieldOp
from lumir.dialects.hl.row_program import is_elementwise
from lumir.passes import check_int_option
from lumir.passes.buffer_plan import ALIGNMENT
from lumir.passes.program_order import ProgramOrder

MAX_BYTES = 8 << 20
"""Temporaries a group may hold at once before it runs in chunks (8 MiB): a Llama-1B
MLP's up projection at 512 tokens fits, at 1024 it runs in two chunks."""

MAX_CHUNKS = 256
"""The most chunks one group runs in. Each chunk is a few ops in the function, so the
IR grows with the chunk count: 2^32 rows of 64 f32 at `max_bytes=4096` asked for 2^28
chunks, and lumir-opt built ops until it was killed (mutate fuzzer, mutant 266 of seed
7). 1024 chunks of a gated MLP took 5.5 s to build and print and 9.3 s to read back;
256 take 2 s and 3.7 s. At the default `max_bytes`, 256 chunks cover 2 GiB of
temporaries; a larger group runs in 256 chunks larger than `max_bytes`, a 256th of its
temporaries each."""


@dataclass(frozen=True)
class _Feed:
    """A matmul whose D only the fused launch reads, as its input `index`."""

    matmul: MatmulOp
    plan: PlanOp
    index: int


@dataclass(frozen=True)
class _Group:
    """A fused launch (with its feeding matmuls) to run `chunk` rows at a time.

    Its rows are its outputs' leading dimensions flattened: in a chunk every value that
    spans them is a [rows, width] matrix, and every value that does not (a weight
    vector, a scalar) keeps its columns as a [1, width] row (or stays as it is, at rank
    one or zero), which broadcasts against it as before."""

    launch: FusedLaunchOp
    feeds: tuple[_Feed, ...]
    carrier: _Feed | None
    """The feed computed straight into the whole first output, then overwritten."""
    rows: int
    width: int
    chunk: int


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, (MemRefType, TensorType))
    return tuple(value.type.get_shape())


def _element(value: SSAValue) -> Attribute:
    assert isinstance(value.type, (MemRefType, TensorType))
    return value.type.element_type


def _row_bytes(value: SSAValue) -> int:
    """Bytes of one row (the last dimension) of a dense buffer."""
    return _shape(value)[-1] * element_byte_width(_element(value))


def _spans_rows(shape: tuple[int, ...], full: tuple[int, ...]) -> bool | None:
    """True for a value over the group's rows (`full`, with leading 1s dropped or
    added), False for one over none of them, None for one over some (a per-row scale,
    a partial broadcast), which a chunk cannot express as a row window."""
    rank = max(len(shape), len(full))
    aligned = (1,) * (rank - len(shape)) + shape
    if aligned == (1,) * (rank - len(full)) + full:
        return True
    if all(size == 1 for size in aligned[:-1]):
        return False
    return None


def _users(value: SSAValue) -> list[Operation]:
    """Every op that reads or writes `value` or a view of it (once per use)."""
    found: list[Operation] = []
    for use in value.uses:
        if isinstance(use.operation, ViewOp):
            found += _users(use.operation.result)
        else:
            found.append(use.operation)
    return found


def _matrix(value: SSAValue) -> tuple[int, int]:
    """A dense buffer as a matrix: (its leading dimensions flattened, its last)."""
    shape = _shape(value)
    return math.prod(shape[:-1]), shape[-1]


def _narrowable(matmul: MatmulOp, plan: PlanOp, rows: int) -> bool:
    """Whether a call's rows (cuBLASLt's n) are contiguous rows of B, C and D, so that a
    block of them is a byte window of each."""
    desc = plan.descriptor()
    dense_c = matmul.c is None or (
        matmul.c is not matmul.d and _matrix(matmul.c) == (rows, desc.m) and desc.ldc == desc.m
    )
    return (
        plan.algorithm.data == "heuristic"
        and desc.batch_count == 1
        and desc.n == rows
        and desc.transb == Transpose.N
        and desc.order_b == Order.COL
        and desc.order_d == Order.COL
        and desc.ldb == desc.k
        and desc.ldd == desc.m
        and _matrix(matmul.b) == (rows, desc.k)
        and _matrix(matmul.d) == (rows, desc.m)
        and dense_c
    )


def _feed(launch: FusedLaunchOp, index: int, rows: int) -> _Feed | None:
    """The matmul feeding input `index` of `launch`, when its D is a whole buffer of its
    own, of the input's element type, that only the matmul and this input touch."""
    value = launch.inputs[index]
    root, start, end = byte_range(value)
    if not isinstance(root.owner, AllocOp) or (start, end) != (0, buffer_bytes(root.type)):  # type: ignore[arg-type]
        return None
    if _element(root) != _element(value):
        return None
    users = [op for op in _users(root) if op.parent_block() is not None]  # in the program
    writers = [op for op in users if isinstance(op, MatmulOp) and op.d is root]
    if len(writers) != 1:
        return None
    others = [op for op in users if op is not writers[0]]
    if len(others) != 1 or others[0] is not launch:
        return None
    matmul = writers[0]
    plan = matmul.plan_op()
    if plan is None or not _narrowable(matmul, plan, rows):
        return None
    return _Feed(matmul, plan, index)


def _body_chunkable(launch: FusedLaunchOp, full: tuple[int, ...]) -> bool:
    """Whether every value of the body spans all the rows or none, and no literal of
    rank two or more would need reshaping."""
    for op in launch.body.block.ops:
        for result in op.results:
            spans = _spans_rows(_shape(result), full)
            if spans is None or (op.name == "hl.constant" and len(_shape(result)) > 1):
                return False
    return all(_spans_rows(_shape(arg), full) is not None for arg in launch.body.block.args)


def _match(launch: FusedLaunchOp, state: ProgramOrder, max_bytes: int) -> _Group | None:
    """The group `launch` heads, when running it in chunks is legal and saves memory:
    an elementwise body over whole rows, at least one feed, nothing read sharing the
    outputs' bytes, temporaries over `max_bytes`, every feed free to move down to the
    launch, and a chunk size that fits."""
    outputs = list(launch.outputs)
    full = _shape(outputs[0])
    if len(full) < 2 or not is_elementwise(launch.body.block.ops):
        return None
    if any(_shape(o) != full or not isinstance(o.owner, AllocOp) for o in outputs):
        return None
    rows, width = math.prod(full[:-1]), full[-1]
    feeds: list[_Feed] = []
    cut: list[SSAValue] = list(outputs)
    for index, value in enumerate(launch.inputs):
        spans = _spans_rows(_shape(value), full)
        if value in outputs or spans is None:
            return None
        if spans:
            feed = _feed(launch, index, rows)
            if feed is not None:
                feeds.append(feed)
            else:
                cut.append(value)
    if not feeds or not _body_chunkable(launch, full):
        return None
    # The whole output is written before any chunk reads: nothing read may share its bytes.
    read = [*launch.inputs, *(v for f in feeds for _, v in f.matmul.read_operands())]
    if any(overlap(value, output) for value in read for output in outputs):
        return None
    carrier = next((f for f in feeds if launch.inputs[f.index].type == outputs[0].type), None)
    row_temporaries = sum(_row_bytes(launch.inputs[f.index]) for f in feeds if f is not carrier)
    if row_temporaries * rows <= max_bytes:
        return None
    for feed in feeds:
        reads = [value for _, value in feed.matmul.read_operands()]
        if not state.can_move_above(reads, [feed.matmul.d], state.crossed(feed.matmul, launch)):
            return None
        if feed is not carrier:
            cut += [v for v in (feed.matmul.b, feed.matmul.c) if v is not None]
    chunk = _chunk_size(rows, row_temporaries, max_bytes, _quantum(cut))
    if chunk is None:
        return None
    return _Group(launch, tuple(feeds), carrier, rows, width, chunk)


def _quantum(cut: Sequence[SSAValue]) -> int:
    """The fewest rows per chunk that start every chunk of every cut buffer on an
    `ALIGNMENT`-byte boundary."""
    quantum = 1
    for value in cut:
        quantum = math.lcm(quantum, ALIGNMENT // math.gcd(ALIGNMENT, _row_bytes(value)))
    return quantum


def _chunk_size(rows: int, row_bytes: int, max_bytes: int, quantum: int) -> int | None:
    """Balanced chunks of `rows`, each a multiple of `quantum` rows holding at most
    `max_bytes` of temporaries (`row_bytes` a row), or larger ones when that would
    take over `MAX_CHUNKS`; None when no chunk would fit or one would hold every row."""
    most = (max_bytes // row_bytes) // quantum * quantum
    if most == 0 or most >= rows:
        return None
    count = min(-(-rows // most), MAX_CHUNKS)
    balanced = -(-rows // count)
    return -(-balanced // quantum) * quantum


class _Chunker:
    """Builds the chunked ops of one group before its launch, then removes the group."""

    def __init__(self, module: ModuleOp, group: _Group) -> None:
        self.module = module
        self.group = group
        self.launch = group.launch
        self.plans: dict[tuple[str, int], str] = {}
        self.views: dict[tuple[SSAValue, int, tuple[int, ...]], SSAValue] = {}

    def insert(self, op: Operation) -> None:
        self.launch.parent_block().insert_op_before(op, self.launch)  # type: ignore[union-attr]

    def view(self, source: SSAValue, offset: int, shape: Sequence[int]) -> SSAValue:
        """A view of `source` (one per source, offset and shape: two calls reading one B
        share it)."""
        key = (source, offset, tuple(shape))
        if key not in self.views:
            view = ViewOp(source, offset, MemRefType(_element(source), list(shape)))
            copy_location(self.launch, view)
            self.insert(view)
            self.views[key] = view.result
        return self.views[key]

    def rows_of(self, value: SSAValue, start: int, count: int) -> SSAValue:
        """Rows [start, start + count) of a buffer over the group's rows, as a matrix
        (named `<value>_rows<start>`, where the value has a name)."""
        window = self.view(value, start * _row_bytes(value), (count, _shape(value)[-1]))
        if value.name_hint is not None and window.name_hint is None:
            window.name_hint = f"{value.name_hint}_rows{start}"
        return window

    def plan(self, feed: _Feed, rows: int) -> str:
        """The plan of `feed`'s call narrowed to `rows` (made once, before its own)."""
        key = (feed.plan.sym_name.data, rows)
        if key not in self.plans:
            name = f"{feed.plan.sym_name.data}_rows{rows}"
            plan = PlanOp(
                name,
                replace(feed.plan.descriptor(), n=rows),
                feed.plan.workspace_size.value.data,
                feed.plan.bias_data_type(),
                feed.plan.algorithm.data,
            )
            copy_location(feed.plan, plan)
            self.module.body.block.insert_op_before(plan, feed.plan)
            self.plans[key] = name
        return self.plans[key]

    def matmul(self, feed: _Feed, start: int, count: int, d: SSAValue) -> None:
        """`feed`'s call on rows [start, start + count) of its B and C, into `d`."""
        source = feed.matmul
        c = self.rows_of(source.c, start, count) if source.c is not None else None
        matmul = MatmulOp(
            self.plan(feed, count),
            source.a,
            self.rows_of(source.b, start, count),
            d,
            c,
            source.bias,
        )
        copy_location(source, matmul)
        self.insert(matmul)

    def chunk(self, start: int, count: int) -> None:
        launch, group = self.launch, self.group
        outputs = [self.rows_of(value, start, count) for value in launch.outputs]
        by_index = {feed.index: feed for feed in group.feeds}
        inputs: list[SSAValue] = []
        for index, value in enumerate(launch.inputs):
            feed = by_index.get(index)
            if feed is not None and feed is group.carrier:
                inputs.append(outputs[0])
            elif feed is not None:
                buffer = AllocOp(MemRefType(_element(value), [count, group.width]))
                if value.name_hint is not None:
                    buffer.memref.name_hint = f"{value.name_hint}_rows{start}"
                copy_location(feed.matmul, buffer)
                self.insert(buffer)
                self.matmul(feed, start, count, buffer.memref)
                inputs.append(buffer.memref)
            elif _spans_rows(_shape(value), _shape(launch.outputs[0])):
                inputs.append(self.rows_of(value, start, count))
            elif len(_shape(value)) > 2:
                inputs.append(self.view(value, 0, _narrowed(_shape(value), group, count)))
            else:
                inputs.append(value)
        chunked = FusedLaunchOp(inputs, outputs, self.body(count))
        copy_location(launch, chunked)
        self.insert(chunked)

    def body(self, count: int) -> Region:
        """The launch's body on a chunk of `count` rows: every value retyped."""
        group = self.group

        def narrowed(value: SSAValue) -> Attribute:
            return TensorType(_element(value), _narrowed(_shape(value), group, count))

        source = self.launch.body.block
        block = Block(arg_types=[narrowed(arg) for arg in source.args])
        values: dict[SSAValue, SSAValue] = {}
        for old, new in zip(source.args, block.args, strict=True):
            new.name_hint = old.name_hint
            values[old] = new
        for op in source.ops:
            fresh = type(op).create(
                operands=[values[v] for v in op.operands],
                result_types=[narrowed(r) for r in op.results],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            fresh.location = op.location
            for old, new in zip(op.results, fresh.results, strict=True):
                new.name_hint = old.name_hint
                values[old] = new
            block.add_op(fresh)
        return Region(block)

    def run(self) -> None:
        rows, chunk = self.group.rows, self.group.chunk
        carrier = self.group.carrier
        if carrier is not None:
            # One whole call into the output: chunking it would save no memory (its D
            # is the output either way), only add launches.
            source = carrier.matmul
            output = self.launch.outputs[0]
            if _shape(output) != (rows, self.group.width):
                hint = output.name_hint
                output = self.view(output, 0, (rows, self.group.width))
                if hint is not None:
                    output.name_hint = f"{hint}_all"
            whole = MatmulOp(
                carrier.plan.sym_name.data, source.a, source.b, output, source.c, source.bias
            )
            copy_location(source, whole)
            self.insert(whole)
        for start in range(0, rows, chunk):
            self.chunk(start, min(chunk, rows - start))
        roots = [feed.matmul.d for feed in self.group.feeds]
        for op in (self.launch, *(feed.matmul for feed in self.group.feeds)):
            op.detach()
            op.erase()
        for root in roots:
            _erase_unused(root)


def _narrowed(shape: tuple[int, ...], group: _Group, count: int) -> tuple[int, ...]:
    """A body value's shape on a chunk of `count` rows: [count, width] over the rows,
    [1, width] for a row of rank two or more, unchanged below that."""
    if _spans_rows(shape, _shape(group.launch.outputs[0])):
        return (count, group.width)
    if len(shape) > 2:
        return (1, shape[-1])
    return shape


def _erase_unused(value: SSAValue) -> None:
    """Erase the views of `value` nothing uses any more, then its alloc if unused."""
    for use in list(value.uses):
        if isinstance(use.operation, ViewOp):
            _erase_unused(use.operation.result)
    owner = value.owner
    if not value.uses and isinstance(owner, AllocOp | ViewOp):
        owner.detach()
        owner.erase()


PROMOTABLE = ("hl.add", "hl.sub", "hl.mul")
"""One-op launches chunk-rows runs as a fused launch of that op when their group runs in
chunks. A gated MLP whose activation cuBLASLt's GELU epilogue computes (Gemma) leaves
only `gate * up` after its GEMMs, one `hl.mul` that fuse-kernels, which fuses chains,
leaves alone. Each of these ops is exact in f32 and then rounded once, both in torch's
kernel and in the generated one, so the two write the same bits."""


def _promoted(op: LaunchOp) -> FusedLaunchOp | None:
    """`op` as a fused launch with a body of that one op, when it is `PROMOTABLE` on
    floats and reads and writes dense buffers."""
    plain = (
        op.params is None
        and op.input_windows is None
        and op.input_permutations is None
        and op.output_permutation is None
    )
    values = [*op.inputs, op.output]
    if op.kernel.data not in PROMOTABLE or not plain or op.output in op.inputs:
        return None
    if not all(isinstance(_element(v), AnyFloat) for v in values):
        return None
    op_class = hl_op_class(op.kernel.data)
    assert op_class is not None
    types = [tensor_of(v.type) for v in values]  # type: ignore[arg-type]
    block = Block(arg_types=types[:-1])
    inner = op_class.create(operands=list(block.args), result_types=[types[-1]])
    block.add_ops([inner, YieldOp([inner.results[0]])])
    fused = FusedLaunchOp(list(op.inputs), [op.output], Region(block))
    copy_location(op, fused)
    return fused


def chunk_function(module: ModuleOp, func: FuncOp, max_bytes: int = MAX_BYTES) -> int:
    """Chunk `func`'s large row-local groups in place (see the module doc); returns how
    many groups now run in chunks."""
    if not func.body.blocks:
        return 0
    block = func.body.block
    made = 0
    for op in [op for op in block.ops if isinstance(op, FusedLaunchOp | LaunchOp)]:
        launch = op if isinstance(op, FusedLaunchOp) else _promoted(op)
        if launch is None:
            continue
        if launch is not op:  # try the fused form in its place (the op, detached, waits)
            block.insert_op_before(launch, op)
            op.detach()
        group = _match(launch, ProgramOrder(block), max_bytes)
        if launch is not op:
            if group is None:  # the one-op launch goes back as it was
                block.insert_op_before(op, launch)
                launch.detach()
                launch.erase()
                continue
            op.erase()
        if group is None:
            continue
        _Chunker(module, group).run()
        made += 1
    return made


def _remove_unused_plans(module: ModuleOp) -> None:
    named = {op.plan.root_reference.data for op in module.walk() if isinstance(op, MatmulOp)}
    for plan in [op for op in module.ops if isinstance(op, PlanOp)]:
        if plan.sym_name.data not in named:
            plan.detach()
            plan.erase()


def check_byte_count(option: str, value: int, zero_means: str) -> None:
    """A chunk size given as an option must be a byte count; say which option if not.

    A boolean or a count past int64 is refused by `check_int_option`.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise LumirDiagnosticError(
            [Diagnostic(f"{option} must be a byte count >= 0 ({zero_means}), got {value}")]
        )
    check_int_option(option, value, 0, f" ({zero_means})")


@dataclass(frozen=True)
class ChunkRowsPass(ModulePass):
    """Run a row-local matmul group whose temporaries exceed `max_bytes` in row chunks.

    A `cublaslt_rt.fused_launch` with an elementwise body that reads matmul results
    nothing else reads (a Llama MLP's SiLU(gate) * up) runs, with those matmuls, on
    balanced chunks of its rows: each chunk's calls write chunk-sized buffers, and the
    one call whose D has the output's type writes the whole output first, which the
    launches then rewrite in place, so the group never holds more than `max_bytes` of
    temporaries and the buffer plan's arena shrinks by the rest (a Llama-1B at 1024
    tokens: 40 → 32 MiB). Values are computed by the
    same operations; a group under `max_bytes` is left alone. Run it on lowered IR
    before share-buffers, as lumir-pipeline does. See docs/passes/chunk-rows.md.
    """

    name = "chunk-rows"

    max_bytes: int = MAX_BYTES
    """The temporaries a group may hold at once before it runs in row chunks (0: no
    group is chunked)."""

    def __post_init__(self) -> None:
        check_byte_count("chunk-rows: max_bytes", self.max_bytes, "0 chunks nothing")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        changed = 0
        for func in list(op.ops):
            if isinstance(func, FuncOp):
                changed += chunk_function(op, func, self.max_bytes)
        if changed:
            _remove_unused_plans(op)


__all__ = ["MAX_BYTES", "ChunkRowsPass", "check_byte_count", "chunk_function"]
