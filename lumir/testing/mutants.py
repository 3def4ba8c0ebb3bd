"""Mutants of the lit tests' inputs: user mistakes, made at random but reproducibly.

The lit suite (test/lit/**/*.mlir) holds hand-written IR at every level, each file with
the pipelines its RUN lines apply. `load_corpus` strips the RUN/CHECK comments, splits
a file into its `// -----` chunks when a RUN line does, and keeps each chunk with its
file's `lumir-opt` invocations. `mutant(corpus, seed, index)` then draws one chunk and
applies one to three mistakes a person could make typing or editing it: a token or line
deleted, duplicated or swapped, a type changed (element type, a dimension to 0,
negative, huge or `?`, a rank), an attribute given another value (an enum, an integer,
a string, a field of a `cublaslt.matmul` descriptor or a `cublaslt_rt` plan, an offset
or a size), a value renamed to one never defined, an operand dropped or repeated, an op
moved above the definition of what it reads or into the wrong region, a huge number, a
stray unicode character. `lumir.testing.mutant_check` runs the result through the tools.

Mutant `index` of seed `seed` depends only on `(seed, index)` and the corpus
(`random.Random` seeded by a string), so a run is reproducible from those two numbers.
"""

from __future__ import annotations

import random
import re
import shlex
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SPLIT_MARKER = "// -----"
LIT_ROOT = Path(__file__).resolve().parents[2] / "test" / "lit"


@dataclass(frozen=True)
class Invocation:
    """How a RUN line calls lumir-opt on the file: its pipeline and printing flags."""

    passes: str = ""
    generic: bool = False
    disable_verify: bool = False

    def argv(self) -> list[str]:
        """The lumir-opt flags (after the input file) of this invocation."""
        args = ["-p", self.passes] if self.passes else []
        if self.generic:
            args.append("--print-op-generic")
        if self.disable_verify:
            args.append("--disable-verify")
        return args


@dataclass(frozen=True)
class SeedChunk:
    """One chunk of a lit file: its IR without comments, and how the file is run."""

    path: str
    """The file, relative to test/lit."""
    chunk: int
    text: str
    invocations: tuple[Invocation, ...]
    invalid: bool = False
    """From a file of verifier tests (`-invalid.mlir`, `--verify-diagnostics`): the
    chunk is refused before any mutation, so it is drawn less often."""


@dataclass
class Corpus:
    """The seed chunks, and the vocabulary mutations draw replacement values from."""

    chunks: list[SeedChunk]
    attributes: dict[str, list[str]] = field(default_factory=dict)
    """Attribute name -> every value it is given somewhere in the corpus (`m = 32 : i64`
    gives `m` the value `32 : i64`)."""
    enums: dict[str, list[str]] = field(default_factory=dict)
    """`#cublaslt<kind value>` kind -> every value seen."""
    strings: list[str] = field(default_factory=list)
    op_lines: list[str] = field(default_factory=list)
    """Lines that hold one operation, for splicing into another chunk."""


_RUN = re.compile(r"^\s*//\s*RUN:\s*(.*)$")
_ATTRIBUTE = re.compile(
    r"\b([a-z_][a-z0-9_]*) = ("
    r"#cublaslt<[a-z_0-9]+ [a-z_0-9]+>"
    r"|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?: : [a-z0-9]+)?"
    r"|\"[^\"]*\""
    r"|true|false"
    r"|array<[^>]*>"
    r"|@[\w.$]+"
    r"|dense<[^>]*> : tensor<[^>]*>"
    r")"
)
_ENUM = re.compile(r"#cublaslt<([a-z_0-9]+) ([a-z_0-9]+)>")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _invocations(text: str) -> tuple[tuple[Invocation, ...], bool, bool]:
    """The file's lumir-opt/lumir-run invocations of its own text, whether any splits
    it into chunks, and whether any checks expected diagnostics."""
    found: list[Invocation] = []
    split = diagnostics = False
    for line in text.splitlines():
        match = _RUN.match(line)
        if match is None:
            continue
        command = match.group(1).split("|")[0]
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        if "%s" not in words or words[0] == "not":  # `not`: a deliberately bad command line
            continue
        split = split or "--split-input-file" in words
        diagnostics = diagnostics or "--verify-diagnostics" in words
        passes = ""
        if "-p" in words and words.index("-p") + 1 < len(words):
            passes = words[words.index("-p") + 1]
        invocation = Invocation(passes, "--print-op-generic" in words, "--disable-verify" in words)
        if invocation not in found:
            found.append(invocation)
    return tuple(found) or (Invocation(),), split, diagnostics


def _strip_comments(text: str) -> str:
    """The chunk without its comment lines (RUN, CHECK, expected-error, prose).

    Lines keep their places (a removed line becomes empty) only where that matters to
    nobody: locations in a mutant refer to the mutant's own text.
    """
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def load_corpus(root: Path = LIT_ROOT) -> Corpus:
    """Every non-empty chunk of every lit test, in a fixed (sorted) order."""
    chunks: list[SeedChunk] = []
    for path in sorted(root.rglob("*.mlir")):
        text = path.read_text(encoding="utf-8")
        invocations, split, diagnostics = _invocations(text)
        invalid = diagnostics or path.name.endswith("-invalid.mlir")
        pieces = text.split(SPLIT_MARKER) if split else [text]
        for number, piece in enumerate(pieces):
            body = _strip_comments(piece).strip("\n")
            if body.strip():
                relative = path.relative_to(root).as_posix()
                chunks.append(SeedChunk(relative, number, body + "\n", invocations, invalid))
    corpus = Corpus(chunks)
    attributes: dict[str, set[str]] = defaultdict(set)
    enums: dict[str, set[str]] = defaultdict(set)
    strings: set[str] = set()
    op_lines: set[str] = set()
    for chunk in chunks:
        for name, value in _ATTRIBUTE.findall(chunk.text):
            attributes[name].add(value)
        for kind, value in _ENUM.findall(chunk.text):
            enums[kind].add(value)
        strings.update(_STRING.findall(chunk.text))
        for line in chunk.text.splitlines():
            stripped = line.strip()
            if stripped.startswith(("%", "hl.", "cublaslt", "func.return", "hl.yield")):
                op_lines.add(line)
    corpus.attributes = {name: sorted(values) for name, values in sorted(attributes.items())}
    corpus.enums = {kind: sorted(values) for kind, values in sorted(enums.items())}
    corpus.strings = sorted(strings)
    corpus.op_lines = sorted(op_lines)
    return corpus


# --- the mistakes ------------------------------------------------------------------

_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # a string
    r"|[%@^#!][\w.$\-]*"  # a sigil name
    r"|0x[0-9a-fA-F]+"
    r"|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
    r"|[A-Za-z_][\w.$]*"
    r"|->|[^\s]"
)
_SHAPED = re.compile(r"\b(tensor|memref)<([^<>]*)>")
_ELEMENT_TYPES = (
    "f32",
    "bf16",
    "f16",
    "f64",
    "i64",
    "i32",
    "i8",
    "i1",
    "ui8",
    "f8E4M3FN",
    "f8E5M2",
    "index",
    "i4",
    "f80",
    "complex<f32>",
)
_ELEMENT = re.compile(r"\b(f32|bf16|f16|f64|i64|i32|i16|i8|i1|ui8|f8E4M3FN|f8E5M2)\b")
_INTEGER = re.compile(r"(?<![\w.#%@^x])-?\d+(?![\w.])")
_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[+-]?\d+)?")
_SSA_USE = re.compile(r"%[\w.$\-]+")
_SPECIAL_INTEGERS = (
    "0",
    "-1",
    "1",
    "2",
    "-7",
    "3",
    "31",
    "1023",
    "65536",
    "2147483647",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "100000000000000000000000000000000000000",
)
_SPECIAL_FLOATS = (
    "0.0",
    "-0.0",
    "1.0e+38",
    "3.5e+38",
    "1.0e+308",
    "1.0e+400",
    "-1.0e+400",
    "1.0e-320",
    "0x7FC00000",
    "0xFFFFFFFF",
    "nan",
    "inf",
    "65504.0",
    "65536.0",
    "-2.5",
)
_DIMENSIONS = ("0", "1", "-1", "?", "2", "3", "7", "65536", "4294967297", "99999999999999999999")
_UNICODE = ("é", "\u202e", "\u200b", "\ufeff", "\x00", "\x7f", "😀", "Ω", "\u2028", "\t", "\r")
_STRINGS = ('""', '"é"', '"\\00"', '"x"', '"heuristic"', '"' + "a" * 300 + '"', '"\\"')
_STRANGE_NAMES = ("%undefined", "%0", "%arg99", "%x#1", "%", "%-1")


class _Text:
    """A chunk being mutated: helpers that pick a random occurrence and replace it."""

    def __init__(self, text: str, rng: random.Random):
        self.text = text
        self.rng = rng

    def replace_match(self, pattern: re.Pattern[str], make: Callable[[re.Match[str]], str]) -> bool:
        matches = list(pattern.finditer(self.text))
        if not matches:
            return False
        match = self.rng.choice(matches)
        self.text = self.text[: match.start()] + make(match) + self.text[match.end() :]
        return True

    def lines(self) -> list[str]:
        return self.text.split("\n")

    def set_lines(self, lines: list[str]) -> None:
        self.text = "\n".join(lines)

    def op_line_indices(self) -> list[int]:
        return [i for i, line in enumerate(self.lines()) if line.strip() not in ("", "}", "{")]


def _tokens(t: _Text) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(t.text))


def token_delete(t: _Text, corpus: Corpus) -> bool:
    tokens = _tokens(t)
    if not tokens:
        return False
    token = t.rng.choice(tokens)
    t.text = t.text[: token.start()] + t.text[token.end() :]
    return True


def token_duplicate(t: _Text, corpus: Corpus) -> bool:
    tokens = _tokens(t)
    if not tokens:
        return False
    token = t.rng.choice(tokens)
    t.text = t.text[: token.end()] + " " + token.group() + t.text[token.end() :]
    return True


def token_swap(t: _Text, corpus: Corpus) -> bool:
    tokens = _tokens(t)
    if len(tokens) < 2:
        return False
    index = t.rng.randrange(len(tokens) - 1)
    first, second = tokens[index], tokens[index + 1]
    if t.rng.random() < 0.3:  # any two tokens, not only neighbours
        second = t.rng.choice(tokens[index + 1 :])
    t.text = (
        t.text[: first.start()]
        + second.group()
        + t.text[first.end() : second.start()]
        + first.group()
        + t.text[second.end() :]
    )
    return True


def line_delete(t: _Text, corpus: Corpus) -> bool:
    indices, lines = t.op_line_indices(), t.lines()
    if indices:
        del lines[t.rng.choice(indices)]
        t.set_lines(lines)
    return bool(indices)


def line_duplicate(t: _Text, corpus: Corpus) -> bool:
    indices, lines = t.op_line_indices(), t.lines()
    if indices:
        index = t.rng.choice(indices)
        where = t.rng.choice([index, index + 1, t.rng.randrange(len(lines) + 1)])
        lines.insert(where, lines[index])
        t.set_lines(lines)
    return bool(indices)


def line_move(t: _Text, corpus: Corpus) -> bool:
    """An op moved up or down: a use above its definition, an op after the return, a
    function's op at the top level, or two ops swapped."""
    indices = t.op_line_indices()
    if len(indices) < 2:
        return False
    lines = t.lines()
    source, target = t.rng.sample(indices, 2)
    if t.rng.random() < 0.5:
        lines[source], lines[target] = lines[target], lines[source]
    else:
        line = lines.pop(source)
        lines.insert(target, line)
    t.set_lines(lines)
    return True


def line_splice(t: _Text, corpus: Corpus) -> bool:
    """An op line of another test pasted in (values and plans of another program)."""
    if not corpus.op_lines:
        return False
    lines = t.lines()
    lines.insert(t.rng.randrange(len(lines) + 1), t.rng.choice(corpus.op_lines))
    t.set_lines(lines)
    return True


def element_type(t: _Text, corpus: Corpus) -> bool:
    """One element type changed, or (half the time) every occurrence of it."""
    matches = list(_ELEMENT.finditer(t.text))
    if not matches:
        return False
    old = t.rng.choice(matches).group()
    new = t.rng.choice([e for e in _ELEMENT_TYPES if e != old])
    if t.rng.random() < 0.5:
        t.text = re.sub(rf"\b{old}\b", new, t.text)
        return True
    return t.replace_match(_ELEMENT, lambda m: new)


def _shape(match: re.Match[str], rng: random.Random) -> str:
    kind, inner = match.groups()
    parts = inner.split("x")
    dims, element = parts[:-1], parts[-1]
    choice = rng.random()
    if dims and choice < 0.6:
        dims[rng.randrange(len(dims))] = rng.choice(_DIMENSIONS)
    elif dims and choice < 0.8:
        del dims[rng.randrange(len(dims))]
    else:
        dims.insert(rng.randrange(len(dims) + 1), rng.choice(("1", "2", "4", "0")))
    return f"{kind}<{'x'.join([*dims, element])}>"


def shape(t: _Text, corpus: Corpus) -> bool:
    """A dimension set to 0, -1, `?`, a huge or another size, dropped or added, in one
    type or (a third of the time) in every type where the same dimension value occurs."""
    if t.rng.random() < 0.33:
        dims = sorted({d for m in _SHAPED.finditer(t.text) for d in m.group(2).split("x")[:-1]})
        dims = [d for d in dims if d.isdigit()]
        if not dims:
            return False
        old, new = t.rng.choice(dims), t.rng.choice(_DIMENSIONS)

        def every(match: re.Match[str]) -> str:
            parts = match.group(2).split("x")
            parts[:-1] = [new if d == old else d for d in parts[:-1]]
            return f"{match.group(1)}<{'x'.join(parts)}>"

        t.text = _SHAPED.sub(every, t.text)
        return True
    return t.replace_match(_SHAPED, lambda m: _shape(m, t.rng))


def integer(t: _Text, corpus: Corpus) -> bool:
    """An integer literal (a size, an offset, an index, a dims entry) changed."""

    def change(match: re.Match[str]) -> str:
        value = int(match.group())
        return t.rng.choice([*_SPECIAL_INTEGERS, str(value + 1), str(value - 1), str(value * 2)])

    return t.replace_match(_INTEGER, change)


def floating(t: _Text, corpus: Corpus) -> bool:
    return t.replace_match(_FLOAT, lambda m: t.rng.choice(_SPECIAL_FLOATS))


def attribute(t: _Text, corpus: Corpus) -> bool:
    """An attribute given another value: one its name takes elsewhere in the corpus, a
    value of another attribute, or a special integer."""
    matches = list(_ATTRIBUTE.finditer(t.text))
    if not matches:
        return False
    match = t.rng.choice(matches)
    name = match.group(1)
    roll = t.rng.random()
    if roll < 0.5 and corpus.attributes.get(name):
        value = t.rng.choice(corpus.attributes[name])
    elif roll < 0.7 and corpus.attributes:
        value = t.rng.choice(corpus.attributes[t.rng.choice(sorted(corpus.attributes))])
    else:
        suffix = " : i64" if t.rng.random() < 0.7 else ""
        value = t.rng.choice(_SPECIAL_INTEGERS) + suffix
    start, end = match.span(2)
    t.text = t.text[:start] + value + t.text[end:]
    return True


def attribute_drop(t: _Text, corpus: Corpus) -> bool:
    """An attribute left out of its dictionary (a descriptor field missing)."""
    pattern = re.compile(_ATTRIBUTE.pattern + r",\s*")
    return t.replace_match(pattern, lambda m: "")


def enum(t: _Text, corpus: Corpus) -> bool:
    def change(match: re.Match[str]) -> str:
        kind = match.group(1)
        values = [*corpus.enums.get(kind, []), "bogus", "default"]
        if t.rng.random() < 0.15:
            kind = t.rng.choice(sorted(corpus.enums) or [kind])
        return f"#cublaslt<{kind} {t.rng.choice(values)}>"

    return t.replace_match(_ENUM, change)


def string(t: _Text, corpus: Corpus) -> bool:
    return t.replace_match(_STRING, lambda m: t.rng.choice([*_STRINGS, *corpus.strings]))


def _uses(t: _Text) -> list[re.Match[str]]:
    """SSA names that are not definitions (`%x =`, block arguments `%x:`)."""
    return [
        m
        for m in _SSA_USE.finditer(t.text)
        if not re.match(r"\s*(=|:(?!:)|,\s*%[\w.$\-]+\s*=)", t.text[m.end() :])
    ]


def rename_use(t: _Text, corpus: Corpus) -> bool:
    """A use renamed: to a name never defined, or to another value of the chunk."""
    uses = _uses(t)
    if not uses:
        return False
    use = t.rng.choice(uses)
    names = sorted({m.group() for m in _SSA_USE.finditer(t.text)})
    new = t.rng.choice(_STRANGE_NAMES) if t.rng.random() < 0.5 else t.rng.choice(names)
    t.text = t.text[: use.start()] + new + t.text[use.end() :]
    return True


_OPERAND_LIST = re.compile(r"%[\w.$\-]+(?:\s*,\s*%[\w.$\-]+)+")


def operand_count(t: _Text, corpus: Corpus) -> bool:
    """An operand dropped from a list of operands, or one repeated."""

    def change(match: re.Match[str]) -> str:
        names = [n.strip() for n in match.group().split(",")]
        if t.rng.random() < 0.5:
            del names[t.rng.randrange(len(names))]
        else:
            names.insert(t.rng.randrange(len(names) + 1), t.rng.choice(names))
        return ", ".join(names)

    return t.replace_match(_OPERAND_LIST, change)


def nest(t: _Text, corpus: Corpus) -> bool:
    """An op put where it does not belong: the chunk inside a module, a function or a
    plan inside a function, a function's body op at the top level, or an op wrapped in
    a region of an op that has none."""
    lines = t.lines()
    indices = t.op_line_indices()
    if not indices:
        return False
    roll = t.rng.random()
    if roll < 0.25:
        t.text = "builtin.module {\n" + t.text + "\n}\n"
    elif roll < 0.5:
        source, target = t.rng.choice(indices), t.rng.choice(indices)
        line = lines.pop(source)
        lines.insert(min(target, len(lines)), "  " + line)
        t.set_lines(lines)
    elif roll < 0.75:
        index = t.rng.choice(indices)
        wrapper = t.rng.choice(
            (
                ('"test.op"() ({', "}) : () -> ()"),
                ("func.func @inner() {", "func.return\n}"),
                ("builtin.module {", "}"),
                ("hl.yield {", "}"),
            )
        )
        lines[index : index + 1] = [wrapper[0], lines[index], wrapper[1]]
        t.set_lines(lines)
    else:
        # a region closed early or opened and never closed
        lines.insert(t.rng.choice(indices), t.rng.choice(("}", "{", "^bb1:", "^bb0(%z: f32):")))
        t.set_lines(lines)
    return True


def huge_number(t: _Text, corpus: Corpus) -> bool:
    return t.replace_match(
        re.compile(r"(?<![\w.#%@^])\d+(?:\.\d+)?"),
        lambda m: t.rng.choice(("9" * 40, "1" + "0" * 25, "1e999", "4294967296", "-" + "9" * 30)),
    )


def unicode(t: _Text, corpus: Corpus) -> bool:
    if not t.text:
        return False
    position = t.rng.randrange(len(t.text) + 1)
    t.text = t.text[:position] + t.rng.choice(_UNICODE) + t.text[position:]
    return True


def character(t: _Text, corpus: Corpus) -> bool:
    """A character deleted or a bracket inserted (an unbalanced `(`, `<`, `{`, `[`)."""
    if not t.text:
        return False
    position = t.rng.randrange(len(t.text))
    if t.rng.random() < 0.5:
        t.text = t.text[:position] + t.text[position + 1 :]
    else:
        t.text = t.text[:position] + t.rng.choice("()<>{}[],:=x") + t.text[position:]
    return True


def truncate(t: _Text, corpus: Corpus) -> bool:
    if len(t.text) < 2:
        return False
    t.text = t.text[: t.rng.randrange(1, len(t.text))]
    return True


MUTATIONS: dict[str, tuple[Callable[[_Text, Corpus], bool], int]] = {
    "token-delete": (token_delete, 3),
    "token-duplicate": (token_duplicate, 2),
    "token-swap": (token_swap, 2),
    "line-delete": (line_delete, 5),
    "line-duplicate": (line_duplicate, 3),
    "line-move": (line_move, 5),
    "line-splice": (line_splice, 2),
    "element-type": (element_type, 10),
    "shape": (shape, 12),
    "integer": (integer, 10),
    "float": (floating, 3),
    "attribute": (attribute, 14),
    "attribute-drop": (attribute_drop, 3),
    "enum": (enum, 8),
    "string": (string, 3),
    "rename-use": (rename_use, 5),
    "operand-count": (operand_count, 4),
    "nest": (nest, 3),
    "huge-number": (huge_number, 3),
    "unicode": (unicode, 1),
    "character": (character, 1),
    "truncate": (truncate, 1),
}
"""Each mistake, and its weight in the draw."""


@dataclass(frozen=True)
class Mutant:
    """One mutated chunk, how it was made, and the lumir-opt invocation to run it with."""

    index: int
    source: SeedChunk
    mutations: tuple[str, ...]
    text: str
    invocation: Invocation


def mutant(corpus: Corpus, seed: int, index: int) -> Mutant:
    """Mutant `index` of `seed`: a chunk, one to three mistakes, one of its invocations."""
    rng = random.Random(f"lumir-mutate/{seed}/{index}")
    weights = [1 if chunk.invalid else 4 for chunk in corpus.chunks]
    source = rng.choices(corpus.chunks, weights=weights)[0]
    t = _Text(source.text, rng)
    names = list(MUTATIONS)
    weights = [MUTATIONS[name][1] for name in names]
    count = rng.choices((1, 2, 3), weights=(14, 5, 1))[0]
    applied: list[str] = []
    for _ in range(20):  # a mistake that finds nothing to change is drawn again
        if len(applied) == count:
            break
        name = rng.choices(names, weights=weights)[0]
        if MUTATIONS[name][0](t, corpus):
            applied.append(name)
    invocation = rng.choice(source.invocations)
    if rng.random() < OTHER_PASS_SHARE:
        invocation = Invocation(rng.choice(_pass_names()))
        applied.append("other-pass")
    return Mutant(index, source, tuple(applied), t.text, invocation)


OTHER_PASS_SHARE = 0.25
"""How often a mutant runs through a pass its file does not name (any registered pass,
on IR of any level: running a pass on the wrong level is a mistake too)."""


def _pass_names() -> list[str]:
    from lumir.passes import available_passes

    return sorted(available_passes())
