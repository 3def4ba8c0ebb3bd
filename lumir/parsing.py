"""Reading lumir IR: an xDSL parser that locates every op, and one call that parses a file.

Every layer reads IR (the tools, `lumir.runtime.load` on a string, tests), so the parser
lives here, below all of them, rather than in `lumir.tools`.

xDSL's parser leaves an op's location unknown unless the text spells out `loc(...)`.
lumir's diagnostics need `file:line:col`, so `LocatedParser` stamps every op it reads
with a `FileLineColLoc` of its first token (the result name, or the op name). It finds
that line in a table of line starts by bisection: xDSL's own `Span.get_location` counts
the newlines from the start of the file on every call, which made parsing quadratic in
the file's length.

It also closes gaps of xDSL's parser that a person would hit:

- a property of the wrong kind in custom syntax (`{approximate = 3}`) fails inside the
  op's constructor with a `VerifyException` that carries no position, and a literal out
  of its type's range (`dense<1000> : tensor<2xi8>`) with a `ValueError`; both are
  re-raised as parse errors at the op;
- xDSL prints non-finite floats in dense literals as MLIR does, as hex bit patterns
  (`dense<0xff800000> : tensor<f32>` is -inf), but reads a hex element back as an
  integer; hex elements of a float tensor are read as bit patterns here;
- a splat (`dense<1.0> : tensor<100000x100000xf32>`) is kept as its one element, as
  MLIR keeps it, instead of being expanded to every element while parsing;
- a value used but never defined is reported at its first use, not at the end of the
  file; a dimension beyond int64 is refused where it is written; a region that never
  closes says so; an empty input is an empty module (mlir-opt's convention);
- IR nested deeper than `MAX_NESTING` ops is refused at the op that is too deep, so no
  later stage (verifier, printer, passes) can run out of Python stack on it;
- a string literal left open is refused at once (`_StringSafeLexer`): xDSL's pattern
  for it backtracks exponentially in the length of the rest of the line.

The subclass uses a few of xDSL's underscore-prefixed parser methods
(`_parse_tensor_literal_element`, `_parse_block`, `_TensorLiteralElement`); the
located-parser tests run against the newest xDSL as well as the pinned one.
"""

from __future__ import annotations

import bisect
import math
import re
import struct
import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    BytesAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

from lumir.context import lumir_context
from lumir.diagnostics import Diagnostic, LumirDiagnosticError, SourceLocation

MAX_NESTING = 48
"""The deepest nesting of ops (an op inside a region of an op inside ...) lumir reads."""

INT64_MAX = 2**63 - 1


class LineTable:
    """The start offset of every line of a text, for O(log n) offset -> line:col."""

    def __init__(self, text: str, name: str, line_offset: int = 0):
        self.name = name
        self.line_offset = line_offset
        self.starts = [0]
        position = text.find("\n")
        while position != -1:
            self.starts.append(position + 1)
            position = text.find("\n", position + 1)

    def location(self, offset: int) -> SourceLocation:
        """The 1-based line and column of character `offset`."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return SourceLocation(
            self.name, index + 1 + self.line_offset, offset - self.starts[index] + 1
        )


def _bits_to_float(bits: int, element_type: Attribute) -> float | None:
    """The float whose bit pattern is `bits`, for the float types lumir uses."""
    if isinstance(element_type, BFloat16Type):
        return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    formats = {Float16Type: ("<H", "<e"), Float32Type: ("<I", "<f"), Float64Type: ("<Q", "<d")}
    for kind, (int_format, float_format) in formats.items():
        if isinstance(element_type, kind):
            return struct.unpack(float_format, struct.pack(int_format, bits))[0]
    if isinstance(element_type, AnyFloat) and element_type.bitwidth == 8:  # the f8 types
        return next(element_type.iter_unpack(bytes([bits & 0xFF])))
    return None


@dataclass
class _TensorElement(Parser._TensorLiteralElement):
    """A dense-literal element that refuses a scalar for a complex type as a parse error.

    xDSL asserts that a complex element type gets a `(re, im)` pair, so
    `dense<0.0> : tensor<complex<f32>>` died with an AssertionError.
    """

    def to_complex(self, parser: AttrParser, type: ComplexType):
        if not isinstance(self.value, tuple):
            parser.raise_error(
                f"expected a complex literal (re, im) for {type}, found '{self.span.text}'",
                at_position=self.span,
            )
        return super().to_complex(parser, type)

    def to_type(self, parser: AttrParser, type: Attribute):
        _refuse_unpackable(parser, type, self.span)
        value = super().to_type(parser, type)  # type: ignore[arg-type]
        if (
            isinstance(value, float)
            and _DECIMAL_LITERAL.fullmatch(self.span.text)
            and (math.isinf(value) or _overflows(value, type))
        ):
            parser.raise_error(_out_of_range(self.span.text, type), at_position=self.span)
        return value


_DECIMAL_LITERAL = re.compile(r"-?\s*[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?(?![\w.])")
"""A decimal number as MLIR writes one (a sign, digits, a point, an exponent), not hex."""

_LARGEST_FINITE = {
    "bf16": 3.3895313892515355e38,
    "f16": 65504.0,
    "f32": 3.4028234663852886e38,
    "f64": sys.float_info.max,
    "f8E4M3FN": 448.0,
    "f8E5M2": 57344.0,
}
"""The largest finite value of each float type, for the out-of-range message."""


def _out_of_range(literal: str, element_type: Attribute) -> str:
    """The message for a decimal literal too large for its float type."""
    largest = _LARGEST_FINITE.get(getattr(element_type, "name", ""))
    bound = "" if largest is None else f" (largest finite magnitude {largest:.8g})"
    return (
        f"'{literal}' is out of range for {element_type}{bound}; an infinity or NaN is "
        "written as a hex bit pattern"
    )


def _overflows(value: float, element_type: Attribute) -> bool:
    """Whether a finite decimal literal rounds to no finite value of its float type.

    xDSL's packing raises a bare OverflowError for f16 and f32 (a traceback in
    lumir-opt), rounds bf16 and f8E5M2 to an infinity and f8E4M3FN to NaN without a
    word; each is the literal's mistake, reported where it is written.
    """
    if not isinstance(element_type, AnyFloat) or element_type.bitwidth >= 64:
        return False
    try:
        packed = element_type.pack([value])
    except OverflowError:
        return True
    return not math.isfinite(next(element_type.iter_unpack(packed)))


def _packable(element_type: Attribute) -> bool:
    """Whether xDSL can store a literal of this element type as bytes (and so print it).

    Its f80 and f128 types, and integers wider than 64 bits (i80, i128), have no byte
    layout (`pack` raises NotImplementedError), so a
    `dense<...>` or `array<...>` of them, or a `1.0 : f80` attribute, failed in the
    parser or in the printer of an error message with a traceback.
    """
    if isinstance(element_type, ComplexType):
        element_type = element_type.element_type
    if not isinstance(element_type, AnyFloat | IntegerType):
        return True
    try:
        element_type.pack([])
    except NotImplementedError:
        return False
    return True


def _refuse_unpackable(parser: AttrParser, element_type: Attribute, span: Span) -> None:
    if not _packable(element_type):
        parser.raise_error(
            f"{element_type} literals are not supported: lumir stores a literal's elements "
            "as bytes, which it lays out for element types of at most 64 bits",
            at_position=span,
        )


@dataclass
class _HexTensorElement(_TensorElement):
    """A dense-literal element written in hex: a bit pattern when the type is a float."""

    def to_type(self, parser: AttrParser, type: Attribute):
        _refuse_unpackable(parser, type, self.span)
        if isinstance(self.value, int) and not self.is_negative:
            width = type.bitwidth if isinstance(type, AnyFloat) else None
            if width is not None and self.value >> width:
                parser.raise_error(
                    f"hexadecimal literal '{self.span.text}' has more than the {width} bits "
                    f"of {type}",
                    at_position=self.span,
                )
            value = _bits_to_float(self.value, type)
            if value is not None:
                return value
        return super().to_type(parser, type)  # type: ignore[arg-type]


_SCALAR_TOKENS = (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.FLOAT_LIT, MLIRTokenKind.BARE_IDENT)


class _StringSafeLexer(MLIRLexer):
    """xDSL's lexer, with a string-literal pattern that cannot backtrack.

    xDSL matches a string literal with `"(?:[^"\\\n\v\f]+|\\(?:...))*"`: a `+` inside a `*`.
    When the closing quote is missing (a typo, a truncated file), the regex engine tries
    every way of splitting the rest of the line into runs before it gives up,
    exponential in the line's length: a string left open on a line of 60 characters took
    more than two minutes to reject. With possessive quantifiers (Python 3.11) the
    pattern matches exactly the same literals, as a run of plain characters and an
    escape start with different characters, and fails at once.
    """

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')

    _SIGIL_NAMES = {
        "%": "a value name such as %x or %0",
        "#": "an attribute alias or dialect attribute such as #map or #cublaslt<...>",
        "!": "a type alias or dialect type such as !t",
        "^": "a block label such as ^bb0",
    }

    def _lex_prefixed_ident(self, start_pos: Position) -> MLIRToken:
        """A bare sigil: xDSL's message is the unformatted text "Expected suffix
        identifier after {first_char}"; this one names the sigil and what it starts."""
        try:
            return super()._lex_prefixed_ident(start_pos)
        except ParseError as error:
            sigil = self.input.at(start_pos)
            raise ParseError(
                error.span,
                f"expected a name right after '{sigil}' to form {self._SIGIL_NAMES[sigil]}",
            ) from None

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        try:
            return super()._lex_string_literal(start_pos)
        except ParseError as error:  # xDSL says "End of file reached", wherever it is
            raise ParseError(
                error.span,
                "string literal not closed: expected '\"' before the end of the line "
                '(escapes: \\n, \\t, \\\\, \\", or two hex digits)',
            ) from None


class LocatedParser(Parser):
    """A `Parser` whose ops carry the source position they were parsed from.

    `line_offset` is added to every line, so a chunk of a `--split-input-file` input
    reports lines of the whole file.
    """

    def __init__(
        self,
        ctx: Context,
        input: str,
        name: str = "<unknown>",
        line_offset: int = 0,
    ):
        self.lines = LineTable(input, name, line_offset)
        super().__init__(ctx, "", name)
        # Read `input` with the safe lexer (its first token is lexed at once).
        self._parser_state = ParserState(_StringSafeLexer(Input(input, name)))
        self._depth = 0
        self._first_uses: dict[str, Span] = {}

    def locate(self, span: Span) -> SourceLocation:
        """The source location of a span of this parser's input."""
        return self.lines.location(span.start)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])  # mlir-opt reads an empty file as an empty module
        start = self._current_token.span
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as error:
            undefined = self._undefined_uses()
            if undefined and self._current_token.kind == MLIRTokenKind.EOF:
                raise LumirDiagnosticError(undefined) from None
            if error.msg == "Could not parse entire input!":
                self._raise_unexpected_top_level()
            raise
        if isinstance(module.location, UnknownLoc):
            module.location = self._file_line_col(start)
        return module

    def _raise_unexpected_top_level(self) -> None:
        """xDSL says "Could not parse entire input!" about a token that cannot start a
        top-level operation (a stray '}', a bare literal); say what it found instead."""
        token = self._current_token
        if token.kind == MLIRTokenKind.EOF:
            self.raise_error("expected an operation, found the end of the input")
        unmatched = " (it closes no '{')" if token.kind == MLIRTokenKind.R_BRACE else ""
        self.raise_error(
            f"unexpected '{token.text}' at the top level{unmatched}; "
            "expected an operation or the end of the input"
        )

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        if self._depth >= MAX_NESTING:
            self.raise_error(
                f"nesting too deep: lumir reads at most {MAX_NESTING} nested operations",
                at_position=span,
            )
        self._depth += 1
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError) as error:  # from op and attribute constructors
            self.raise_error(str(error), at_position=span)
        finally:
            self._depth -= 1
        if isinstance(op.location, UnknownLoc):
            op.location = self._file_line_col(span)
        return op

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute):
        name = operand.operand_name
        if name not in self.ssa_values and name not in self.forward_ssa_references:
            self._first_uses[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        span = self._current_token.span
        dimension = super().parse_shape_dimension(allow_dynamic)
        if dimension > INT64_MAX:
            self.raise_error(
                f"dimension {dimension} does not fit in int64 (at most {INT64_MAX})",
                at_position=span,
            )
        return dimension

    def parse_optional_builtin_int_or_float_attr(self):  # type: ignore[override]
        """xDSL's `<number> : <type>`, refusing a decimal float that overflows its type
        (xDSL made it an infinity without a word) as the dense literals do."""
        span = self._current_token.span
        literal = _DECIMAL_LITERAL.match(span.input.content, span.start)
        attr = super().parse_optional_builtin_int_or_float_attr()
        if isinstance(attr, FloatAttr | IntegerAttr):
            _refuse_unpackable(self, attr.type, span)
        if literal is not None and isinstance(attr, FloatAttr) and math.isinf(attr.value.data):
            self.raise_error(_out_of_range(literal.group(), attr.type), at_position=span)
        return attr

    def parse_dense_int_or_fp_elements_attr(self, type):  # type: ignore[override]
        start = self._current_token.span.start
        splat = self._parse_optional_splat(type)
        if splat is not None:
            return splat
        self._resume_from(start)
        return super().parse_dense_int_or_fp_elements_attr(type)

    def _parse_optional_splat(self, type) -> DenseIntOrFPElementsAttr | None:
        """`dense<x> : T` with one scalar x, stored as that one element (an MLIR splat)."""
        self.parse_punctuation("<", " in dense attribute")
        if self._current_token.kind not in (*_SCALAR_TOKENS, MLIRTokenKind.MINUS):
            return None
        element = self._parse_tensor_literal_element()
        if self.parse_optional_punctuation(">") is None:
            return None
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        element_type = type.get_element_type()
        value = element.to_type(self, element_type)
        if isinstance(element_type, IntegerType):
            value = element_type.get_normalized_value(value)
        return DenseIntOrFPElementsAttr(type, BytesAttr(element_type.pack([value])))

    def _parse_builtin_densearray_attr(self):  # type: ignore[override]
        """`array<T: ...>`, refused at T when xDSL cannot store its elements (f80, f128)."""
        start = self._current_token.span.start
        self.parse_characters("<", " in dense array")
        span = self._current_token.span
        _refuse_unpackable(self, self.parse_attribute(), span)
        self._resume_from(start)
        return super()._parse_builtin_densearray_attr()

    def _parse_dense_literal_type(self):  # type: ignore[override]
        """The `: tensor<...>` of a dense literal, refused at once when xDSL cannot
        store its elements (f80, f128), however many elements the literal has."""
        span = self._current_token.span
        type = super()._parse_dense_literal_type()
        _refuse_unpackable(self, type.get_element_type(), span)
        return type

    def _parse_tensor_literal_element(self) -> Parser._TensorLiteralElement:
        token = self._current_token
        element = super()._parse_tensor_literal_element()
        if token.kind == MLIRTokenKind.INTEGER_LIT and token.text[:2].lower() == "0x":
            return _HexTensorElement(element.is_negative, element.value, element.span)
        return _TensorElement(element.is_negative, element.value, element.span)

    def _parse_block(self):
        if self._current_token.kind != MLIRTokenKind.CARET_IDENT:
            found = (
                "the end of the input"
                if self._current_token.kind == MLIRTokenKind.EOF
                else f"'{self._current_token.text}'"
            )
            self.raise_error(f"expected an operation, a block label or '}}' here, found {found}")
        return super()._parse_block()

    def _file_line_col(self, span: Span) -> FileLineColLoc:
        where = self.locate(span)
        return FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.column))

    def _undefined_uses(self) -> list[Diagnostic]:
        """One diagnostic per value used but never defined, at its first use."""
        return [
            Diagnostic(f"use of undefined value '%{name}'", self.locate(self._first_uses[name]))
            for name in self.forward_ssa_references
            if name in self._first_uses
        ]


def parse_module_text(
    text: str, name: str, line_offset: int = 0, ctx: Context | None = None
) -> ModuleOp:
    """Parse `text` (named `name` in diagnostics) into a module, or raise located errors.

    Raises:
        LumirDiagnosticError: the text is not valid IR; every diagnostic is located.
    """
    parser: LocatedParser | None = None
    try:
        parser = LocatedParser(ctx or lumir_context(), text, name, line_offset)
        return parser.parse_module()
    except LumirDiagnosticError:
        raise
    except ParseError as error:  # the lexer raises it too, before `parser` exists
        lines = parser.lines if parser is not None else LineTable(text, name, line_offset)
        message = error.msg.strip() or "syntax error"
        raise LumirDiagnosticError(
            [Diagnostic(message, lines.location(error.span.start))]
        ) from None
    except RecursionError:
        assert parser is not None
        where = parser.locate(parser._current_token.span)
        raise LumirDiagnosticError(
            [Diagnostic("nesting too deep: the input nests attributes or types too deeply", where)]
        ) from None
    except (VerifyException, DiagnosticException) as error:
        assert parser is not None
        where = parser.locate(parser._current_token.span)
        raise LumirDiagnosticError([Diagnostic(str(error).strip(), where)]) from None
