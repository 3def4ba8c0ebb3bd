"""Run the rules over an encoded block in egglog, within node and iteration limits.

The rule sources (each under its own file name, so that egglog's error positions name the
rule file; `check_rules` turns a refused one into `RuleFileError`) and then the block's
facts are parsed with egglog's own program parser,
`EGraph.parse_program`, and run with `run_program`, which egglog-python 13.2 and 14 both
provide with the same meaning. The facts are parsed one command at a time: egglog 13.2
spends time proportional to the length of the whole text on every command it parses
(source positions), which made a 64-block program take seconds to load; 14 does not.
Iterations are driven from Python so that the e-graph's size can be checked after each
one: a rule set that keeps growing the e-graph stops with a message naming the limit,
instead of running until memory runs out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from egglog.bindings import EggSmolError, EGraph

from lumir.egraph_bridge.rulesets import RuleSource, iteration_schedule, rule_sources
from lumir.egraph_bridge.sorts import constructor_sorts
from lumir.egraph_bridge.terms import TENSOR_CONSTRUCTORS


@dataclass(frozen=True)
class Limits:
    """Bounds on saturation: e-nodes of the Tensor sort, and schedule iterations."""

    node_limit: int
    iteration_limit: int


@dataclass(frozen=True)
class Saturation:
    """A saturated e-graph and how it got there."""

    egraph: EGraph
    iterations: int
    nodes: int


class LimitReachedError(Exception):
    """Saturation stopped at a limit; `limit` is the option's name, `value` its setting."""

    def __init__(self, limit: str, value: int, message: str):
        super().__init__(message)
        self.limit = limit
        self.value = value


class RuleProgramError(Exception):
    """egglog refused the generated program (a broken rule file, or an encoder bug)."""


class RuleFileError(RuleProgramError):
    """A rule file egglog does not load: where (line and column when egglog says) and why."""

    def __init__(self, source: str, line: int | None, column: int | None, reason: str):
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.line = line
        self.column = column
        self.reason = reason


_POSITION = re.compile(r"^In (\d+):(\d+)\S* of [^:]*:.*?\n(.*)$", re.DOTALL)
_UNBOUND = re.compile(r"Unbound function (\S+)")


def _suggestion(reason: str) -> str:
    """A "did you mean" for a misspelled enum constructor, from the generated names."""
    unbound = _UNBOUND.search(reason)
    if unbound is None:
        return ""
    names = constructor_sorts()
    folded = {name.lower(): name for name in names}  # case slips (Compute32f) first
    close = difflib.get_close_matches(unbound.group(1).lower(), list(folded), n=1)
    if not close:
        return ""
    name = folded[close[0]]
    return f"; did you mean ({name}), of sort {names[name]}?"


def rule_file_error(source: RuleSource, error: EggSmolError) -> RuleFileError:
    """egglog's refusal of `source` as a located error (at its `In L:C`, when it gives one)."""
    # Some egglog-python versions append the commands that failed; the reason is before.
    text = str(error).split("\nWhen running commands:")[0].strip()
    found = _POSITION.match(text)
    if found is None:
        return RuleFileError(source.name, None, None, text + _suggestion(text))
    reason = " ".join(found.group(3).split())
    return RuleFileError(
        source.name, int(found.group(1)), int(found.group(2)), reason + _suggestion(reason)
    )


def load_rules(egraph: EGraph, sources: Sequence[RuleSource]) -> None:
    """Run each rule source, parsed under its own name; raise `RuleFileError` for a bad one."""
    for source in sources:
        try:
            egraph.run_program(*egraph.parse_program(source.text, filename=source.name))
        except EggSmolError as error:
            raise rule_file_error(source, error) from None


@cache
def check_rules(rulesets: tuple[str, ...]) -> None:
    """Load the rules of `rulesets` once into an empty e-graph: `RuleFileError` if they fail."""
    load_rules(EGraph(), rule_sources(rulesets))


def _run(egraph: EGraph, text: str) -> list[object]:
    try:
        return egraph.run_program(*egraph.parse_program(text))
    except EggSmolError as error:
        raise RuleProgramError(str(error)) from None


def tensor_node_count(egraph: EGraph) -> int:
    """The number of Tensor e-nodes (the candidates the extractor chooses among)."""
    (sizes,) = _run(egraph, "(print-size)")
    return sum(size for name, size in sizes.sizes if name in TENSOR_CONSTRUCTORS)


def load(egraph: EGraph, rules: Sequence[RuleSource], facts: Sequence[str]) -> None:
    """Run the rule sources, then the block's fact commands (each parsed on its own)."""
    load_rules(egraph, rules)
    try:
        commands = [command for fact in facts for command in egraph.parse_program(fact)]
        egraph.run_program(*commands)
    except EggSmolError as error:
        raise RuleProgramError(str(error)) from None


def saturate(
    rules: Sequence[RuleSource], facts: Sequence[str], rulesets: Sequence[str], limits: Limits
) -> Saturation:
    """Load the rules and facts, then run iterations of the schedule until nothing changes.

    Raises `LimitReachedError` when the e-graph holds more than `node_limit` Tensor
    e-nodes after an iteration, or is still changing after `iteration_limit` of them.
    """
    egraph = EGraph()
    load(egraph, rules, facts)
    schedule = iteration_schedule(rulesets)
    nodes = tensor_node_count(egraph)
    for iteration in range(1, limits.iteration_limit + 1):
        outputs = _run(egraph, schedule)
        report = outputs[-1].report  # type: ignore[attr-defined]
        nodes = tensor_node_count(egraph)
        if nodes > limits.node_limit:
            raise LimitReachedError(
                "node-limit",
                limits.node_limit,
                f"the e-graph holds {nodes} e-nodes after iteration {iteration}, more "
                f"than node-limit={limits.node_limit}",
            )
        if not report.updated:
            return Saturation(egraph, iteration, nodes)
    raise LimitReachedError(
        "iteration-limit",
        limits.iteration_limit,
        f"the rules still changed the e-graph after iteration-limit="
        f"{limits.iteration_limit} iterations ({nodes} e-nodes)",
    )
