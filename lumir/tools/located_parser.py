"""An xDSL parser that records where each op was written.

xDSL's parser leaves an op's location unknown unless the text spells out `loc(...)`.
lumir's diagnostics need `file:line:col`, so this parser stamps every op it reads with a
`FileLineColLoc` of its first token (the result name, or the op name).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser


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
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            position = span.get_location()
            op.location = FileLineColLoc(
                StringAttr(position.file),
                IntAttr(position.line + self.line_offset),
                IntAttr(position.col),
            )
        return op
