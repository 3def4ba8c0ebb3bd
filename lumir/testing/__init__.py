"""Testing aids that ship with lumir: the whole-pipeline differential fuzzer.

`fuzz_programs` generates random matmul-family `hl` programs (one generator, driven by
hypothesis in pytest or by a seeded `random.Random` in `bench/fuzz.py`);
`fuzz_reference` evaluates a generated program in float64 with a bound on the rounding
error a correct compilation may show; `fuzz_check` compiles a program with
`lumir-pipeline`, runs it on the CPU executor and classifies the outcome. docs/fuzzing.md
describes how to run it and what it checks.

Beside it, helpers the tests and benchmarks share: `programs` (compile and run hl text),
`processes` (lumir-opt in fresh processes under different hash seeds, for the
determinism tests), `hf` (a Hugging Face model's KV cache passed by the name its
`forward` takes), and the checks of generated kernels (`fused_check`, `gemv_check`,
`attention_check`, `launch_group_check`, `launch_diff`).
"""
