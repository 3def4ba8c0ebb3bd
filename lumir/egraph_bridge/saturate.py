"""Run the rules over an encoded block in egglog, within node and iteration limits.

The rules and then the block's facts are parsed with egglog's own program parser,
`EGraph.parse_program`, and run with `run_program`, which egglog-python 13.2 and 14 both
provide with the same meaning. The facts are parsed one command at a time: egglog 13.2
spends time proportional to the length of the whole text on every command it parses
(source positions), which made a 64-block program take seconds to load; 14 does not.
Iterations are driven from Python so that the e-graph's size can be checked after each
one: a rule set that keeps growing the e-graph stops with a message naming the limit,
instead of running until memory runs out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from egglog.bindings import EggSmolError, EGraph

from lumir.egraph_bridge.rulesets import iteration_schedule
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


def _run(egraph: EGraph, text: str) -> list[object]:
    try:
        return egraph.run_program(*egraph.parse_program(text))
    except EggSmolError as error:
        raise RuleProgramError(str(error)) from None


def tensor_node_count(egraph: EGraph) -> int:
    """The number of Tensor e-nodes (the candidates the extractor chooses among)."""
    (sizes,) = _run(egraph, "(print-size)")
    return sum(size for name, size in sizes.sizes if name in TENSOR_CONSTRUCTORS)


def load(egraph: EGraph, rules: str, facts: Sequence[str]) -> None:
    """Run the rule files, then the block's fact commands (each parsed on its own)."""
    _run(egraph, rules)
    try:
        commands = [command for fact in facts for command in egraph.parse_program(fact)]
        egraph.run_program(*commands)
    except EggSmolError as error:
        raise RuleProgramError(str(error)) from None


def saturate(
    rules: str, facts: Sequence[str], rulesets: Sequence[str], limits: Limits
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
