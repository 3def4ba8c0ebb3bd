"""Triton launches with everything fixed, so that their kernels compile before they run.

Triton compiles a kernel the first time it is launched with a new specialisation, and
one launch at a time: a cold first call of the 1B model at sequence 1 spent 2.94 s
compiling 9 kernels one after another inside its first run (H200, `python3 -m
bench.first_call --timers`). Triton's compiler releases the GIL while it works, so the
same compiles run side by side in threads: 8 probe kernels took 1.80 s one by one and
0.42 s on 8 threads with Triton's `AsyncCompileMode` on the same machine.

So every Triton kernel lumir launches on CUDA is made ready to compile ahead: a fixed
launch is a `TritonLaunch` (kernel, grid, arguments, options; calling it launches),
whose `warm_up()` asks Triton to compile exactly that specialisation without launching
it; the few-query attention, which builds its launches per call, offers a `warm_up`
of its own. The loader collects every warm-up of a program and `compile_ahead` runs
them in a thread pool before the program's first run, which then finds each kernel in
Triton's cache. A warm-up takes the launch's own arguments, so it compiles the
specialisation the launch will ask for (dtypes, each pointer's 16-byte alignment,
integers equal to 1 or divisible by 16, constexprs).

Compiling is half of a kernel's first launch. The other half is its launcher and its
module: Triton builds a small host-side launcher per kernel signature (on Triton 3.6 a C
file compiled with `cc -O3`, 0.2-0.4 s each, cached on disk; 3.9 has one precompiled
launcher) and loads the binary into the CUDA context, both at the first launch. Timed
launch by launch, the 1B model's first run spent 2.2 s of its 2.2 s in the first
launches of eight kernels (H200, `bench.first_call --launches`). So `compile_ahead`
then prepares every kernel it compiled for launching, in the same threads: the
compiler runs as a subprocess, so the launchers build side by side.

Nothing changes in what runs: where ahead-of-time compiling is not possible (Triton's
interpreter, a Triton without `AsyncCompileMode`) or a warm-up itself fails, the kernel
is compiled at its first launch as before, and a failure is reported there. A compile
that fails is reported at once, as `KernelCompileError` from the load: the launch would
compile the same source again at the program's first run and fail there, after earlier
launches may have updated a caller's tensor in place (a KV cache), where a caller can
no longer run the call another way. At the load nothing has run yet.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from lumir.diagnostics import first_line

MAX_THREADS = 8
"""Compile threads at most (fewer on a machine with fewer cores)."""

FP_FUSION = True
"""Whether Triton may contract a multiply and an add into one FMA in lumir's kernels,
passed to every launch that does not say (`enable_fp_fusion`) rather than left to
Triton's default: what nvcc does for torch's own CUDA kernels. Triton 3.9 warns that
its default turns off in 3.10, and an unpinned default would change the bits lumir's
kernels write with a Triton upgrade. The fused kernels and the GEMV kernels pass
`lumir.runtime.fused_kernels.FP_FUSION` (off) instead: they must round where torch does,
and a GEMV with an epilogue must write the bits of the GEMV and the fused kernel."""

SWITCH = "LUMIR_COMPILE_AHEAD"
"""`LUMIR_COMPILE_AHEAD=0` turns compiling ahead off: every kernel compiles at its first
launch, one after another (to measure what compiling ahead saves, or to rule it out)."""


_WARMED: ContextVar[list[object] | None] = ContextVar("lumir_warmed_kernels", default=None)
"""While `compile_ahead` runs its warm-ups: where each `TritonLaunch.warm_up` puts the
kernel Triton handed back, for its launcher and module to be prepared next."""

_WARMING: ContextVar[str | None] = ContextVar("lumir_warming_kernel", default=None)
"""The name of the kernel a `TritonLaunch.warm_up` is asking Triton to compile, which
`_CompileRecorder` files each compile Triton submits under."""


class KernelCompileError(RuntimeError):
    """A Triton kernel of a program failed to compile ahead of the program's first run
    (`compile_ahead`): its launch would fail the same way there."""


@dataclass(frozen=True)
class TritonLaunch:
    """One launch of a Triton kernel over fixed arguments; calling it launches it."""

    kernel: object
    """A `triton.jit` function (an interpreted one under TRITON_INTERPRET=1)."""
    grid: tuple[int, ...]
    arguments: tuple[object, ...]
    options: Mapping[str, object] = field(default_factory=dict)
    """Constexprs and launch options (`num_warps`, `launch_pdl`, ...); `enable_fp_fusion`
    is `FP_FUSION` unless given."""

    def __post_init__(self) -> None:
        # `with_arguments` (a GEMV run per call) copies a launch whose options already
        # say it: only a new launch pays for the merge.
        if "enable_fp_fusion" not in self.options:
            object.__setattr__(self, "options", {"enable_fp_fusion": FP_FUSION, **self.options})

    def __call__(self) -> None:
        self.kernel[self.grid](*self.arguments, **self.options)  # type: ignore[index]

    def with_arguments(self, arguments: tuple[object, ...]) -> TritonLaunch:
        """The same launch over other arguments (of the same specialisation)."""
        return replace(self, arguments=arguments)

    def warm_up(self) -> None:
        """Compile this launch's specialisation without launching it."""
        token = _WARMING.set(_kernel_name(self.kernel))
        try:
            compiled = self.kernel.warmup(*self.arguments, grid=self.grid, **self.options)  # type: ignore[attr-defined]
        finally:
            _WARMING.reset(token)
        sink = _WARMED.get()
        if sink is not None and compiled is not None:
            sink.append(compiled)


WarmUp = Callable[[], None]
"""A zero-argument call that compiles (never launches) one or more Triton kernels."""


def compile_ahead(warm_ups: Iterable[WarmUp]) -> int:
    """Run `warm_ups` with their compiles spread over a thread pool, then make every
    kernel they compiled ready to launch (its launcher built, its module loaded) in the
    same pool; the number of warm-ups run.

    Does nothing (returns 0) under Triton's interpreter, with fewer than two warm-ups
    (nothing to overlap), with `LUMIR_COMPILE_AHEAD=0`, or with a Triton that lacks
    `AsyncCompileMode` (3.5 and later have it); those kernels compile at their first
    launch, as they always did. A warm-up that raises is ignored here: its launch
    compiles when it runs and reports the failure where it always did. A compile that
    failed raises `KernelCompileError` naming its kernels, once every other kernel is
    prepared: Triton compiles the same source for the launch, which would fail too.
    """
    pending = list(warm_ups)
    if len(pending) < 2 or os.environ.get("TRITON_INTERPRET") == "1":
        return 0
    if os.environ.get(SWITCH) == "0":
        return 0
    try:
        from triton.runtime._async_compile import AsyncCompileMode
    except ImportError:
        return 0
    threads = max(1, min(MAX_THREADS, os.cpu_count() or 1))
    device = _current_device()
    warmed: list[object] = []
    token = _WARMED.set(warmed)
    try:
        with ThreadPoolExecutor(threads) as pool:
            compiles = _CompileRecorder(pool)
            with AsyncCompileMode(compiles, ignore_errors=True):
                for warm_up in pending:
                    try:
                        warm_up()
                    except Exception:  # its launch compiles (and reports) at its first run
                        continue
            # Leaving the mode waited for every compile; now the launchers, side by side.
            kernels = _distinct(_compiled(handle) for handle in warmed)
            list(pool.map(lambda kernel: _prepare_launch(kernel, device), kernels))
    finally:
        _WARMED.reset(token)
    failures = compiles.failures()
    if failures:
        raise KernelCompileError(
            "Triton could not compile "
            + "; ".join(
                f"{name}: {type(error).__name__}: {first_line(error)}" for name, error in failures
            )
        )
    return len(pending)


def _kernel_name(kernel: object) -> str:
    return str(getattr(kernel, "__name__", None) or type(kernel).__name__)


class _CompileRecorder:
    """The executor handed to Triton's async mode: runs each compile Triton submits on
    the pool and keeps its future, filed under the kernel being warmed up. The mode
    ignores a failed compile (and Triton 3.9 drops its future), so this is where the
    error is still found once the mode has waited for every compile."""

    def __init__(self, pool: ThreadPoolExecutor) -> None:
        self.pool = pool
        self.compiles: list[tuple[str, Future[object]]] = []

    def submit(
        self, function: Callable[..., object], /, *args: object, **kwargs: object
    ) -> Future[object]:
        future = self.pool.submit(function, *args, **kwargs)
        self.compiles.append((_WARMING.get() or "a Triton kernel", future))
        return future

    def failures(self) -> list[tuple[str, BaseException]]:
        """Each failed compile's kernel and error, in the order submitted."""
        return [
            (name, error)
            for name, future in self.compiles
            if future.done()
            and not future.cancelled()
            and (error := future.exception()) is not None
        ]


def _current_device() -> object:
    """The device Triton compiles for in this thread (what the warm-ups target)."""
    try:
        from triton.runtime import driver

        return driver.active.get_current_device()
    except Exception:  # no driver: the launches will say so at their first run
        return None


def _compiled(handle: object) -> object:
    """The compiled kernel behind what a warm-up returned: Triton's async mode hands
    back a future whose `kernel` is set once compiled (None when the compile failed)."""
    if type(handle).__name__ == "FutureKernel":
        return getattr(handle, "kernel", None)
    return handle


def _distinct(kernels: Iterable[object]) -> list[object]:
    """Each kernel once, in the order first warmed (two launches may share one)."""
    seen: dict[int, object] = {}
    for kernel in kernels:
        if kernel is not None:
            seen.setdefault(id(kernel), kernel)
    return list(seen.values())


def _prepare_launch(kernel: object, device: object) -> None:
    """Do in this worker thread what `kernel`'s first launch would do first: build its
    launcher and load its binary (Triton's `CompiledKernel._init_handles`, idempotent).
    A failure is left to that launch, which reports it where it always did."""
    init_handles = getattr(kernel, "_init_handles", None)
    if init_handles is None:
        return
    try:
        if device is not None:
            from triton.runtime import driver

            driver.active.set_current_device(device)
        init_handles()
    except Exception:
        return
