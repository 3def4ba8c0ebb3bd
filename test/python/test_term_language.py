"""The descriptor table, the dialects' properties, the term fields and the rule header agree.

`MatmulDescriptor` is the one declaration of the cuBLASLt descriptor; everything else is
derived from it. These tests check each derivation against the table (not against a
second hand-written list), that a call survives the round trip through egglog's typed
terms, and that a misspelled enum constant in a rule file is a located load error.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from egglog.bindings import EGraph
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, TensorType, bf16, f16
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region

from lumir.cublaslt_enums import ComputeType, DataType, Epilogue, Order, Transpose
from lumir.dialects.cublaslt import ATTRIBUTE_OF_ENUM, MatmulOp, descriptor_properties
from lumir.dialects.cublaslt_rt import PlanOp
from lumir.egraph_bridge.descriptors import call_descriptor
from lumir.egraph_bridge.egraph_view import read_egraph
from lumir.egraph_bridge.encoder import call_fields, encode_block
from lumir.egraph_bridge.rulesets import RuleSource, rule_file_path, rule_sources
from lumir.egraph_bridge.saturate import (
    RuleFileError,
    check_rules,
    load_rules,
    rule_file_error,
)
from lumir.egraph_bridge.sorts import ENUM_SORTS, SORT_OF_ENUM, constructor_sorts
from lumir.egraph_bridge.terms import (
    GROUP_SORTS,
    CallFields,
    call_sorts,
    datatype_header,
    field_sort,
)
from lumir.matmul_descriptor import (
    DERIVED,
    DESCRIPTOR_FIELDS,
    GROUPS,
    PRINT_ORDER,
    TERM_FIELDS,
    MatmulDescriptor,
    fields_in,
)
from lumir.passes.cublaslt_builders import row_major_matmul_op

# --- the table and the properties ----------------------------------------------------


def test_table_is_the_dataclass() -> None:
    """Every dataclass field is in the table once, with a group, in declaration order."""
    names = [f.name for f in dataclasses.fields(MatmulDescriptor)]
    assert [f.name for f in DESCRIPTOR_FIELDS] == names
    assert {f.group for f in DESCRIPTOR_FIELDS} == {*GROUPS, DERIVED}
    assert sorted(f.name for f in PRINT_ORDER) == sorted(names)


@pytest.mark.parametrize("op_type", [MatmulOp, PlanOp])
def test_properties_are_the_table(op_type: type) -> None:
    """Both descriptor-carrying ops define one property per field, of the field's type."""
    properties = op_type.get_irdl_definition().properties
    declared = [name for name in properties if name in {f.name for f in DESCRIPTOR_FIELDS}]
    assert declared == [f.name for f in DESCRIPTOR_FIELDS]
    for field in DESCRIPTOR_FIELDS:
        text = str(properties[field.name].constr)
        if field.python_type is int:
            assert text == "BaseAttr(IntegerAttr)"
        elif field.python_type is float:
            assert text.startswith("ParamAttrConstraint(FloatAttr,")
        else:
            attribute = ATTRIBUTE_OF_ENUM[field.python_type]
            assert text == f"BaseAttr({attribute.__name__})"
            assert attribute.enum_type is field.enum  # type: ignore[attr-defined]


def test_properties_print_in_table_order() -> None:
    """The property dictionary follows PRINT_ORDER: sizes, enums, then the scales."""
    op = _linear_op(Epilogue.DEFAULT)
    props = descriptor_properties(op.descriptor())
    assert list(props) == [f.name for f in PRINT_ORDER]
    ranks = [
        0 if isinstance(a, IntegerAttr) else 2 if isinstance(a, FloatAttr) else 1
        for a in props.values()
    ]
    assert ranks == sorted(ranks)


# --- the term fields and the header ----------------------------------------------------


def test_call_fields_are_the_term_fields() -> None:
    """CallFields holds exactly the non-derived fields, grouped as the Call term holds them."""
    assert [f.name for f in dataclasses.fields(CallFields)] == [f.name for f in TERM_FIELDS]
    assert all(f.group != DERIVED for f in TERM_FIELDS)
    assert {f.name for f in TERM_FIELDS} | {f.name for f in fields_in(DERIVED)} == {
        f.name for f in DESCRIPTOR_FIELDS
    }


def _datatype(header: str, constructor: str) -> list[str]:
    """The argument sorts of `constructor` as the header declares it."""
    found = re.search(rf"\({re.escape(constructor)}((?: [\w]+)*)\)", header)
    assert found is not None, constructor
    return found.group(1).split()


def test_header_declares_the_table() -> None:
    """Layout, Types and Call in the header take one sort per table field, in table order."""
    header = datatype_header()
    for group, (_, constructor) in GROUP_SORTS.items():
        assert _datatype(header, constructor) == [field_sort(f) for f in fields_in(group)]
    assert _datatype(header, "Call") == call_sorts()
    for sort in ENUM_SORTS:
        for name in sort.constructors:
            assert f"({name})" in header


def test_every_enum_member_has_one_constructor() -> None:
    """Each member of each descriptor enum is a constructor; no two share a name."""
    names = constructor_sorts()
    total = sum(len(sort.enum) + (sort.escape is not None) for sort in ENUM_SORTS)
    assert len(names) == total
    for enum in (DataType, ComputeType, Epilogue, Order, Transpose):
        sort = SORT_OF_ENUM[enum]
        for member in enum:
            assert names[sort.constructor(member)] == sort.name
    assert SORT_OF_ENUM[Epilogue].term("relu_bias") == "(EpiReluBias)"
    assert SORT_OF_ENUM[ComputeType].term("compute_32f") == "(Compute32F)"
    assert SORT_OF_ENUM[DataType].term("i1") == '(OtherDType "i1")'
    with pytest.raises(ValueError):
        SORT_OF_ENUM[Order].term("diagonal")


def test_header_and_rules_load() -> None:
    """The generated header with every rule file is a program egglog accepts."""
    check_rules(("alpha", "residual", "bias", "relu", "gelu", "cast", "batched"))


# --- round trip --------------------------------------------------------------------------


def _linear_op(epilogue: Epilogue, element=bf16) -> MatmulOp:  # type: ignore[no-untyped-def]
    arg_types = [TensorType(element, [6, 8]), TensorType(element, [16, 8])]
    if epilogue.reads_bias:
        arg_types.append(TensorType(element, [16]))
    block = Block(arg_types=arg_types)
    x, w = block.args[:2]
    bias = block.args[2] if epilogue.reads_bias else None
    op = row_major_matmul_op(x, w, transpose_rhs=True, bias=bias, epilogue=epilogue)
    block.add_ops([op, ReturnOp(op.d)])
    func = FuncOp("f", ([a.type for a in block.args], [op.d.type]), Region(block))
    ModuleOp([func])
    return op


@pytest.mark.parametrize(
    ("epilogue", "element"),
    [
        (Epilogue.DEFAULT, bf16),
        (Epilogue.RELU_BIAS, bf16),
        (Epilogue.GELU, f16),
        (Epilogue.BIAS, f16),
    ],
)
def test_call_round_trips_through_typed_terms(epilogue: Epilogue, element) -> None:  # type: ignore[no-untyped-def]
    """Encode a call, load it into egglog, read it back: the same fields and descriptor."""
    op = _linear_op(epilogue, element)
    block = op.parent_block()
    assert block is not None
    encoded = encode_block(block)
    egraph = EGraph()
    load_rules(egraph, rule_sources(()))
    egraph.run_program(*egraph.parse_program(encoded.program))
    view = read_egraph(egraph, encoded)
    calls = [node for eclass in view.classes for node in eclass.nodes if node.kind == "Matmul"]
    assert [node.call for node in calls] == [call_fields(op)]
    types = [v.type for v in (op.a, op.b, op.d)]
    assert isinstance(types[0], TensorType)
    decoded = call_descriptor(calls[0].call, types[0], types[1], None, types[2])  # type: ignore[arg-type]
    assert decoded == op.descriptor()


# --- misspelled constants ------------------------------------------------------------------


def test_misspelled_constant_is_a_located_error() -> None:
    """The test-only rule file spells EpiDefault wrong: file, line, column and a suggestion."""
    with pytest.raises(RuleFileError) as raised:
        check_rules(("misspelled-constant",))
    error = raised.value
    assert error.source == rule_file_path("misspelled-constant")
    assert error.source.endswith("lumir/egraph_bridge/rules/misspelled-constant.egg")
    assert (error.line, error.column) == (10, 43)
    assert "Unbound function EpiDefualt" in error.reason
    assert "did you mean (EpiDefault), of sort Epilogue?" in error.reason


def test_string_where_a_sort_is_expected_is_an_error() -> None:
    """The old spelling, a string for a compute type, no longer loads (and says where)."""
    rule = (
        "(ruleset probe)\n"
        '(rule ((= m (Matmul (Call lay (Types a b c d "compute_32f" s) al be ep x y o p))))\n'
        '      ((union m m)) :ruleset probe :name "probe")\n'
    )
    egraph = EGraph()
    load_rules(egraph, rule_sources(()))
    source = RuleSource("probe.egg", rule)
    with pytest.raises(RuleFileError) as raised:
        load_rules(egraph, [source])
    assert raised.value.source == "probe.egg"
    assert raised.value.line == 2


def test_suggestion_names_the_closest_constructor() -> None:
    """A misspelled compute type suggests the generated constructor of its sort."""
    source = RuleSource("probe.egg", "(let x (Compute32f))\n")
    egraph = EGraph()
    load_rules(egraph, rule_sources(()))
    try:
        egraph.run_program(*egraph.parse_program(source.text, filename=source.name))
    except Exception as exc:
        error = rule_file_error(source, exc)  # type: ignore[arg-type]
    else:
        pytest.fail("egglog accepted an unbound constructor")
    assert (error.line, error.column) == (1, 8)
    assert error.reason.endswith("did you mean (Compute32F), of sort ComputeType?")
