"""The backend's H200 acceptance check: a Llama-3.2-1B-shaped model through lumir on CUDA.

    PYTHONPATH=$PWD python3 bench/backend_llama_check.py
    PYTHONPATH=$PWD python3 bench/backend_llama_check.py --only-logits --seqs 6,128

Random weights (seeded, nothing downloaded), bf16. Checks, and prints one line each:

- logits at sequence 1, 6 and 128 (`--seqs`): argmax equal to eager bf16 at every
  position, and mean absolute error against an f32 eager reference at most 1.5x eager
  bf16's own; then `argmax_differ lumir-eager=N eager-f32=M lumir-f32=K of S`: at how
  many of the S positions lumir's argmax differs from eager bf16's, eager bf16's from
  the f32 reference's, and lumir's from the f32 reference's (a near tie shows as
  lumir-eager > 0 with lumir-f32 <= eager-f32);
- the residual-chain module at hidden 2048, sequence 6, in 20 fresh processes with
  different hash seeds: max relative error < 5e-2 every time;
- 16 greedily decoded tokens with a DynamicCache equal to eager's, and the fuse-pass
  count per partition; when they differ, eager's tokens are forced on eager, lumir and
  the f32 reference and the steps whose picks differ are analysed like the logits (a
  random-weight model's logits hold near ties: one bf16 rounding decides the token);
- 16 greedily decoded tokens with a StaticCache equal to eager's (the cache lumir
  updates in place), with the number of in-place updates.

`--only-logits` runs the logits checks alone (the near-tie analysis in one command).
`--peer inductor` (or another torch.compile mode) prints the same argmax counts for
that mode on the same inputs: how often a fusing compiler that torch ships parts from
eager bf16 on this random-weight model.
Exits non-zero when a check fails.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM, StaticCache

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from test_backend_residual import relative_error  # noqa: E402

from lumir.backend import stats  # noqa: E402  (registers "lumir")
from lumir.backend.partition import LumirRuntimeFallbackWarning  # noqa: E402
from lumir.testing.hf import cache_argument  # noqa: E402

CONFIG = LlamaConfig(
    vocab_size=128256,
    hidden_size=2048,
    intermediate_size=8192,
    num_hidden_layers=16,
    num_attention_heads=32,
    num_key_value_heads=8,
    max_position_embeddings=2048,
    tie_word_embeddings=True,
)


def greedy(model, prompt: torch.Tensor, tokens: int = 16) -> list[int]:
    cache = DynamicCache(config=CONFIG)
    step, out = prompt, []
    for _ in range(tokens):
        logits = model(step, **cache_argument(model, cache), use_cache=True).logits
        step = logits[:, -1].argmax(-1, keepdim=True)
        out.append(int(step))
    return out


def greedy_static(model, prompt: torch.Tensor, tokens: int = 16) -> list[int]:
    """Greedy decoding over a StaticCache (the cache lumir updates in place)."""
    cache = StaticCache(config=CONFIG, max_cache_len=prompt.shape[1] + tokens)
    step, out, position = prompt, [], 0
    for _ in range(tokens):
        positions = torch.arange(position, position + step.shape[1], device=step.device)
        logits = model(step, **cache_argument(model, cache), cache_position=positions).logits
        position += step.shape[1]
        step = logits[:, -1].argmax(-1, keepdim=True)
        out.append(int(step))
    return out


def forced_logits(model, prompt: torch.Tensor, tokens: list[int]) -> torch.Tensor:
    """The last position's logits [len(tokens), V] of each step of a DynamicCache decode
    that is fed `tokens` (teacher forcing), so every model sees the same prefixes."""
    cache = DynamicCache(config=CONFIG)
    step, rows = prompt, []
    for token in tokens:
        logits = model(step, **cache_argument(model, cache), use_cache=True).logits
        rows.append(logits[0, -1].float())
        step = torch.tensor([[token]], device=prompt.device)
    return torch.stack(rows)


def _decode_analysis(reference, model, compiled, prompt: torch.Tensor, expected: list[int]):
    """Where lumir's greedy decode leaves eager's: eager's tokens forced on eager bf16,
    lumir and the f32 reference alike, and the steps whose picks differ explained as
    near ties (or not) the way the logits checks do."""
    exact = forced_logits(reference, prompt, expected)
    eager = forced_logits(model, prompt, expected)
    got = forced_logits(compiled, prompt, expected)
    print("  forced on eager's tokens: " + argmax_differ(exact, eager, got))
    differ = (got.argmax(-1) != eager.argmax(-1)).nonzero().flatten().tolist()
    for position in differ:
        print("  step " + _disagreement(position, exact, eager, got).removeprefix("position "))


def _disagreement(
    position: int, exact: torch.Tensor, eager: torch.Tensor, got: torch.Tensor
) -> str:
    """Why eager bf16 and lumir pick different tokens at `position`: the f32 reference's
    margin between the two candidates, against the bf16 error of that row."""
    lumir_token, eager_token = int(got[position].argmax()), int(eager[position].argmax())
    margin = (exact[position, eager_token] - exact[position, lumir_token]).item()
    row_error = (eager[position].float() - exact[position]).abs().max().item()
    return (
        f"position {position}: eager picks {eager_token}, lumir {lumir_token}; f32 reference "
        f"margin {margin:+.3e}, f32 picks {int(exact[position].argmax())}, "
        f"eager bf16 max row error {row_error:.3e}"
    )


def argmax_differ(exact: torch.Tensor, eager: torch.Tensor, got: torch.Tensor) -> str:
    """How many positions' argmax differ: lumir vs eager bf16, eager bf16 vs the f32
    reference, lumir vs the f32 reference (logits of shape [S, V])."""
    picks = [t.argmax(-1) for t in (exact, eager, got)]
    exact_pick, eager_pick, got_pick = picks
    counts = (
        int((got_pick != eager_pick).sum()),
        int((eager_pick != exact_pick).sum()),
        int((got_pick != exact_pick).sum()),
    )
    return (
        f"argmax_differ lumir-eager={counts[0]} eager-f32={counts[1]} lumir-f32={counts[2]} "
        f"of {exact_pick.numel()}"
    )


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seqs", default="1,6,128", help="comma-separated sequence lengths (default 1,6,128)"
    )
    parser.add_argument(
        "--fuse-kernels",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the backend option fuse_kernels (default on; --no-fuse-kernels turns it off)",
    )
    parser.add_argument("--only-logits", action="store_true", help="run the logits checks only")
    parser.add_argument(
        "--peer",
        choices=["inductor", "reduce-overhead", "max-autotune-no-cudagraphs"],
        help="also print the argmax counts of this torch.compile mode on the same logits",
    )
    parser.add_argument(
        "--skip-chain", action="store_true", help="leave out the 20-process residual chain"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Every check, and one more: no compiled partition ran in eager at run time (a
    partition that silently falls back would pass every numeric check)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LumirRuntimeFallbackWarning)
        failures = _checks(argv)
    fallbacks = [w for w in caught if issubclass(w.category, LumirRuntimeFallbackWarning)]
    for warning in fallbacks[:3]:
        print(f"runtime fallback: {str(warning.message)[:300]}")
    print(f"runtime_fallbacks={len(fallbacks)} {'PASS' if not fallbacks else 'FAIL'}")
    failures += bool(fallbacks)
    print(f"{failures} failed check(s)")
    return 1 if failures else 0


@torch.no_grad()
def _checks(argv: list[str] | None) -> int:
    args = _arguments(argv)
    seqs = [int(s) for s in args.seqs.split(",") if s]
    start = time.perf_counter()
    failures = 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    reference = LlamaForCausalLM(CONFIG).eval().cuda()
    model = copy.deepcopy(reference).to(torch.bfloat16)
    options = {"fuse_kernels": args.fuse_kernels}
    compiled = torch.compile(model, backend="lumir", options={"report": True, **options})
    peer = None
    if args.peer is not None:
        mode = None if args.peer == "inductor" else args.peer
        peer = torch.compile(copy.deepcopy(model), mode=mode)
    generator = torch.Generator().manual_seed(1)
    for seq in seqs:
        ids = torch.randint(0, CONFIG.vocab_size, (1, seq), generator=generator).cuda()
        exact = reference(ids, use_cache=False).logits
        eager = model(ids, use_cache=False).logits
        got = compiled(ids, use_cache=False).logits
        differ = (got.argmax(-1) != eager.argmax(-1)).flatten().nonzero().flatten()
        agree = differ.numel() == 0
        eager_error = (eager.float() - exact).abs().mean().item()
        lumir_error = (got.float() - exact).abs().mean().item()
        ok = agree and lumir_error <= 1.5 * eager_error
        failures += not ok
        print(
            f"llama seq={seq}: argmax_agree={agree} mean_err lumir={lumir_error:.4e} "
            f"eager_bf16={eager_error:.4e} ratio={lumir_error / eager_error:.3f} "
            f"{'PASS' if ok else 'FAIL'}"
        )
        print("  " + argmax_differ(exact[0], eager[0], got[0]))
        for position in differ.tolist():
            print("  " + _disagreement(position, exact[0], eager[0], got[0]))
        if peer is not None:
            theirs = peer(ids, use_cache=False).logits
            counts = argmax_differ(exact[0], eager[0], theirs[0]).replace("lumir", args.peer)
            mean = (theirs.float() - exact).abs().mean().item()
            print(f"  peer {args.peer}: {counts} mean_err={mean:.4e}")
    peer = None  # its memory back before the decode checks
    if args.only_logits:
        print(f"total {time.perf_counter() - start:.0f} s")
        return failures

    torch._dynamo.reset()
    stats.reset()
    prompt = torch.randint(0, CONFIG.vocab_size, (1, 6), generator=generator).cuda()
    expected = greedy(model, prompt)
    compiled_decode = torch.compile(model, backend="lumir", options=options)
    got_tokens = greedy(compiled_decode, prompt)
    fuse_runs = max((p.fuse_runs for g in stats.GRAPHS for p in g.partitions), default=0)
    ok = got_tokens == expected and fuse_runs <= 2
    failures += not ok
    print(
        f"decode 16 tokens: equal={got_tokens == expected} "
        f"max_fuse_runs_per_partition={fuse_runs} {'PASS' if ok else 'FAIL'}"
    )
    if got_tokens != expected:
        print(f"  eager {expected}\n  lumir {got_tokens}")
        _decode_analysis(reference, model, compiled_decode, prompt, expected)

    torch._dynamo.reset()
    stats.reset()
    expected = greedy_static(model, prompt)
    got_tokens = greedy_static(torch.compile(model, backend="lumir", options=options), prompt)
    in_place = sum(p.in_place_updates for g in stats.GRAPHS for p in g.partitions)
    ok = got_tokens == expected
    failures += not ok
    print(
        f"decode 16 tokens, StaticCache: equal={got_tokens == expected} "
        f"in_place_updates={in_place} {'PASS' if ok else 'FAIL'}"
    )
    if got_tokens != expected:
        print(f"  eager {expected}\n  lumir {got_tokens}")
    del model, compiled, compiled_decode, reference
    torch.cuda.empty_cache()

    if args.skip_chain:
        print(f"total {time.perf_counter() - start:.0f} s")
        return failures
    with ThreadPoolExecutor(max_workers=4) as pool:
        errors = list(pool.map(lambda s: relative_error(s, 2048, 6, "strict", "cuda"), range(20)))
    ok = max(errors) < 5e-2
    failures += not ok
    print(f"residual chain x20 processes: max_rel_err={max(errors):.3e} {'PASS' if ok else 'FAIL'}")
    print(f"total {time.perf_counter() - start:.0f} s")
    return failures


if __name__ == "__main__":
    sys.exit(main())
