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

from generator.cel.rules import CelRule, RuleStatus, analyze, rules_of
from generator.cel.tree import ITEMS, PROPERTY, VALUES, children, resolve_ref
from generator.findings import format_path
from generator.schemastore.types import GroupVersionKind


@dataclass(frozen=True, slots=True)
class RuleEntry:
    """One CEL rule of one GVK's schema, as ``capzgen schemas list --cel`` reports it.

    ``path`` is where the rule sits as an object path (``spec.items[*].name``, ``spec.labels.*``);
    ``status`` and ``detail`` are the :func:`~generator.cel.rules.analyze` verdict.
    """

    gvk: GroupVersionKind
    source: str
    path: str  # schema location as an object path: ``spec.items[*].name``, ``spec.labels.*``
    rule: CelRule
    status: RuleStatus
    detail: str

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
        }


def schema_rules(schema: Mapping[str, Any]) -> Iterator[tuple[str, CelRule]]:
    """``(path, rule)`` for every rule of a converted schema, in document order."""
    yield from _walk(schema, schema, "", set())


def _walk(
    node: Any, root: Mapping[str, Any], path: str, active: set[int]
) -> Iterator[tuple[str, CelRule]]:
    if not isinstance(node, Mapping) or id(node) in active:
        return
    active.add(id(node))
    try:
        for rule in rules_of(node):
            yield path, rule
        for step, name, sub in children(node):
            if step == PROPERTY:
                yield from _walk(sub, root, _join(path, name), active)
            elif step == VALUES:
                yield from _walk(sub, root, f"{path}.*" if path else "*", active)
            elif step == ITEMS:
                yield from _walk(sub, root, f"{path}[*]", active)
        target = resolve_ref(node, root)
        if target is not None:
            yield from _walk(target, root, path, active)
    finally:
        active.discard(id(node))


def _join(path: str, name: str) -> str:
    step = format_path((name,))
    if step.startswith("["):
        return f"{path}{step}"
    return f"{path}.{step}" if path else step


def rule_inventory(store: Any) -> list[RuleEntry]:
    """The rules of every GVK a :class:`~generator.schemastore.store.SchemaStore` offers."""
    entries: list[RuleEntry] = []
    for gvk, source, schema in store.effective_schemas():
        for path, rule in schema_rules(schema):
            analysis = analyze(rule.rule)
            entries.append(RuleEntry(gvk, source, path, rule, analysis.status, analysis.detail))
    entries.sort(key=lambda e: (e.gvk.group, e.gvk.version, e.gvk.kind.lower(), e.path))
    return entries
