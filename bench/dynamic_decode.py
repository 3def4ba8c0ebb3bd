"""Greedy decoding with a growing `DynamicCache`: the wall-clock time of every token.

    PYTHONPATH=$PWD python3 -m bench.dynamic_decode                       # 1B shape, CUDA
    PYTHONPATH=$PWD python3 -m bench.dynamic_decode --device cpu --shape tiny --tokens 6

Hugging Face's default cache grows by one position per token, so each decode step has a
new key length. Dynamo marks that length dynamic at the second one and hands the backend
one graph for all of them; inductor compiles kernels that take the length at run time.
lumir specialises a program to each concrete size, but a length that sizes no product
of a weight (a decode step's key length) leaves the cache's `cat` and the attention in
eager, so its partitions compile once (docs/backend.md, "Dynamic shapes"). This
benchmark shows what a user of `generate` pays per token: each candidate decodes
`--tokens` tokens after a `--prompt`-token prefill, on the same weights and prompt, and
each step is timed from the call to its logits on the host (synchronised), so a step's
compile counts. Printed per candidate: the prefill, the
first two decode steps (the second is Dynamo's recompile for the dynamic length), the
median and p90 of the steps after them, the tokens, and whether they equal eager's. A
`StaticCache` (`cache_implementation="static"`, one shape for every step) is what
`bench.compare`'s decode row times.

`--cudnn-attention off` disables torch's cuDNN attention backend for every candidate
(`torch.backends.cuda.enable_cudnn_sdp(False)`) before anything is compiled, so each
traces and runs flash or memory-efficient attention instead. On the H100 (2026-12-08)
eager took 42 ms a token and lumir 37 ms (inductor 6.2): cuDNN builds an execution
graph per new key length (pytorch/pytorch#155958 makes that opt-in avoidable), which
would cost eager, and lumir's attention left in eager, every token. Both settings in
one run tell whether that is where the time goes.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
from bench.timing import summarise
from bench.workloads import LLAMA_SHAPES, build_llama

MODES = ("eager", "lumir", "inductor")


def _compiled(model: torch.nn.Module, mode: str) -> torch.nn.Module:
    torch._dynamo.reset()
    if mode == "eager":
        return model
    if mode == "lumir":
        return torch.compile(model, backend="lumir")
    return torch.compile(model)  # inductor, default mode


def decode(
    model: torch.nn.Module, prompt: torch.Tensor, tokens: int, sync: bool
) -> tuple[list[float], list[int]]:
    """Seconds per call (the prefill first, then each decode step) and the tokens."""
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)
    times: list[float] = []
    chosen: list[int] = []
    ids = prompt
    for _ in range(tokens + 1):
        start = time.perf_counter()
        logits = model(ids, past_key_values=cache, use_cache=True).logits
        token = logits[:, -1:].argmax(-1)
        if sync:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        chosen.append(int(token.item()))
        ids = token
    return times, chosen


def _summary(times: list[float]) -> str:
    """The prefill, the first two steps, and the median and p90 of the later steps."""
    prefill, first, second, *later = (t * 1000.0 for t in times)
    steps = summarise(later)
    return (
        f"prefill {prefill:9.1f} ms  step 1 {first:8.1f}  step 2 {second:8.1f}  later "
        f"median {steps.median_ms:8.1f} p90 {steps.p90_ms:8.1f} ms  total {sum(times):7.2f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.dynamic_decode")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--shape", choices=sorted(LLAMA_SHAPES), default="1b")
    parser.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16")
    parser.add_argument("--prompt", type=int, default=6, help="prompt tokens (default 6)")
    parser.add_argument("--tokens", type=int, default=16, help="tokens decoded (default 16)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"of {', '.join(MODES)}")
    parser.add_argument(
        "--cudnn-attention",
        choices=["on", "off"],
        default="on",
        help="torch's cuDNN attention backend (default on, torch's own default)",
    )
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown or args.tokens < 3 or args.prompt < 1:
        parser.error(
            f"unknown modes {unknown}" if unknown else "--tokens must be at least 3, --prompt 1"
        )
    device = torch.device(args.device)
    torch.set_grad_enabled(False)
    torch.backends.cuda.enable_cudnn_sdp(args.cudnn_attention == "on")
    model = build_llama(LLAMA_SHAPES[args.shape], device, getattr(torch, args.dtype))
    generator = torch.Generator().manual_seed(0)
    vocab = min(1000, model.config.vocab_size)
    prompt = torch.randint(0, vocab, (1, args.prompt), generator=generator).to(device)
    sync = device.type == "cuda"
    print(
        f"DynamicCache greedy decode, {args.shape} shape, {args.dtype}, {device}, "
        f"prompt {args.prompt}, {args.tokens} tokens, cuDNN attention {args.cudnn_attention}"
    )
    reference: list[int] | None = None
    for mode in modes:
        times, chosen = decode(_compiled(model, mode), prompt, args.tokens, sync)
        if mode == "eager":
            reference = chosen
        same = "" if reference is None else f"  tokens {'=' if chosen == reference else '!='} eager"
        print(f"{mode:9s} {_summary(times)}{same}")
        print(f"{'':9s} tokens {chosen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
