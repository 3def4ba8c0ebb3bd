"""A small reader of egglog's s-expression syntax, with source offsets.

The bridge edits rule text before egglog sees it (provenance facts, see
`provenance.py`), and edits must land at exact places in the text, so every form keeps
the offsets of its first and last character. Only what `.egg` files use is read:
parenthesised lists, string literals with backslash escapes, `;` comments and atoms.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Form:
    """An atom (`atom` set, no items) or a list (`items`), spanning text[start:end]."""

    start: int
    end: int
    atom: str | None = None
    items: tuple[Form, ...] = field(default=())

    @property
    def head(self) -> str | None:
        """The first item of a list when it is an atom (`rule`, `union`, `Reshape`)."""
        if self.atom is None and self.items and self.items[0].atom is not None:
            return self.items[0].atom
        return None


class SexprSyntaxError(ValueError):
    """Unbalanced parentheses or an unterminated string; `offset` is where."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


def _string_end(text: str, start: int) -> int:
    position = start + 1
    while position < len(text):
        if text[position] == "\\":
            position += 2
            continue
        if text[position] == '"':
            return position + 1
        position += 1
    raise SexprSyntaxError("unterminated string literal", start)


def read_forms(text: str) -> list[Form]:
    """The top-level forms of `text`, in order."""
    stack: list[tuple[int, list[Form]]] = []
    top: list[Form] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char.isspace():
            position += 1
        elif char == ";":
            newline = text.find("\n", position)
            position = len(text) if newline == -1 else newline
        elif char == "(":
            stack.append((position, []))
            position += 1
        elif char == ")":
            if not stack:
                raise SexprSyntaxError("unbalanced ')'", position)
            start, items = stack.pop()
            form = Form(start, position + 1, items=tuple(items))
            (stack[-1][1] if stack else top).append(form)
            position += 1
        else:
            end = _string_end(text, position) if char == '"' else _atom_end(text, position)
            (stack[-1][1] if stack else top).append(Form(position, end, atom=text[position:end]))
            position = end
    if stack:
        raise SexprSyntaxError("unbalanced '('", stack[-1][0])
    return top


def _atom_end(text: str, start: int) -> int:
    position = start
    while position < len(text) and not text[position].isspace() and text[position] not in '();"':
        position += 1
    return position


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of `offset` in `text`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
