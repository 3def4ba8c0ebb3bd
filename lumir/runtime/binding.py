"""Bind a program's arguments to tensors the caller already owns (weights), by storage.

A compiled model's parameters and buffers are arguments of its graph. Copying them into
the program's input buffers on every call would cost as much as the matmuls; instead
`load(..., static_inputs={i: tensor})` makes argument `i`'s buffer the tensor's own
bytes. The program then reads whatever the tensor holds when it runs: in-place updates
of the tensor are seen, a new tensor object is not (the caller must load again).
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from xdsl.dialects.func import FuncOp

from lumir.runtime.buffers import shaped_type_parts


class StaticInputError(ValueError):
    """A tensor offered for static binding does not fit its argument."""


def tensor_bytes(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor's storage as a flat uint8 buffer (no copy); it must be contiguous. A
    size-1 dimension may have any stride (`x[::2]` of two elements is contiguous with
    stride 2), which `reshape(-1)` keeps and a dtype view refuses."""
    return tensor.as_strided((tensor.numel(),), (1,)).view(torch.uint8)


def bind_static_inputs(
    func: FuncOp, static_inputs: Mapping[int, torch.Tensor], device: torch.device
) -> dict[int, torch.Tensor]:
    """Argument index -> the byte buffer it is bound to, checked against the signature.

    Each tensor must be contiguous and have exactly the argument's shape and dtype, on
    the program's device; anything else is a `StaticInputError` naming the argument.
    """
    args = func.body.block.args
    bound: dict[int, torch.Tensor] = {}
    for index, tensor in sorted(static_inputs.items()):
        if not 0 <= index < len(args):
            raise StaticInputError(
                f"static input {index} is out of range: @{func.sym_name.data} takes "
                f"{len(args)} arguments"
            )
        shape, dtype = shaped_type_parts(args[index].type)
        if tuple(tensor.shape) != shape or tensor.dtype != dtype:
            raise StaticInputError(
                f"static input {index} must be {dtype} of shape {list(shape)}, got "
                f"{tensor.dtype} of shape {list(tensor.shape)}"
            )
        if not _same_device(tensor.device, device):
            raise StaticInputError(
                f"static input {index} is on {tensor.device}, the program runs on {device}"
            )
        if not tensor.is_contiguous():
            raise StaticInputError(
                f"static input {index} is not contiguous; bind a contiguous tensor or "
                "pass it as an ordinary input"
            )
        bound[index] = tensor_bytes(tensor)
    return bound


def _same_device(a: torch.device, b: torch.device) -> bool:
    if a.type != b.type:
        return False
    return a.index is None or b.index is None or a.index == b.index
