"""Check a generated Triton kernel against the reference, on CPU, under TRITON_INTERPRET=1.

Triton's interpreter runs a kernel with numpy on CPU tensors, so CI can check the
numerics of every generated kernel without a GPU. The variable must be set before
triton is first imported, so the check runs in a child process:
`python -m lumir.testing.fused_check FILE.mlir` loads the module's first fused body
(an `hl.fused` or `cublaslt_rt.fused_launch`), feeds it seeded random inputs, runs the
kernel and the reference executor (`fused_reference`) and prints the largest absolute
difference per result as one JSON line; the exit status is 0 when every result is
within `--atol`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import torch
from xdsl.ir import Block


def triton_interpreter_available() -> str | None:
    """None if triton imports; else why not (the reason tests skip with)."""
    try:
        import importlib.util

        if importlib.util.find_spec("triton") is None:
            return "triton is not installed (pip install 'lumir[test]')"
    except (ImportError, ValueError) as error:
        return f"triton cannot be found: {error}"
    return None


def first_fused_body(text: str) -> Block:
    from lumir.dialects import cublaslt_rt, hl
    from lumir.parsing import parse_module_text

    module = parse_module_text(text, "<fused>")
    for op in module.walk():
        if isinstance(op, hl.FusedOp | cublaslt_rt.FusedLaunchOp):
            return op.body.block
    raise SystemExit("the module has no hl.fused or cublaslt_rt.fused_launch")


def check(text: str, seed: int = 0) -> dict[str, object]:
    """Run the first fused body of `text` both ways; the max abs difference per result."""
    from lumir.runtime.buffers import shaped_type_parts
    from lumir.runtime.fused_kernels import run_source
    from lumir.runtime.fused_reference import bind_fused_body
    from lumir.runtime.triton_codegen import generate

    block = first_fused_body(text)
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for arg in block.args:
        shape, dtype = shaped_type_parts(arg.type)
        inputs.append(torch.randn(shape, generator=generator).to(dtype))
    expected = bind_fused_body(block)(*inputs)
    outputs = [torch.empty_like(e) for e in expected]
    source = generate(block)
    run_source(source, inputs, outputs)
    diffs = [
        float((o.float() - e.float()).abs().max()) if o.numel() else 0.0
        for o, e in zip(outputs, expected, strict=True)
    ]
    # The difference as a fraction of the reference's size (the test of a rounding step).
    relative = [
        float(((o.float() - e.float()).abs() / e.float().abs().clamp_min(1e-6)).max())
        if o.numel()
        else 0.0
        for o, e in zip(outputs, expected, strict=True)
    ]
    return {"max_abs_diff": diffs, "max_rel_diff": relative, "source": source.text}


def run_in_interpreter(
    path: Path, atol: float, seed: int = 0, rtol: float = 0.0, hash_seed: str | None = None
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
    parser.add_argument("--rtol", type=float, default=0.0, help="or within this relative")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    report = check(args.file.read_text(), args.seed)
    print(json.dumps(report))
    within = [
        a <= args.atol or r <= args.rtol
        for a, r in zip(report["max_abs_diff"], report["max_rel_diff"], strict=True)  # type: ignore[call-overload]
    ]
    return 0 if all(within) else 1


if __name__ == "__main__":
    sys.exit(main())
