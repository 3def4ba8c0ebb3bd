"""IRDL constraints shared by the `hl` ops.

xDSL ties operand element types with one `VarConstraint` (see `SignlessIntegerBinaryOperation`
in `xdsl/dialects/arith.py`); `hl` does the same, with a message that says what to do
about a mismatch. String properties that name one of a few choices (`approximate`,
`predicate`) are checked against the `StrEnum` that declares the choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    AnyAttr,
    AttrConstraint,
    BaseAttr,
    IntConstraint,
    VarConstraint,
    VerificationContext,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


@dataclass(frozen=True, init=False)
class SharedElementType(VarConstraint[Attribute]):
    """An element type every operand constrained by the same variable name must have.

    ATen would promote mixed element types; `hl` never does, so the conversion is an
    explicit `hl.cast` that passes can see. `operand` names the constrained operand in
    the message. The declarative assembly format checks constraints while it parses, so
    in custom form a mismatch is reported (at the op) even under `--disable-verify`; the
    generic form reaches the verifier, which also gives the operand's position.
    """

    operand: str

    def __init__(self, name: str, operand: str):
        super().__init__(name, AnyAttr())
        object.__setattr__(self, "operand", operand)

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        shared = constraint_context.get_variable(self.name)
        if shared is not None and shared != attr:
            raise VerifyException(
                f"operand element types differ: {self.operand} is {attr}, not {shared} "
                "(insert an hl.cast)"
            )
        super().verify(attr, constraint_context)

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> SharedElementType:
        return self


def same_element_tensor(operand: str, variable: str = "ELEMENT") -> AttrConstraint:
    """A tensor type whose element type is shared with the op's other `variable` tensors.

    `operand` is how a mismatch message names this operand.
    """
    return TensorType.constr(SharedElementType(variable, operand))


@dataclass(frozen=True)
class StringEnumConstraint(AttrConstraint[StringAttr]):
    """A string property whose value is one of `choices`; `subject` names it in messages.

    The property stays a builtin string (`{approximate = "tanh"}`), so its text in
    custom form, generic form and in `cublaslt_rt.launch` params is unchanged, while the
    allowed values have one declaration: the `StrEnum`.
    """

    choices: type[StrEnum]
    subject: str

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        BaseAttr(StringAttr).verify(attr, constraint_context)
        assert isinstance(attr, StringAttr)
        values = [choice.value for choice in self.choices]
        if attr.data not in values:
            raise VerifyException(f"{self.subject} must be one of {values}, got '{attr.data}'")

    def get_bases(self) -> set[type[Attribute]]:
        return {StringAttr}

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> StringEnumConstraint:
        return self
