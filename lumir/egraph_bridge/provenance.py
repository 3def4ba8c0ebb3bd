"""Provenance facts: which rule built each e-node, so a mistyped e-class names its rule.

A rule's actions build Tensor terms (`(let v (Reshape r s))`, `(union y (Add m r))`)
and merge classes (`(union y x)`). When the rule text is loaded, each such action gets a
companion fact recording the rule's name against exactly that node: a `built-by-<Ctor>`
relation keyed by the constructor's arguments (egglog keys relations by e-class, so the
node's own children and fields are the only node-level key there is), or `merged-by`
for a merge of two existing classes. Calls already carry `made-by` (written in the rule,
reported when the verifier refuses one). The facts are generated, never written by
hand, so a new rule cannot forget them; they cost one row per node a rule builds.
"""

from __future__ import annotations

from itertools import pairwise

from lumir.egraph_bridge.sexpr import Form, read_forms
from lumir.egraph_bridge.terms import TENSOR_SIGNATURES

TRACKED_CONSTRUCTORS = tuple(name for name in TENSOR_SIGNATURES if name not in ("Leaf", "Matmul"))
"""Tensor constructors whose nodes rules build directly (calls have `made-by`)."""


def built_by_relation(constructor: str) -> str:
    """The relation recording the rules that built nodes of `constructor`."""
    return f"built-by-{constructor}"


def declarations() -> str:
    """The relation declarations the companion facts use."""
    lines = ["; Provenance of rule-built nodes (generated: egraph_bridge/provenance.py)."]
    for name in TRACKED_CONSTRUCTORS:
        sorts = " ".join((*TENSOR_SIGNATURES[name], "String"))
        lines.append(f"(relation {built_by_relation(name)} ({sorts}))")
    lines.append("(relation merged-by (Tensor String))")
    return "\n".join(lines) + "\n"


def _rule_name(rule: Form) -> str | None:
    items = rule.items
    for keyword, value in pairwise(items):
        if keyword.atom == ":name" and value.atom is not None:
            return value.atom
    return None


def _companion(text: str, action: Form, name: str) -> str | None:
    """The provenance fact of one action, or None for an action that builds no node."""
    if action.head == "let" and len(action.items) == 3:
        term = action.items[2]
    elif action.head == "union" and len(action.items) == 3:
        term = action.items[2]
        if term.atom is not None:
            target = text[action.items[1].start : action.items[1].end]
            return f"(merged-by {target} {name})"
    else:
        return None
    if term.head not in TRACKED_CONSTRUCTORS:
        return None
    arguments = text[term.items[1].start : term.end - 1].strip()
    return f"({built_by_relation(term.head)} {arguments} {name})"  # type: ignore[arg-type]


def with_provenance(text: str) -> str:
    """`text` with a companion fact added to every node-building action of every rule.

    The facts go at the end of each rule's action list, on the line it closes on, so
    every other character keeps its line and column (egglog's error positions stay
    right for the rule files).
    """
    edits: list[tuple[int, str]] = []
    for form in read_forms(text):
        if form.head != "rule" or len(form.items) < 3:
            continue
        name = _rule_name(form)
        actions = form.items[2]
        if name is None or actions.atom is not None:
            continue
        facts = [_companion(text, action, name) for action in actions.items]
        added = " ".join(fact for fact in facts if fact is not None)
        if added:
            edits.append((actions.end - 1, " " + added))
    for offset, insert in reversed(edits):
        text = text[:offset] + insert + text[offset:]
    return text
