"""Fuse one block: encode, saturate, extract, decode — each phase timed and sized.

This is the whole bridge for one block, kept apart from the pass so that the benchmark
(`bench/fuse_scaling.py`) and the tests can run and measure it directly. Timings are
only recorded, never consulted: no decision here depends on how long anything took.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation

from lumir.egraph_bridge.class_types import MistypedClassError, check_class_types
from lumir.egraph_bridge.decoder import decode, home_ops, input_nodes, needed_classes
from lumir.egraph_bridge.egraph_view import ENode, read_egraph
from lumir.egraph_bridge.encoder import encode_block
from lumir.egraph_bridge.extractor import Rejection, extract
from lumir.egraph_bridge.rulesets import iteration_schedule, rule_sources, rules_program
from lumir.egraph_bridge.saturate import Limits, saturate


@dataclass(frozen=True)
class FuseConfig:
    """What to run: rulesets in schedule order, and the saturation limits."""

    rulesets: tuple[str, ...]
    limits: Limits


@dataclass(frozen=True)
class RejectedCall:
    """A call e-node the verifier refused, located at the op whose value it would compute."""

    op: Operation | None
    made_by: tuple[str, ...]
    problems: tuple[str, ...]


class MistypedFusionError(Exception):
    """A rule left an e-class holding two types; `op` computes that class's value."""

    def __init__(self, error: MistypedClassError, op: Operation | None):
        super().__init__(str(error))
        self.rules = error.rules
        self.op = op


@dataclass
class BlockOutcome:
    """What fusing one block did: program text, e-graph size, refusals and phase times."""

    program: str
    iterations: int = 0
    nodes: int = 0
    classes: int = 0
    cost: float = 0.0
    input_cost: float = 0.0
    rejected: list[RejectedCall] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


def egglog_program(config: FuseConfig, facts: str) -> str:
    """The block's egglog program as a runnable file: rules, facts, then the schedule.

    The pass runs the schedule one iteration at a time so that it can check the limits
    between iterations; the `repeat` here runs the same iterations in one command.
    """
    steps = iteration_schedule(config.rulesets).removeprefix("(run-schedule ")
    limits = config.limits
    return (
        f"{rules_program(config.rulesets)}\n; --- the block ---\n{facts}"
        f"; --- schedule: iterations until nothing changes (the pass stops at "
        f"iteration-limit={limits.iteration_limit} and node-limit={limits.node_limit}) ---\n"
        f"(run-schedule (repeat {limits.iteration_limit} {steps})\n"
    )


def fuse_block(block: Block, config: FuseConfig) -> BlockOutcome:
    """Rewrite `block` into its cheapest verified fused form and report what happened.

    Raises `saturate.LimitReachedError` when a limit is hit, and `MistypedFusionError`
    when a rule merged values of different types (the block is unchanged either way).
    """
    start = time.perf_counter()
    encoded = encode_block(block)
    program = egglog_program(config, encoded.program)
    outcome = BlockOutcome(program)
    outcome.seconds["encode"] = time.perf_counter() - start

    start = time.perf_counter()
    rules = rule_sources(config.rulesets)
    saturation = saturate(rules, encoded.facts, config.rulesets, config.limits)
    outcome.iterations, outcome.nodes = saturation.iterations, saturation.nodes
    outcome.seconds["saturate"] = time.perf_counter() - start

    start = time.perf_counter()
    view = read_egraph(saturation.egraph, encoded)
    outcome.classes = len(view.classes)
    homes = home_ops(view, encoded)
    try:
        check_class_types(view, encoded)
    except MistypedClassError as error:
        raise MistypedFusionError(error, homes.get(error.class_id)) from None
    inputs = input_nodes(view, encoded)

    def from_input(cls: int, node: ENode) -> bool:
        return node.kind == "Leaf" or (cls, node.key) in inputs

    extraction = extract(view, needed_classes(view, encoded), from_input)
    outcome.cost, outcome.input_cost = extraction.cost, extraction.input_cost
    outcome.rejected = [_rejected(r, homes) for r in extraction.rejected]
    outcome.seconds["extract"] = time.perf_counter() - start

    start = time.perf_counter()
    decode(view, encoded, extraction.choice)
    outcome.seconds["decode"] = time.perf_counter() - start
    return outcome


def _rejected(rejection: Rejection, homes: dict[int, Operation]) -> RejectedCall:
    return RejectedCall(homes.get(rejection.class_id), rejection.node.made_by, rejection.problems)
