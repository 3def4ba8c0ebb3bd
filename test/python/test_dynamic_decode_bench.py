"""bench/dynamic_decode.py on the CPU: every candidate decodes, timed step by step, and
lumir's tokens are eager's (the benchmark's timings mean nothing if they differ)."""

from __future__ import annotations

import pytest

from bench.dynamic_decode import decode, main


def test_lumir_decodes_eager_tokens_with_a_growing_cache(capsys: pytest.CaptureFixture) -> None:
    argv = ["--device", "cpu", "--shape", "tiny", "--tokens", "3", "--modes", "eager,lumir"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    lumir = next(line for line in lines if line.startswith("lumir "))
    assert "tokens = eager" in lumir
    assert "later median" in lumir and "prefill" in lumir


def test_each_call_is_timed_and_gives_a_token() -> None:
    import torch

    from bench.workloads import LLAMA_SHAPES, build_llama

    model = build_llama(LLAMA_SHAPES["tiny"], torch.device("cpu"), torch.float32)
    with torch.no_grad():
        times, tokens = decode(model, torch.tensor([[1, 2, 3]]), 4, sync=False)
    assert len(times) == len(tokens) == 5  # the prefill and four steps
    assert all(t > 0 for t in times)


def test_cudnn_attention_off_is_set_for_the_run_and_printed(capsys: pytest.CaptureFixture) -> None:
    import torch

    argv = ["--device", "cpu", "--shape", "tiny", "--tokens", "3", "--modes", "eager"]
    try:
        assert main([*argv, "--cudnn-attention", "off"]) == 0
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert "cuDNN attention off" in capsys.readouterr().out
    finally:
        torch.backends.cuda.enable_cudnn_sdp(True)


def test_unknown_modes_and_too_few_tokens_are_refused() -> None:
    with pytest.raises(SystemExit):
        main(["--device", "cpu", "--modes", "eager,fast"])
    with pytest.raises(SystemExit):
        main(["--device", "cpu", "--tokens", "2"])
    with pytest.raises(SystemExit):
        main(["--device", "cpu", "--cudnn-attention", "maybe"])
