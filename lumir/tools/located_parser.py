"""An xDSL parser that records where each op was written, and reads what it prints.

xDSL's parser leaves an op's location unknown unless the text spells out `loc(...)`.
lumir's diagnostics need `file:line:col`, so this parser stamps every op it reads with a
`FileLineColLoc` of its first token (the result name, or the op name).

It also closes two gaps of xDSL 0.75's parser that a person would hit:

- a property of the wrong kind in custom syntax (`{approximate = 3}`) fails inside the
  op's constructor with a `VerifyException` that carries no position; it is re-raised
  as a parse error at the op;
- xDSL prints non-finite floats in dense literals as MLIR does, as hex bit patterns
  (`dense<0xff800000> : tensor<f32>` is -inf), but reads a hex element back as an
  integer. Attention masks are full of -inf, so hex elements of a float tensor are read
  as bit patterns here, and printed IR parses back to the same values.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import AttrParser, Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind


def _bits_to_float(bits: int, element_type: Attribute) -> float | None:
    """The float whose bit pattern is `bits`, for the float types lumir uses."""
    if isinstance(element_type, BFloat16Type):
        return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    formats = {Float16Type: ("<H", "<e"), Float32Type: ("<I", "<f"), Float64Type: ("<Q", "<d")}
    for kind, (int_format, float_format) in formats.items():
        if isinstance(element_type, kind):
            return struct.unpack(float_format, struct.pack(int_format, bits))[0]
    return None


@dataclass
class _HexTensorElement(Parser._TensorLiteralElement):
    """A dense-literal element written in hex: a bit pattern when the type is a float."""

    def to_type(self, parser: AttrParser, type: Attribute):
        if isinstance(self.value, int) and not self.is_negative:
            value = _bits_to_float(self.value, type)
            if value is not None:
                return value
        return super().to_type(parser, type)  # type: ignore[arg-type]


class LocatedParser(Parser):
    """A `Parser` whose ops carry the source position they were parsed from.

    `line_offset` is added to every line, so a chunk of a `--split-input-file` input
    reports lines of the whole file.
    """

    def __init__(
        self,
        ctx: Context,
        input: str | bytes,
        name: str = "<unknown>",
        line_offset: int = 0,
    ):
        super().__init__(ctx, input, name)
        self.line_offset = line_offset

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as error:
            self.raise_error(str(error), at_position=span)
        if isinstance(op.location, UnknownLoc):
            position = span.get_location()
            op.location = FileLineColLoc(
                StringAttr(position.file),
                IntAttr(position.line + self.line_offset),
                IntAttr(position.col),
            )
        return op

    def _parse_tensor_literal_element(self) -> Parser._TensorLiteralElement:
        token = self._current_token
        element = super()._parse_tensor_literal_element()
        if token.kind == MLIRTokenKind.INTEGER_LIT and token.text[:2].lower() == "0x":
            return _HexTensorElement(element.is_negative, element.value, element.span)
        return element
