"""The enum sorts of the term language, generated from `lumir/cublaslt_enums.py`.

Every dtype, compute type, epilogue, order and transpose in a rule is a nullary
constructor of a sort of its own (`(BF16)`, `(Compute32F)`, `(EpiReluBias)`,
`(OrderCol)`, `(TransT)`), never a string: egglog then refuses a misspelled constant
when the rule file loads, where a string would silently never match. The constructor
names are derived from the enum members' names, so a member added to the enum is a
constructor at once. Dtypes outside cuBLASLt's (an `i1` mask, an `i64` index) still
appear in tensor types; `(OtherDType "i1")` carries them by their MLIR spelling.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose


def _camel(name: str) -> str:
    """`RELU_BIAS` -> `ReluBias`; parts with digits stay as written (`32F`, `F8E4M3`)."""
    return "".join(part.capitalize() if part.isalpha() else part for part in name.split("_"))


def egg_string(text: str) -> str:
    """`text` as an egglog string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


@dataclass(frozen=True)
class EnumSort:
    """An egglog sort with one nullary constructor per member of `enum`."""

    name: str
    enum: type[Enum]
    prefix: str
    escape: str | None = None
    """A constructor taking the spelling of a value outside the enum, if the sort has one."""

    def constructor(self, member: Enum) -> str:
        """The nullary constructor of `member` (`Epilogue.RELU_BIAS` -> `EpiReluBias`)."""
        return self.prefix + _camel(member.name)

    @property
    def constructors(self) -> dict[str, str]:
        """Constructor name -> the member's value (its spelling in IR), in enum order."""
        return {self.constructor(member): member.value for member in self.enum}

    def term(self, text: str) -> str:
        """The egglog term of the value spelled `text` (`"relu_bias"` -> `(EpiReluBias)`)."""
        try:
            member = self.enum(text)
        except ValueError:
            if self.escape is None:
                raise
            return f"({self.escape} {egg_string(text)})"
        return f"({self.constructor(member)})"

    def declaration(self) -> str:
        """The sort's `datatype` command."""
        names = [f"({name})" for name in self.constructors]
        if self.escape is not None:
            names.append(f"({self.escape} String)")
        return f"(datatype {self.name} {' '.join(names)})"


ENUM_SORTS: tuple[EnumSort, ...] = (
    EnumSort("DType", DataType, "", escape="OtherDType"),
    EnumSort("ComputeType", ComputeType, ""),
    EnumSort("Epilogue", Epilogue, "Epi"),
    EnumSort("Order", Order, "Order"),
    EnumSort("Trans", Transpose, "Trans"),
)
"""The enum sorts, in the order the header declares them."""

SORT_OF_ENUM: dict[type[Enum], EnumSort] = {sort.enum: sort for sort in ENUM_SORTS}
SORT_NAMED: dict[str, EnumSort] = {sort.name: sort for sort in ENUM_SORTS}
DTYPE = SORT_OF_ENUM[DataType]


def constructor_sorts() -> dict[str, str]:
    """Every generated constructor name -> its sort (for "did you mean" suggestions)."""
    found: dict[str, str] = {}
    for sort in ENUM_SORTS:
        for name in sort.constructors:
            found[name] = sort.name
        if sort.escape is not None:
            found[sort.escape] = sort.name
    return found
