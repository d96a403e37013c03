"""Transition rules on an update: the CRDs' CEL rules that read ``oldSelf``.

The API server evaluates a rule that references ``oldSelf`` only on an update, and only where an
old value exists at the rule's place: an object property present in both, a map value under the
same key, an item of a ``x-kubernetes-list-type: map`` list with the same keys (items of other
lists are not correlated, so their transition rules do not run). With ratcheting, a value equal
to the old one is not checked again, and neither is anything below it. Rules with
``optionalOldSelf`` (whose ``oldSelf`` is an optional value) and rules calling functions capzgen
lacks are not evaluated, as on a create. Findings are rule ``cel`` with operation ``update``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from generator.cel.limits import CostExceeded, CostLimits, Meter
from generator.cel.rules import RuleStatus, analyze_tree, transition_evaluable
from generator.cel.tree import CelNode, CompiledRule, tree_for
from generator.cel.validate import ORIGIN, RULE_ID, parse_field_path
from generator.cel.values import matches_type
from generator.findings import Finding, JsonPath, Operation, Severity, Subject
from generator.jsontypes import Json, JsonObject
from generator.model.manifests import AsoResource, TopObject
from generator.names import valid_api_version
from generator.schemastore.types import SchemaLookup

Pair = tuple[JsonObject, TopObject | AsoResource]
"""An object's old value and the new object (top-level or embedded) it was matched with."""


def check_transitions(
    pairs: Iterable[Pair], store: SchemaLookup, *, cache_folder: Path | None = None
) -> list[Finding]:
    """The transition-rule findings of every matched pair."""
    findings: list[Finding] = []
    for old, where in pairs:
        api_version, kind = where.obj.get("apiVersion"), where.obj.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            continue
        handle = store.lookup(api_version, kind) if valid_api_version(api_version) else None
        tree = tree_for(handle, cache_folder) if handle is not None else None
        if tree is None:
            continue
        walker = _Walker(where.subject, Meter(CostLimits()))
        try:
            walker.walk(old, where.obj, tree, where.path)
        except CostExceeded as stop:
            message = f"CEL transition rules stopped: {stop}; the API server would refuse too"
            walker.add(Severity.ERROR, message, where.path)
        findings.extend(walker.findings)
    return findings


@dataclass
class _Walker:
    subject: Subject
    meter: Meter
    findings: list[Finding] = field(default_factory=list)

    def walk(self, old: Json, new: Json, node: CelNode, path: JsonPath) -> None:
        if old is None or new is None or old == new:  # no old value, or ratcheted
            return
        if node.rules and matches_type(new, node.schema) and matches_type(old, node.schema):
            for compiled in node.rules:
                self._evaluate(compiled, old, new, node, path)
        if isinstance(old, dict) and isinstance(new, dict):
            self._members(old, new, node, path)
        elif isinstance(old, list) and isinstance(new, list) and node.items is not None:
            keys = _map_keys(node.schema)
            if keys:
                before = {_key(item, keys): item for item in old}
                for index, item in enumerate(new):
                    self.walk(before.get(_key(item, keys)), item, node.items, (*path, index))

    def _members(self, old: JsonObject, new: JsonObject, node: CelNode, path: JsonPath) -> None:
        """Properties present in both, then map values under the same key."""
        for name, child in node.properties.items():
            self.walk(old.get(name), new.get(name), child, (*path, name))
        if node.values is not None:
            for key, value in new.items():
                if key not in node.properties:
                    self.walk(old.get(key), value, node.values, (*path, key))

    def _evaluate(
        self, compiled: CompiledRule, old: Json, new: Json, node: CelNode, path: JsonPath
    ) -> None:
        rule = compiled.rule
        # lazy: cel-python loads only when a transition rule is about to run
        from generator.cel.runtime import (
            CelEvaluationError,
            CelSyntaxError,
            compile_program,
            is_bool,
            to_cel,
        )

        if rule.optional_old_self:
            return
        try:
            program = compile_program(rule.rule)
        except CelSyntaxError:
            return  # reported on create
        if analyze_tree(program.tree).status is not RuleStatus.TRANSITION:
            return
        if not transition_evaluable(program.tree):
            return
        self.meter.start_call()
        try:
            result = program.evaluate(
                to_cel(new, node.schema), self.meter, to_cel(old, node.schema)
            )
        except (CelEvaluationError, TypeError, ValueError) as error:
            message = (
                f"CEL transition rule could not be evaluated: {error} (rule: {rule.rule}); "
                "the API server refuses the update if its evaluation fails too"
            )
            self.add(Severity.WARNING, message, path)
            return
        if is_bool(result) and not bool(result):
            where = path
            relative = parse_field_path(rule.field_path) if rule.field_path else None
            if relative is not None:
                where = (*path, *relative)
            self.add(Severity.ERROR, rule.failure_message(), where)

    def add(self, severity: Severity, message: str, path: JsonPath) -> None:
        self.findings.append(
            Finding(
                severity,
                RULE_ID,
                message,
                self.subject,
                path,
                origin=ORIGIN,
                operation=Operation.UPDATE,
            )
        )


def _map_keys(schema: Mapping[str, Json]) -> tuple[str, ...]:
    """The keys of a ``x-kubernetes-list-type: map`` list, else none (items not correlated)."""
    if schema.get("x-kubernetes-list-type") != "map":
        return ()
    keys = schema.get("x-kubernetes-list-map-keys")
    return tuple(str(key) for key in keys) if isinstance(keys, list) else ()


def _key(item: Json, keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(repr(item.get(key)) if isinstance(item, dict) else "" for key in keys)
