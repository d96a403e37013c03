"""Every CEL rule of the schemas on the search path, and whether capzgen evaluates it.

``capzgen schemas list --cel`` prints this, so that a rule capzgen cannot evaluate (a function
cel-python lacks, syntax it cannot parse) or does not evaluate (a transition rule) is visible
instead of being skipped silently. Schemas are loaded without compiling them; the first source of a
GVK wins, as in lookups.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from generator.cel.cost import estimate_cost
from generator.cel.limits import STATIC_ESTIMATED_COST_LIMIT
from generator.cel.rules import CelRule, RuleStatus, analyze, rules_of
from generator.cel.runtime import CelSyntaxError, parse
from generator.cel.shapes import Shape, cardinality_step
from generator.cel.tree import PROPERTY, children, resolve_ref, step_path
from generator.schemastore.types import GroupVersionKind, SchemaCatalog


@dataclass(frozen=True, slots=True)
class RuleEntry:
    """One CEL rule of one GVK's schema, as ``capzgen schemas list --cel`` reports it.

    ``path`` is where the rule sits as an object path (``spec.items[*].name``, ``spec.labels.*``);
    ``status`` and ``detail`` are the :func:`~generator.cel.rules.analyze` verdict; ``cost`` the
    worst-case cost of one evaluation (None when the rule does not parse) and ``cardinality`` the
    most evaluations in one object, whose product the API server limits.
    """

    gvk: GroupVersionKind
    source: str
    path: str  # schema location as an object path: ``spec.items[*].name``, ``spec.labels.*``
    rule: CelRule
    status: RuleStatus
    detail: str
    cost: int | None = None
    cardinality: int = 1

    @property
    def total_cost(self) -> int | None:
        """``cost`` times ``cardinality``: what the API server compares with its limit per rule."""
        return self.cost * self.cardinality if self.cost is not None else None

    @property
    def over_limit(self) -> bool:
        """Whether the API server refuses a CRD with this rule (its cost is over the limit)."""
        total = self.total_cost
        return total is not None and total > STATIC_ESTIMATED_COST_LIMIT

    def to_json(self) -> dict[str, Any]:
        """The entry as one element of the ``--cel --json`` output (camelCase keys, None kept)."""
        return {
            "group": self.gvk.group,
            "version": self.gvk.version,
            "kind": self.gvk.kind,
            "apiVersion": self.gvk.api_version,
            "source": self.source,
            "path": self.path,
            "rule": self.rule.rule,
            "message": self.rule.message,
            "messageExpression": self.rule.message_expression,
            "fieldPath": self.rule.field_path,
            "reason": self.rule.reason,
            "status": self.status.value,
            "detail": self.detail,
            "estimatedCost": self.cost,
            "maxCardinality": self.cardinality,
            "estimatedTotalCost": self.total_cost,
            "overCostLimit": self.over_limit,
        }


@dataclass(frozen=True, slots=True)
class RuleSite:
    """Where one rule sits: its object path, the node typing ``self``, the lists and maps around."""

    path: str
    rule: CelRule
    node: Mapping[str, Any]
    enclosing: tuple[Mapping[str, Any], ...]


def schema_rules(schema: Mapping[str, Any]) -> Iterator[tuple[str, CelRule]]:
    """``(path, rule)`` for every rule of a converted schema, in document order."""
    for site in rule_sites(schema):
        yield site.path, site.rule


def rule_sites(schema: Mapping[str, Any]) -> Iterator[RuleSite]:
    """Every rule of a converted schema where it sits, in document order."""
    yield from _walk(schema, schema, "", (), set())


def _walk(
    node: Any,
    root: Mapping[str, Any],
    path: str,
    enclosing: tuple[Mapping[str, Any], ...],
    active: set[int],
) -> Iterator[RuleSite]:
    if not isinstance(node, Mapping) or id(node) in active:
        return
    active.add(id(node))
    try:
        for rule in rules_of(node):
            yield RuleSite(path, rule, node, enclosing)
        for step, name, sub in children(node):
            inner = enclosing if step == PROPERTY else (*enclosing, node)
            yield from _walk(sub, root, step_path(path, step, name), inner, active)
        target = resolve_ref(node, root)
        if target is not None:
            yield from _walk(target, root, path, enclosing, active)
    finally:
        active.discard(id(node))


def estimate_site(site: RuleSite, root: Mapping[str, Any]) -> tuple[int | None, int]:
    """The worst-case cost of one evaluation of the rule (None if it does not parse) and the
    most evaluations of it in one object."""
    cardinality = 1
    for node in site.enclosing:
        cardinality *= cardinality_step(Shape(node, root))
    try:
        tree = parse(site.rule.rule)
    except CelSyntaxError:
        return None, cardinality
    return estimate_cost(tree, site.node, root), cardinality


def rule_inventory(store: SchemaCatalog) -> list[RuleEntry]:
    """The rules of every GVK a schema catalog offers."""
    entries: list[RuleEntry] = []
    for gvk, source, schema in store.effective_schemas():
        for site in rule_sites(schema):
            analysis = analyze(site.rule.rule)
            cost, cardinality = estimate_site(site, schema)
            entries.append(
                RuleEntry(
                    gvk,
                    source,
                    site.path,
                    site.rule,
                    analysis.status,
                    analysis.detail,
                    cost,
                    cardinality,
                )
            )
    entries.sort(key=lambda e: (e.gvk.group, e.gvk.version, e.gvk.kind.lower(), e.path))
    return entries
