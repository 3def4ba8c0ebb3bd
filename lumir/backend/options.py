"""The options of `torch.compile(model, backend="lumir", options={...})`, checked once.

Every option is documented in docs/backend.md. An unknown option or a bad value is a
`LumirOptionError` naming the option and what it accepts, raised when the model is
compiled, before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from lumir.diagnostics import LumirDiagnosticError
from lumir.egraph_bridge.fuse_pass import PRECISION_EXCLUDES
from lumir.egraph_bridge.rulesets import FAMILIES, UnknownRuleFamilyError, select_families
from lumir.passes.chunk_rows import MAX_BYTES as CHUNK_BYTES
from lumir.runtime.gemm_autotune import AutotuneSettingError, autotune_requested
from lumir.runtime.limits import max_buffer_bytes


class LumirOptionError(ValueError):
    """An option of the lumir backend that does not exist or has a bad value."""


@dataclass(frozen=True)
class BackendOptions:
    """The backend's settings (see docs/backend.md for each)."""

    dump_ir: str | None = None
    """Directory that receives the IR after every stage of every compiled graph."""
    families: tuple[str, ...] = ()
    """Only these cublaslt-fuse rule families (all when empty)."""
    disable: tuple[str, ...] = ()
    """cublaslt-fuse rule families to leave out."""
    device: str | None = None
    """Run programs here ("cpu", "cuda", "cuda:1") instead of on the inputs' device."""
    precision: str = "strict"
    """"strict": every value keeps the program's dtype; "fast": calls may write f32."""
    report: bool = False
    """Print one `lumir report:` line per compiled graph to stderr."""
    cache_size: int = 8
    """Specialisations (concrete shapes) kept per compiled partition, least recent out."""
    cuda_graph: bool = True
    """On CUDA, replay each program as one captured CUDA graph."""
    fuse_kernels: bool = True
    """Run fuse-kernels: non-GEMM row chains become one fused (Triton on CUDA) kernel each."""
    gemv: bool = True
    """Let one-row bf16/f16 GEMMs run as lumir's GEMV where the cost model says it is faster."""
    group_gemv: bool = True
    """Run the GEMV calls that read one activation as one launch (group-gemv; needs gemv)."""
    gemv_epilogue: bool = True
    """Run an elementwise kernel that reads only a GEMV group's results inside the group's
    launch (gemv-epilogue: a decode step's SiLU(gate) * up; needs group_gemv)."""
    gemv_prologue: bool = False
    """Run the one-row kernel that computes a GEMV group's activation inside the group's
    launch (gemv-prologue: a decode step's RMSNorm before q/k/v and gate/up; needs
    group_gemv). Off by default: measured on an H100 it slowed the one-token forward by
    9 µs and added 3 s to its first call (docs/perf-notes.md)."""
    group_fused: bool = False
    """Run fused kernels that depend on none of each other as one launch (group-fused: a
    decode layer's q and k rotaries; `cublaslt_rt.fused_group`). Off by default: measured
    on an H100 it gained nothing at one token and slowed the decode step."""
    chunk_bytes: int = CHUNK_BYTES
    """Run a row-local GEMM group whose temporaries exceed this many bytes in row chunks
    (chunk-rows: a long prompt's MLP); 0 never chunks."""
    group_launches: bool = True
    """Run a decode layer's KV-cache writes, and the cache counters' adds, as one launch
    each (group-launches, on the program loaded after the in-place rewrite)."""
    autotune: bool = False
    """Run each cuBLASLt call with the fastest of the heuristic's best algorithms, measured
    once per problem and cached on disk (lumir.runtime.gemm_autotune)."""


OPTION_NAMES = tuple(f.name for f in fields(BackendOptions))

MODES: dict[str, dict[str, object]] = {
    "default": {},
    "reduce-overhead": {"cuda_graph": True},
    "max-autotune": {"autotune": True},
    "max-autotune-no-cudagraphs": {"autotune": True, "cuda_graph": False},
}
"""`torch.compile(..., mode=...)` as lumir's options. torch hands a backend the mode
only when no options are given (it refuses both at once), so a mode stands for the
options it names: reduce-overhead is what lumir does on CUDA anyway (one captured CUDA
graph per program), the max-autotune modes measure the cuBLASLt algorithms."""


def mode_options(mode: object) -> dict[str, object]:
    """The options `torch.compile`'s `mode` stands for (`MODES`), or LumirOptionError."""
    if not isinstance(mode, str) or mode not in MODES:
        raise LumirOptionError(
            f"torch.compile mode {mode!r} has no meaning for lumir; its modes: "
            f"{', '.join(MODES)} (or pass options={{...}} instead)"
        )
    return dict(MODES[mode])


def _families(name: str, value: object) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise LumirOptionError(
            f"lumir option '{name}' must be a list of rule families ({', '.join(FAMILIES)})"
        )
    names = tuple(i.strip() for i in items if i.strip())
    try:
        select_families(names, ())
    except UnknownRuleFamilyError as error:
        raise LumirOptionError(f"lumir option '{name}': {error}") from None
    return names


def _device(value: object) -> str | None:
    if value is None:
        return None
    import torch

    try:
        device = torch.device(value)  # type: ignore[arg-type]
    except (RuntimeError, TypeError):
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise LumirOptionError(f"lumir option 'device' must be 'cpu' or 'cuda[:i]', got {value!r}")
    if device.type == "cuda":
        count = torch.cuda.device_count()
        if count == 0 or (device.index or 0) >= count:
            have = "no CUDA device" if count == 0 else f"CUDA devices cuda:0 to cuda:{count - 1}"
            message = f"lumir option 'device' is {value!r}, but this machine has {have}"
            raise LumirOptionError(message)
    return str(device)


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise LumirOptionError(f"lumir option '{name}' must be True or False, got {value!r}")
    return value


_SWITCHES = (
    "cuda_graph",
    "fuse_kernels",
    "gemv",
    "group_gemv",
    "gemv_epilogue",
    "gemv_prologue",
    "group_launches",
    "group_fused",
)
"""The plain on/off options: each defaults to its `BackendOptions` field, the one place
that states the default."""


def parse_options(
    options: Mapping[str, object] | None, environ: Mapping[str, str] | None = None
) -> BackendOptions:
    """Check `options` (and the LUMIR_DUMP_IR / LUMIR_REPORT / LUMIR_AUTOTUNE /
    LUMIR_MAX_BUFFER_BYTES environment) into settings."""
    environ = os.environ if environ is None else environ
    if options is not None and not isinstance(options, Mapping):
        raise LumirOptionError(
            f"lumir options must be a dict of option names to values, got {options!r}"
        )
    given = dict(options or {})
    unknown = sorted(set(given) - set(OPTION_NAMES))
    if unknown:
        raise LumirOptionError(
            f"unknown lumir option {', '.join(repr(u) for u in unknown)}; valid options: "
            f"{', '.join(OPTION_NAMES)}"
        )
    dump_ir = given.get("dump_ir", environ.get("LUMIR_DUMP_IR") or None)
    if dump_ir is not None and not isinstance(dump_ir, str | os.PathLike):
        raise LumirOptionError(f"lumir option 'dump_ir' must be a directory path, got {dump_ir!r}")
    defaults = BackendOptions()
    precision = given.get("precision", defaults.precision)
    if not isinstance(precision, str) or precision not in PRECISION_EXCLUDES:
        raise LumirOptionError(
            f"lumir option 'precision' must be one of {', '.join(PRECISION_EXCLUDES)}, "
            f"got {precision!r}"
        )
    cache_size = given.get("cache_size", defaults.cache_size)
    if not isinstance(cache_size, int) or isinstance(cache_size, bool) or cache_size < 1:
        raise LumirOptionError(
            f"lumir option 'cache_size' must be an integer >= 1, got {cache_size!r}"
        )
    chunk_bytes = given.get("chunk_bytes", defaults.chunk_bytes)
    if not isinstance(chunk_bytes, int) or isinstance(chunk_bytes, bool) or chunk_bytes < 0:
        raise LumirOptionError(
            f"lumir option 'chunk_bytes' must be an integer >= 0 (bytes; 0 never chunks), "
            f"got {chunk_bytes!r}"
        )
    report = _flag("report", given["report"]) if "report" in given else _env_switch(environ)
    try:
        autotune = (
            _flag("autotune", given["autotune"])
            if "autotune" in given
            else autotune_requested(None, environ)
        )
    except AutotuneSettingError as error:
        raise LumirOptionError(f"lumir option 'autotune': {error}") from None
    try:
        max_buffer_bytes(environ)  # read again at each load; a bad value is refused here
    except LumirDiagnosticError as error:
        raise LumirOptionError(str(error.diagnostics[0]).removeprefix("error: ")) from None
    return BackendOptions(
        dump_ir=None if dump_ir is None else os.fspath(dump_ir),
        families=_families("families", given.get("families", ())),
        disable=_families("disable", given.get("disable", ())),
        device=_device(given.get("device")),
        precision=str(precision),
        report=report,
        cache_size=cache_size,
        chunk_bytes=chunk_bytes,
        autotune=autotune,
        **{name: _flag(name, given.get(name, getattr(defaults, name))) for name in _SWITCHES},
    )


def _env_switch(environ: Mapping[str, str], name: str = "LUMIR_REPORT") -> bool:
    """A 0/1 environment switch, unset or empty meaning 0. Anything else is refused, as
    LUMIR_AUTOTUNE is: `LUMIR_REPORT=false` must not turn the report on."""
    value = environ.get(name, "").strip()
    if value not in ("", "0", "1"):
        raise LumirOptionError(f"{name} must be 0 or 1, got {value!r}")
    return value == "1"
