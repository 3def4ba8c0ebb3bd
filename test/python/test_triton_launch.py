"""Triton launches compiled ahead of the first run (lumir.runtime.triton_launch).

The launch object and `compile_ahead`'s rules run everywhere, with stand-ins for a
Triton kernel and for Triton's `AsyncCompileMode`. The `cuda` test loads a decode step
of a tiny Llama on the GPU and checks that every kind of Triton launch lumir makes
(GEMV, grouped GEMV, fused kernels, the few-query attention, grouped launches) was
compiled ahead, in threads, with its launcher built and its module loaded before its
first launch, and that the step still decodes eager's tokens.
"""

from __future__ import annotations

import sys
import threading
import types

import pytest
import torch

from lumir.runtime import triton_launch
from lumir.runtime.triton_launch import TritonLaunch, compile_ahead


class _Kernel:
    """Records `kernel[grid](*args, **options)` and `kernel.warmup(...)` as Triton takes them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, tuple, dict]] = []

    def __getitem__(self, grid):
        return lambda *args, **options: self.calls.append(("launch", grid, args, options))

    def warmup(self, *args, grid, **options):
        self.calls.append(("warmup", grid, args, options))
        return getattr(self, "compiled", None)


def test_a_launch_runs_and_warms_up_with_its_own_arguments() -> None:
    kernel = _Kernel()
    launch = TritonLaunch(kernel, (3, 2), (1, "x"), {"BLOCK": 64, "num_warps": 4})
    launch()
    launch.warm_up()
    launch.with_arguments((2, "y"))()
    options = {"enable_fp_fusion": triton_launch.FP_FUSION, "BLOCK": 64, "num_warps": 4}
    assert kernel.calls == [
        ("launch", (3, 2), (1, "x"), options),
        ("warmup", (3, 2), (1, "x"), options),
        ("launch", (3, 2), (2, "y"), options),
    ]


def test_fp_fusion_is_chosen_by_lumir_not_left_to_the_triton_default() -> None:
    """Triton's default for FMA contraction is changing (3.10); a launch always says."""
    kernel = _Kernel()
    TritonLaunch(kernel, (1,), ())()
    TritonLaunch(kernel, (1,), (), {"enable_fp_fusion": False})()
    assert [call[3]["enable_fp_fusion"] for call in kernel.calls] == [True, False]


@pytest.fixture
def async_mode(monkeypatch):
    """A stand-in for Triton's AsyncCompileMode: records that it was entered."""
    entered: list[object] = []

    class Mode:
        def __init__(self, executor, *, ignore_errors=False):
            self.executor, self.ignore_errors = executor, ignore_errors

        def __enter__(self):
            entered.append(self)
            return self

        def __exit__(self, *exc):
            return False

    module = types.ModuleType("triton.runtime._async_compile")
    module.AsyncCompileMode = Mode  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "triton.runtime._async_compile", module)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    return entered


def test_compile_ahead_runs_every_warm_up_inside_the_async_mode(async_mode) -> None:
    seen: list[int] = []
    assert compile_ahead([lambda i=i: seen.append(i) for i in range(3)]) == 3
    assert seen == [0, 1, 2]
    (mode,) = async_mode
    assert mode.ignore_errors  # a failed compile is reported once every compile is done
    assert mode.executor.pool._max_workers <= triton_launch.MAX_THREADS


def test_a_failing_warm_up_does_not_stop_the_others(async_mode) -> None:
    seen: list[str] = []

    def broken() -> None:
        raise RuntimeError("out of shared memory")

    assert compile_ahead([broken, lambda: seen.append("after")]) == 2
    assert seen == ["after"]


class _Compiled:
    """A compiled kernel as Triton hands it back: `_init_handles` builds its launcher."""

    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.prepared_on: list[str] = []

    def _init_handles(self) -> None:
        self.prepared_on.append(threading.current_thread().name)
        if self.fails:
            raise RuntimeError("out of resources: shared memory")


class FutureKernel:
    """Triton's async-mode handle (matched by name): `kernel` is None when the compile
    failed."""

    def __init__(self, kernel: object) -> None:
        self.kernel = kernel

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"a future's {name} was asked for; only its kernel may be")


def test_compile_ahead_prepares_each_compiled_kernel_once_off_the_calling_thread(
    async_mode, monkeypatch
) -> None:
    """The launcher and module of every kernel a warm-up compiled are made ready in the
    pool, not at the kernel's first launch; a kernel shared by two launches is prepared
    once, and a failing preparation is left to the launch."""
    monkeypatch.setattr(triton_launch, "_current_device", lambda: None)
    shared, alone, failing = _Compiled(), _Compiled(), _Compiled(fails=True)
    kernels = [_Kernel() for _ in range(4)]
    for kernel, compiled in zip(
        kernels, [shared, shared, FutureKernel(alone), failing], strict=True
    ):
        kernel.compiled = compiled
    launches = [TritonLaunch(kernel, (1,), (index,)) for index, kernel in enumerate(kernels)]
    assert compile_ahead(launch.warm_up for launch in launches) == 4
    for compiled in (shared, alone, failing):
        assert len(compiled.prepared_on) == 1
        assert compiled.prepared_on[0] != threading.current_thread().name
    assert triton_launch._WARMED.get() is None  # warm-ups outside compile_ahead collect nothing
    launches[0].warm_up()
    assert len(shared.prepared_on) == 1


class _FailingKernel:
    """A kernel whose compile fails where Triton's async mode runs it: submitted to the
    mode's executor, the mode ignoring the error (`ignore_errors`)."""

    __name__ = "gemv_prologue_kernel"

    def __init__(self, modes: list[object]) -> None:
        self.modes = modes

    def warmup(self, *args, grid, **options):
        def compile_source() -> object:
            raise RuntimeError("PassManager::run failed\noperand #0 does not dominate this use")

        self.modes[-1].executor.submit(compile_source)
        return FutureKernel(None)


def test_a_failed_compile_fails_the_load_once_the_others_are_prepared(
    async_mode, monkeypatch
) -> None:
    """A compile that fails ahead would fail again at the launch, in the program's
    first run, after earlier launches may have written a KV cache in place: the load
    reports it instead (before: ignored, left to that launch), naming the kernel with
    the first line of Triton's error. The other kernels are still prepared."""
    monkeypatch.setattr(triton_launch, "_current_device", lambda: None)
    good = _Compiled()
    kernel = _Kernel()
    kernel.compiled = good
    launches = [
        TritonLaunch(kernel, (1,), (0,)),
        TritonLaunch(_FailingKernel(async_mode), (1,), (1,)),
    ]
    with pytest.raises(triton_launch.KernelCompileError) as raised:
        compile_ahead(launch.warm_up for launch in launches)
    assert str(raised.value) == (
        "Triton could not compile gemv_prologue_kernel: RuntimeError: PassManager::run failed"
    )
    assert len(good.prepared_on) == 1


def test_lumir_run_reports_a_kernel_that_fails_to_compile(monkeypatch, capsys) -> None:
    """What a user of `lumir-run` sees: the error's one line, exit 1, no traceback."""
    from pathlib import Path

    from lumir.tools import lumir_run

    def fail(*args, **kwargs):
        raise triton_launch.KernelCompileError("Triton could not compile fused_kernel: boom")

    monkeypatch.setattr(lumir_run, "load", fail)
    example = Path(__file__).resolve().parents[2] / "examples" / "mlp_block.mlir"
    assert lumir_run.main([str(example), "--device", "cpu"]) == 1
    assert capsys.readouterr().err == (
        "lumir-run: error: Triton could not compile fused_kernel: boom\n"
    )


def test_nothing_is_compiled_ahead_where_it_cannot_help(async_mode, monkeypatch) -> None:
    never = [lambda: pytest.fail("warmed up"), lambda: pytest.fail("warmed up")]
    assert compile_ahead(never[:1]) == 0  # one kernel: nothing to overlap
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert compile_ahead(never) == 0  # the interpreter compiles nothing
    monkeypatch.delenv("TRITON_INTERPRET")
    monkeypatch.setenv("LUMIR_COMPILE_AHEAD", "0")
    assert compile_ahead(never) == 0  # turned off
    monkeypatch.delenv("LUMIR_COMPILE_AHEAD")
    monkeypatch.setitem(sys.modules, "triton.runtime._async_compile", None)
    assert compile_ahead(never) == 0  # a Triton without AsyncCompileMode
    assert async_mode == []


# --- on the GPU ---------------------------------------------------------------------------


def _gpu() -> bool:
    from lumir.runtime.cuda_cublaslt import cublaslt_available

    return cublaslt_available()


@pytest.mark.cuda
@pytest.mark.skipif(not _gpu(), reason="needs a GPU with cuBLASLt (nvmath)")
@torch.no_grad()
def test_a_decode_step_compiles_its_triton_kernels_ahead(monkeypatch) -> None:
    transformers = pytest.importorskip("transformers")
    from test_backend_llama import decode_config, greedy

    import lumir.backend  # noqa: F401  (registers "lumir" where lumir is not pip-installed)
    import lumir.runtime.loader as loader

    real = loader.compile_ahead
    batches: list[list[str]] = []

    def spy(warm_ups):
        warm_ups = list(warm_ups)
        batches.append([getattr(w, "__qualname__", type(w).__name__) for w in warm_ups])
        return real(warm_ups)

    monkeypatch.setattr(loader, "compile_ahead", spy)
    # Which kernels compile_ahead prepared, and which kernels built their launcher or
    # loaded their module on this thread (at a first launch) instead.
    from triton.compiler.compiler import CompiledKernel

    prepared: set[int] = set()
    late: list[tuple[int, str]] = []
    real_prepare, real_init = triton_launch._prepare_launch, CompiledKernel._init_handles

    def prepare(kernel, device):
        prepared.add(id(kernel))
        return real_prepare(kernel, device)

    def init_handles(kernel):
        if kernel.module is None and threading.current_thread() is threading.main_thread():
            late.append((id(kernel), kernel.name))
        return real_init(kernel)

    monkeypatch.setattr(triton_launch, "_prepare_launch", prepare)
    monkeypatch.setattr(CompiledKernel, "_init_handles", init_handles)
    torch._dynamo.reset()
    torch.manual_seed(0)
    config = decode_config()
    model = transformers.LlamaForCausalLM(config).eval().cuda().to(torch.bfloat16)
    ids = torch.randint(0, 128, (1, 5), device="cuda")
    compiled = torch.compile(model, backend="lumir")
    assert greedy(compiled, config, ids, 4) == greedy(model, config, ids, 4)
    warmed = sorted({name for batch in batches for name in batch})
    assert any("TritonLaunch.warm_up" in n for n in warmed), warmed  # fused kernels
    assert "GemvPlan.warm_up" in warmed, warmed
    assert "GroupedGemvPlan.warm_up" in warmed, warmed
    assert any("<lambda>" in n for n in warmed), warmed  # the few-query attention's
    assert prepared
    assert [name for key, name in late if key in prepared] == []
