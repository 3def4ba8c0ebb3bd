"""Size limits checked before the runtime allocates anything for a function.

A well-formed type can describe more memory than any machine has
(`tensor<200000000x200000000xf32>` is 160 petabytes); torch would fail deep inside an
allocation, or the process would be killed. The executors and lumir-run therefore walk
a function's types first and refuse, located at the op that declares it, any value
whose dense storage is larger than the limit, and any function whose values together
are. The limit is `LUMIR_MAX_BUFFER_BYTES` bytes (default `DEFAULT_MAX_BUFFER_BYTES`,
16 GiB; docs/tools.md). A dynamic dimension (`?`) is refused too: the runtime
allocates every buffer once, at load time, so it needs static shapes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from lumir.diagnostics import Diagnostic, LumirDiagnosticError, op_diagnostic
from lumir.runtime.buffers import UnsupportedTypeError, torch_dtype

LIMIT_VARIABLE = "LUMIR_MAX_BUFFER_BYTES"
DEFAULT_MAX_BUFFER_BYTES = 16 * 2**30


def max_buffer_bytes(environ: Mapping[str, str] | None = None) -> int:
    """The byte limit: `LUMIR_MAX_BUFFER_BYTES` (of `environ`, default the process's) if
    set, else the default."""
    text = (os.environ if environ is None else environ).get(LIMIT_VARIABLE)
    if text is None or not text.strip():
        return DEFAULT_MAX_BUFFER_BYTES
    try:
        limit = int(text.strip())
    except ValueError:
        limit = -1
    if limit < 0:
        raise LumirDiagnosticError(
            [Diagnostic(f"{LIMIT_VARIABLE} must be a number of bytes (>= 0), not '{text}'")]
        )
    return limit


def check_function_sizes(func: FuncOp) -> None:
    """Raise located diagnostics unless every value of `func` fits the byte limit.

    Arguments, op results and their sum are checked; none of them is allocated here.
    """
    limit = max_buffer_bytes()
    values = [(func, arg.type, f"argument #{arg.index}") for arg in func.body.block.args]
    values += [
        (op, result.type, f"result #{result.index} of '{op.name}'")
        for op in func.body.walk()
        for result in op.results
    ]
    total = 0
    for op, value_type, what in values:
        size = _dense_bytes(op, value_type, what)
        if size > limit:
            raise LumirDiagnosticError(
                [op_diagnostic(op, f"{what} ({value_type}) needs {_bytes(size)}, {_over(limit)}")]
            )
        total += size
    if total > limit:
        raise LumirDiagnosticError(
            [
                op_diagnostic(
                    func,
                    f"@{func.sym_name.data} needs {_bytes(total)} for all its values, "
                    f"{_over(limit)}",
                )
            ]
        )


def _dense_bytes(op: Operation, value_type: Attribute, what: str) -> int:
    if not isinstance(value_type, TensorType | MemRefType):
        return 0
    shape = value_type.get_shape()
    if DYNAMIC_INDEX in shape:
        raise LumirDiagnosticError(
            [
                op_diagnostic(
                    op, f"{what} has a dynamic shape ({value_type}); lumir runs static ones"
                )
            ]
        )
    try:
        itemsize = torch_dtype(value_type.element_type).itemsize
    except UnsupportedTypeError:
        return 0  # the loader reports the type itself, at the op that uses it
    count = 1
    for dim in shape:
        count *= dim
    return count * itemsize


def _bytes(size: int) -> str:
    return f"{size} bytes ({size / 2**30:.3g} GiB)"


def _over(limit: int) -> str:
    return f"more than the limit of {limit} bytes ({LIMIT_VARIABLE}, see docs/tools.md)"
