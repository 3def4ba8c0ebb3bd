"""Check a grouped fused launch's one kernel against its members' own kernels, bit for bit.

A `cublaslt_rt.fused_group` runs on CUDA as one generated kernel
(`triton_codegen.generate_group`) and on the CPU as its members one by one, so without
this check the CPU suite would never run the kernel CUDA runs. Under Triton's
interpreter (`TRITON_INTERPRET=1`, set before triton is first imported, hence a child
process: `python -m lumir.testing.fused_group_check FILE.mlir`) every group of the
module runs both ways on seeded inputs: each member's own kernel (`generate`, the
launch the ungrouped program makes) and the group's one kernel. One JSON line per
group says whether every output holds the same bytes; the exit status is 0 when all
do.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch


def check_groups(text: str, seed: int = 0) -> list[dict[str, object]]:
    """Each `cublaslt_rt.fused_group` of the module `text`: its members' kernels one by
    one, then the group's kernel, on the same seeded inputs; whether they wrote the same
    bytes, with the group's grid and warps."""
    from lumir.dialects.cublaslt_rt import FusedGroupOp
    from lumir.parsing import parse_module_text
    from lumir.runtime.buffers import shaped_type_parts
    from lumir.runtime.fused_kernels import group_launch, run_source
    from lumir.runtime.triton_codegen import generate, generate_group

    module = parse_module_text(text, "<fused-group>")
    generator = torch.Generator().manual_seed(seed)
    reports: list[dict[str, object]] = []
    for group in (op for op in module.walk() if isinstance(op, FusedGroupOp)):
        blocks = [member.body.block for member in group.members()]
        inputs, alone, together = [], [], []
        for member in group.members():
            drawn = []
            for value in member.inputs:
                shape, dtype = shaped_type_parts(value.type)
                drawn.append(torch.randn(shape, generator=generator).to(dtype))
            inputs.append(drawn)
            shapes = [shaped_type_parts(value.type) for value in member.outputs]
            alone.append([torch.full(s, float("nan"), dtype=d) for s, d in shapes])
            together.append([torch.full(s, float("nan"), dtype=d) for s, d in shapes])
        for block, ins, outs in zip(blocks, inputs, alone, strict=True):
            run_source(generate(block), ins, outs)
        group_launch(blocks, inputs, together)()
        source = generate_group(blocks)
        same = all(
            torch.equal(a.view(torch.uint8), b.view(torch.uint8))
            for outs_a, outs_b in zip(alone, together, strict=True)
            for a, b in zip(outs_a, outs_b, strict=True)
        )
        reports.append(
            {
                "members": len(blocks),
                "programs": source.programs,
                "num_warps": source.num_warps,
                "bit_identical": same,
            }
        )
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    reports = check_groups(args.file.read_text(), args.seed)
    for report in reports:
        print(json.dumps(report))
    return 0 if reports and all(r["bit_identical"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
