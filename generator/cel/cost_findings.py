"""The findings of rule ``cel-cost``: CEL rules and evaluations over the API server's cost limits.

Three of them are the API server's own verdicts (:mod:`generator.cel.limits` cites the numbers):

* a rule whose estimated cost, times the number of times it can run in one object, is over the
  limit per rule makes the API server refuse the CRD: the rule is reported and not evaluated;
* the rules of one CRD together over the limit per CRD: the same refusal, reported once per object;
* an evaluation past the per-call limit, or all evaluations of one object past the per-object
  budget: the API server stops and rejects the object, and so does capzgen.

Two more are capzgen's own bounds: the wall-clock bound per object, and rules its evaluator
cannot finish (nesting too deep for it). They say nothing about what the API server would do,
but the rules they stop were not evaluated, so they are errors too: a file never passes on a rule
that was not checked. A rule over cel-go's expression limits (length, nesting) is the API server's
refusal of the CRD, reported instead of evaluated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.cel.limits import TIME, CostExceeded, CostLimits
from generator.cel.tree import CompiledRule
from generator.findings import Finding, JsonPath, Severity, Subject
from generator.schemastore.types import SchemaHandle

if TYPE_CHECKING:
    from generator.cel.prepare import Refusal

RULE_ID = "cel-cost"
ORIGIN = "cel"
_BOUNDS_HINT = (
    "add maxItems, maxProperties and maxLength to the schema where the rule's lists, maps and "
    "strings are declared, or simplify the rule"
)


def crd_name(handle: SchemaHandle) -> str:
    """How findings name the CRD of a schema handle: ``group/version Kind (source)``."""
    name = f"{handle.gvk.api_version} {handle.gvk.kind}"
    return f"{name} ({handle.source})" if handle.source else name


def over_rule_limit(
    compiled: CompiledRule, cost: int, total: int, limits: CostLimits, crd: str
) -> tuple[str, str]:
    """Message and hint for a rule the API server's CRD check refuses."""
    cardinality = compiled.cardinality
    product = f" ({cost:,} per evaluation x {cardinality:,} evaluations)" if cardinality > 1 else ""
    where = compiled.location or "(object)"
    message = (
        f"CEL rule not evaluated: its estimated cost {total:,}{product} exceeds the API server's "
        f"limit of {limits.static_per_rule:,} per rule, so the CRD {crd} is refused "
        f"(rule at {where}: {compiled.rule.rule})"
    )
    return message, _BOUNDS_HINT


def over_crd_limit(
    total: int, limits: CostLimits, crd: str, subject: Subject, path: JsonPath
) -> Finding:
    """The finding for a schema whose rules together are over the per-CRD limit."""
    return Finding(
        Severity.ERROR,
        RULE_ID,
        f"the CEL rules of the CRD {crd} have an estimated total cost of {total:,}, over the "
        f"API server's limit of {limits.static_per_crd:,} per CRD, so the CRD is refused",
        subject,
        path,
        origin=ORIGIN,
        hint=_BOUNDS_HINT,
    )


_RULE_SHOWN = 200  # characters of a rule's text in a message (a refused rule may be 1 MB)


def _rule_text(compiled: CompiledRule) -> str:
    text = compiled.rule.rule
    if len(text) <= _RULE_SHOWN:
        return text
    return f"{text[:_RULE_SHOWN]}... ({len(text) - _RULE_SHOWN:,} more characters)"


def refused_rule(compiled: CompiledRule, refusal: Refusal, crd: str) -> str:
    """The message for a rule not evaluated because of its expression (length, nesting)."""
    where = compiled.location or "(object)"
    verdict = f"so the API server refuses the CRD {crd}" if refusal.api_server else f"CRD {crd}"
    return (
        f"CEL rule not evaluated: {refusal.reason}, {verdict} "
        f"(rule at {where}: {_rule_text(compiled)})"
    )


def unevaluated(compiled: CompiledRule, reason: str) -> str:
    """The message for an evaluation this evaluator could not finish."""
    return f"CEL rule not evaluated: {reason} (rule: {_rule_text(compiled)})"


def stopped_call(compiled: CompiledRule, cost: int, limits: CostLimits) -> str:
    """The message for one evaluation stopped at the per-call limit."""
    return (
        f"CEL evaluation stopped after cost {cost:,} > per-call limit {limits.per_call:,}; "
        f"the API server stops it too and rejects the object (rule: {compiled.rule.rule})"
    )


def stopped_object(stop: CostExceeded, subject: Subject, path: JsonPath) -> Finding:
    """The finding for an object whose evaluations went past the budget or the time bound."""
    if stop.scope == TIME:
        return Finding(
            Severity.ERROR,
            RULE_ID,
            f"CEL rules not evaluated: evaluation stopped after {stop.limit:g} s (cost "
            f"{stop.cost:,} so far, within the API server's limits); the object's remaining "
            "rules were not checked, so it cannot pass",
            subject,
            path,
            origin=ORIGIN,
            hint="capzgen's evaluator is slower than the API server's: simplify the rule or "
            "bound the lists and strings it walks",
        )
    return Finding(
        Severity.ERROR,
        RULE_ID,
        f"CEL evaluation stopped after cost {stop.cost:,} > per-object budget "
        f"{int(stop.limit):,}; the API server rejects the object, and its remaining rules were "
        "not evaluated",
        subject,
        path,
        origin=ORIGIN,
    )
