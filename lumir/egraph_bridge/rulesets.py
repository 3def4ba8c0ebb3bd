"""The rule families of `cublaslt-fuse`, their files, and the schedule that runs them.

Each family is one `.egg` file under `rules/` declaring one egglog ruleset of the same
name. The generated datatype header (`terms.datatype_header`), `base.egg` (the term
language's functions and tables) and `canon.egg` (the `canon` ruleset) are always
loaded; every rule gets its provenance facts when loaded (`provenance.py`). The
schedule is explicit: one iteration saturates `canon`, then runs each selected family
once, in the order below; the pass repeats iterations until an iteration changes
nothing (saturation) or a limit is hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lumir.egraph_bridge.provenance import declarations, with_provenance
from lumir.egraph_bridge.terms import datatype_header

RULES_DIR = Path(__file__).resolve().parent / "rules"
_PACKAGE_ROOT = RULES_DIR.parents[2]

FAMILIES: tuple[str, ...] = (
    "alpha",
    "residual",
    "bias",
    "relu",
    "gelu",
    "cast",
    "batched",
)
"""Every rule family, in schedule order."""

RETIRED_FAMILIES: dict[str, str] = {
    "transpose": "hl-to-cublaslt folds operand transposes into transa/transb",
}
"""Family names that no longer exist, and who does their work now (for the error)."""

UNSAFE_TEST_RULES: tuple[str, ...] = ("unguarded-cast", "mistyped-merge", "misspelled-constant")
"""Rules that are wrong on purpose, loaded only by tests (`unsafe-test-rules=`)."""

HEADER_SOURCE = "lumir/egraph_bridge/terms.py (generated datatypes)"
PROVENANCE_SOURCE = "lumir/egraph_bridge/provenance.py (generated relations)"


@dataclass(frozen=True)
class RuleSource:
    """One part of the rule program and the name its egglog errors are reported under."""

    name: str
    text: str


class UnknownRuleFamilyError(ValueError):
    """A family or test-rule name that has no rule file; the message lists the known ones."""


def rule_file_path(name: str) -> str:
    """`rules/<name>.egg` as diagnostics name it (relative to the package's parent)."""
    path = RULES_DIR / f"{name}.egg"
    return path.relative_to(_PACKAGE_ROOT).as_posix()


@cache
def rule_file(name: str) -> RuleSource:
    """`rules/<name>.egg` as loaded: with its provenance facts (read once)."""
    text = (RULES_DIR / f"{name}.egg").read_text(encoding="utf-8")
    return RuleSource(rule_file_path(name), with_provenance(text))


def select_families(families: Sequence[str], disable: Sequence[str]) -> tuple[str, ...]:
    """The families to run: `families` (all when empty) minus `disable`, in schedule order."""
    for name in (*families, *disable):
        if name in RETIRED_FAMILIES:
            raise UnknownRuleFamilyError(
                f"rule family '{name}' no longer exists: {RETIRED_FAMILIES[name]} "
                f"(known: {', '.join(FAMILIES)})"
            )
        if name not in FAMILIES:
            raise UnknownRuleFamilyError(
                f"unknown rule family '{name}' (known: {', '.join(FAMILIES)})"
            )
    chosen = families or FAMILIES
    return tuple(name for name in FAMILIES if name in chosen and name not in disable)


def select_test_rules(names: Sequence[str]) -> tuple[str, ...]:
    """The unsafe test rules asked for, checked against `UNSAFE_TEST_RULES`."""
    for name in names:
        if name not in UNSAFE_TEST_RULES:
            raise UnknownRuleFamilyError(
                f"unknown unsafe test rule '{name}' (known: {', '.join(UNSAFE_TEST_RULES)})"
            )
    return tuple(name for name in UNSAFE_TEST_RULES if name in names)


def rule_sources(rulesets: Sequence[str]) -> tuple[RuleSource, ...]:
    """The header, base.egg, the provenance relations, canon.egg, the files of `rulesets`."""
    return (
        RuleSource(HEADER_SOURCE, datatype_header()),
        rule_file("base"),
        RuleSource(PROVENANCE_SOURCE, declarations()),
        rule_file("canon"),
        *(rule_file(name) for name in rulesets),
    )


def rules_program(rulesets: Sequence[str]) -> str:
    """The rule sources of `rulesets` as one egglog program text (the dump's rules)."""
    return "\n".join(source.text for source in rule_sources(rulesets))


def iteration_schedule(rulesets: Sequence[str]) -> str:
    """The `run-schedule` command of one iteration: saturate canon, then each ruleset once."""
    steps = ["(saturate (run canon))", *(f"(run {name})" for name in rulesets)]
    return f"(run-schedule {' '.join(steps)})"
