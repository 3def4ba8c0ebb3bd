"""`torch.compile(model, backend="lumir")`.

Installing lumir registers the backend through the `torch_dynamo_backends` entry point,
so no import is needed first; importing this module registers it too (for a checkout
that is not installed). docs/backend.md documents the options.
"""

from __future__ import annotations

from lumir.backend.compiler import LumirFallbackWarning, compile_aten_graph, lumir_backend
from lumir.backend.options import BackendOptions, LumirOptionError, parse_options
from lumir.backend.stages import LumirDumpWarning
from lumir.backend.stats import GRAPHS


def _register() -> None:
    """Register "lumir" unless it is registered, or an installed entry point will be."""
    from torch._dynamo.backends import registry

    registry._discover_entrypoint_backends()
    if "lumir" in registry._COMPILER_FNS or registry._BACKENDS.get("lumir") is not None:
        return
    registry.register_backend(lumir_backend, name="lumir")


_register()

__all__ = [
    "GRAPHS",
    "BackendOptions",
    "LumirDumpWarning",
    "LumirFallbackWarning",
    "LumirOptionError",
    "compile_aten_graph",
    "lumir_backend",
    "parse_options",
]
