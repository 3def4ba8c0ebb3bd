"""Check a generated Triton kernel against the reference, on CPU, under TRITON_INTERPRET=1.

Triton's interpreter runs a kernel with numpy on CPU tensors, so CI can check the
numerics of every generated kernel without a GPU. The variable must be set before
triton is first imported, so the check runs in a child process:
`python -m lumir.testing.fused_check FILE.mlir` loads the module's first fused body (an
`hl.fused` or `cublaslt_rt.fused_launch`; `--body N`: the N-th, from 0), feeds it seeded
random inputs (`--specials`: with a NaN, a +inf and a -inf in each, which every result
must carry where the reference has them), runs the kernel and the reference executor
(`fused_reference`) and prints the largest absolute difference per result (over elements
finite in both) as one JSON line; the exit status is 0 when every result is within
`--atol` + `--rtol` times the reference, element by element (`torch.allclose`, NaN where
the reference has NaN), and the kernel's launch (`fused_tiling`: tiles of rows and
columns where the body has no reduction) wrote the same bytes as the same body run one
row per program (`generate(block, tile=False)`): the interpreter computes a lane with
the same numpy operations in either form, so any difference is a tile indexing or
masking the wrong lanes. Where the body is elementwise, the kernel is also run with each
result written over each input of its shape and dtype (the buffer plan's in-place rule,
`cublaslt_rt.FusedLaunchOp.may_overwrite`), which must write the same bytes again
(`in_place`: `[result, input, same bytes]` per pair).

`within_bound` judges each result against the body computed in float64 instead
(`bind_fused_body(block, torch.float64)`): the kernel's error at each element may be at
most twice the reference's there, plus `BOUND_FLOOR` of the body's narrowest float type
times the exact value's and the result's mean magnitude, with NaN and infinities where
the reference has them (or, where they depend on a rounding, where the float64 body
has them). Where the reference rounds a half-precision value near a
tie, the last f32 bit of the interpreter's sqrt or exp (numpy's) can round it the other
way: both roundings are about half an ulp from the exact value, so this judge accepts
it even where a later op (a log near 1, a difference) magnifies it past any `rtol`,
while a wrong operation, operand or lane is far outside it. `--bound` makes it decide
the exit status in place of `--atol`/`--rtol`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from xdsl.ir import Block

if TYPE_CHECKING:
    from lumir.runtime.triton_codegen import FusedKernelSource

BOUND_FLOOR = {torch.float32: 1e-4, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}
"""The relative error `within_bound` allows every result of a body, by the narrowest
float type it computes in (the torch-level fuzzer's floors): f32 covers the order of a
row sum and the interpreter's transcendental functions; a half type one rounding."""


def triton_interpreter_available() -> str | None:
    """None if triton imports; else why not (the reason tests skip with)."""
    try:
        import importlib.util

        if importlib.util.find_spec("triton") is None:
            return "triton is not installed (pip install 'lumir[test]')"
    except (ImportError, ValueError) as error:
        return f"triton cannot be found: {error}"
    return None


def fused_bodies(text: str) -> list[Block]:
    """Every fused body (`hl.fused`, `cublaslt_rt.fused_launch`) of the module `text`, in
    walk order."""
    from lumir.dialects import cublaslt_rt, hl
    from lumir.parsing import parse_module_text

    module = parse_module_text(text, "<fused>")
    return [
        op.body.block
        for op in module.walk()
        if isinstance(op, hl.FusedOp | cublaslt_rt.FusedLaunchOp)
    ]


def first_fused_body(text: str, index: int = 0) -> Block:
    """The `index`-th fused body of the module `text`, in walk order."""
    bodies = fused_bodies(text)
    if index >= len(bodies):
        raise SystemExit(f"the module has no fused body {index} (it has {len(bodies)})")
    return bodies[index]


def check(
    text: str,
    seed: int = 0,
    body: int = 0,
    atol: float = 1e-5,
    rtol: float = 0.0,
    specials: bool = False,
) -> dict[str, object]:
    """Run fused body `body` of `text` both ways; the max abs difference per result
    (over the elements finite in both), whether each is within `atol + rtol *
    |reference|` everywhere with NaN and infinities where the reference has them
    (`close`), and whether the kernel as launched and its one-row-per-program form wrote
    the same bytes (`forms_equal`). `specials` writes a NaN, a +inf and a -inf into each
    floating input (`_with_specials`)."""
    from lumir.runtime.buffers import shaped_type_parts
    from lumir.runtime.fused_kernels import run_source
    from lumir.runtime.fused_reference import bind_fused_body
    from lumir.runtime.triton_codegen import generate
    from lumir.testing.interpreter_rounding import exact_bf16_casts

    exact_bf16_casts()  # bf16 conversions as a GPU does them
    block = first_fused_body(text, body)
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for arg in block.args:
        shape, dtype = shaped_type_parts(arg.type)
        drawn = torch.randn(shape, generator=generator)
        if specials and dtype.is_floating_point:
            drawn = _with_specials(drawn, generator)
        inputs.append(drawn.to(dtype))
    expected = bind_fused_body(block)(*inputs)
    # Dense outputs, as the runtime's buffers are (a result computed from a transposed
    # input may have permuted strides; empty_like would keep them).
    outputs = [torch.empty(e.shape, dtype=e.dtype) for e in expected]
    source = generate(block)
    run_source(source, inputs, outputs)
    one_row = generate(block, tile=False)
    forms_equal = True
    if one_row != source:
        rows = [torch.empty(e.shape, dtype=e.dtype) for e in expected]
        run_source(one_row, inputs, rows)
        forms_equal = all(_same_bytes(o, r) for o, r in zip(outputs, rows, strict=True))
    in_place = _in_place_runs(block, source, inputs, outputs)
    diffs, relative = [], []
    for o, e in zip(outputs, expected, strict=True):
        finite = o.float().isfinite() & e.float().isfinite()
        gap = (o.float() - e.float()).abs()[finite]
        diffs.append(float(gap.max()) if gap.numel() else 0.0)
        # The difference as a fraction of the reference's size (the test of a rounding step).
        scale = e.float().abs().clamp_min(1e-6)[finite]
        relative.append(float((gap / scale).max()) if gap.numel() else 0.0)
    close = [
        bool(torch.allclose(o.float(), e.float(), rtol=rtol, atol=atol, equal_nan=True))
        for o, e in zip(outputs, expected, strict=True)
    ]
    exact = bind_fused_body(block, torch.float64)(*(_widened(t) for t in inputs))
    floor = BOUND_FLOOR[_narrowest(block)]
    within_bound = [
        _within_bound(o, e, x, floor) for o, e, x in zip(outputs, expected, exact, strict=True)
    ]
    launch = source.launch
    return {
        "max_abs_diff": diffs,
        "max_rel_diff": relative,
        "close": close,
        "within_bound": within_bound,
        "forms_equal": forms_equal,
        "in_place": in_place,
        "launch": {
            "tiled": launch.tiled,
            "grid": list(launch.grid),
            "constants": launch.constants,
            "num_warps": launch.num_warps,
        },
        "source": source.text,
    }


def _widened(t: torch.Tensor) -> torch.Tensor:
    return t.double() if t.is_floating_point() else t


def _narrowest(block: Block) -> torch.dtype:
    """The float type of the body's values with the largest `BOUND_FLOOR`."""
    from xdsl.dialects.builtin import TensorType

    from lumir.runtime.buffers import shaped_type_parts

    values = [*block.args, *(r for op in block.ops for r in op.results)]
    dtypes = {shaped_type_parts(v.type)[1] for v in values if isinstance(v.type, TensorType)}
    return max(dtypes & BOUND_FLOOR.keys(), key=BOUND_FLOOR.__getitem__, default=torch.float32)


def _within_bound(got: torch.Tensor, want: torch.Tensor, exact: torch.Tensor, floor: float) -> bool:
    """Whether `got` has NaN and infinities where `want` (the reference) has them and
    elsewhere is within `2 |want - exact| + floor (|exact| + mean |exact|)` of the
    float64 `exact`. Where `got` and `want` differ in a special value, `got` must have
    the float64 value's (a NaN or infinity of the reference that depends on a rounding:
    the square root of a mean that cancels to -1e-9 where the exact one is 0), within
    the floor of it. Elements `exact` has no finite value for, and `want` does, are
    judged by the special values alone."""
    g, w, x = got.double(), want.double(), exact.double()

    def specials(t: torch.Tensor) -> torch.Tensor:
        return torch.stack([t.isnan(), t.isposinf(), t.isneginf()])

    differs = (specials(g) != specials(w)).any(0)
    if not (specials(g) == specials(x)).all(0)[differs].all():
        return False
    judged = g.isfinite() & x.isfinite() & (w.isfinite() | differs)
    if not judged.any():
        return True
    g, w, x, differs = g[judged], w[judged], x[judged], differs[judged]
    reference_error = torch.where(differs, 0.0, (w - x).abs())
    bound = 2 * reference_error + floor * (x.abs() + x.abs().mean())
    return bool(((g - x).abs() <= bound).all())


def _with_specials(values: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """`values` with a NaN, a +inf and a -inf at three seeded positions (fewer where it
    has fewer elements): what a kernel must carry through as torch's ops do."""
    flat = values.reshape(-1).clone()
    places = torch.randperm(flat.numel(), generator=generator)[:3]
    specials = (float("nan"), float("inf"), float("-inf"))
    for place, special in zip(places.tolist(), specials, strict=False):  # fewer places
        flat[place] = special
    return flat.reshape(values.shape)


def _in_place_runs(
    block: Block,
    source: FusedKernelSource,
    inputs: list[torch.Tensor],
    outputs: list[torch.Tensor],
) -> list[list[object]]:
    """Rerun `source` with each result written over each input of its shape and dtype,
    where the body is elementwise: [result, input, whether it wrote what `outputs` hold]."""
    from lumir.dialects.hl.row_program import is_elementwise
    from lumir.runtime.fused_kernels import run_source

    if not is_elementwise(block.ops):
        return []
    runs: list[list[object]] = []
    for result, written in enumerate(outputs):
        for index, read in enumerate(inputs):
            if read.shape != written.shape or read.dtype != written.dtype:
                continue
            shared = read.clone()
            run_inputs = [shared if i == index else t for i, t in enumerate(inputs)]
            run_outputs = [
                shared if i == result else torch.empty_like(o) for i, o in enumerate(outputs)
            ]
            run_source(source, run_inputs, run_outputs)
            runs.append([result, index, _same_bytes(shared, written)])
    return runs


def _same_bytes(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-for-bit equality (NaNs included) of two dense tensors."""
    return a.shape == b.shape and torch.equal(
        a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)
    )


def run_in_interpreter(
    path: Path,
    atol: float,
    seed: int = 0,
    rtol: float = 0.0,
    hash_seed: str | None = None,
    body: int = 0,
    specials: bool = False,
) -> dict[str, object]:
    """`check` in a child process with TRITON_INTERPRET=1; its JSON report."""
    env = dict(os.environ, TRITON_INTERPRET="1")
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lumir.testing.fused_check",
            str(path),
            "--atol",
            str(atol),
            "--seed",
            str(seed),
            "--rtol",
            str(rtol),
            "--body",
            str(body),
            *(["--specials"] if specials else []),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"fused_check failed (exit {done.returncode}):\n{done.stderr}")
    report = json.loads(lines[-1])
    report["returncode"] = done.returncode
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--rtol", type=float, default=0.0, help="plus this times |reference|")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--body", type=int, default=0, help="which fused body, from 0")
    parser.add_argument(
        "--specials", action="store_true", help="a NaN, a +inf and a -inf in each input"
    )
    parser.add_argument(
        "--bound",
        action="store_true",
        help="judge values against the body in float64 (within_bound), not --atol/--rtol",
    )
    args = parser.parse_args()
    report = check(args.file.read_text(), args.seed, args.body, args.atol, args.rtol, args.specials)
    print(json.dumps(report))
    in_place_equal = all(same for _, _, same in report["in_place"])  # type: ignore[attr-defined]
    values = report["within_bound"] if args.bound else report["close"]
    passed = all(values) and report["forms_equal"] and in_place_equal  # type: ignore[call-overload]
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
