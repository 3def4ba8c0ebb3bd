"""The xDSL context lumir parses and rewrites in: its own dialects and the upstream ones it uses."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect


def _hl() -> Dialect:
    from lumir.dialects.hl import HL

    return HL


def _cublaslt() -> Dialect:
    from lumir.dialects.cublaslt import Cublaslt

    return Cublaslt


def _cublaslt_rt() -> Dialect:
    from lumir.dialects.cublaslt_rt import CublasltRt

    return CublasltRt


def _builtin() -> Dialect:
    from xdsl.dialects.builtin import Builtin

    return Builtin


def _func() -> Dialect:
    from xdsl.dialects.func import Func

    return Func


def _arith() -> Dialect:
    from xdsl.dialects.arith import Arith

    return Arith


def _memref() -> Dialect:
    from xdsl.dialects.memref import MemRef

    return MemRef


DIALECTS: dict[str, Callable[[], Dialect]] = {
    "builtin": _builtin,
    "func": _func,
    "arith": _arith,
    "memref": _memref,
    "hl": _hl,
    "cublaslt": _cublaslt,
    "cublaslt_rt": _cublaslt_rt,
}
"""Every dialect lumir-opt understands, loaded on first use."""


def lumir_context() -> Context:
    """A fresh context with all of lumir's dialects registered (loaded lazily)."""
    ctx = Context()
    for name, factory in DIALECTS.items():
        ctx.register_dialect(name, factory)
    return ctx
